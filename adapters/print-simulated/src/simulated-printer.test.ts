import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { handwrittenJob, letterJob, postcardJob } from "@mailpiece/conformance";
import { manualClock, PortError, PrintError, type PrintJob, type Store } from "@mailpiece/ports";
import { createFileStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterEach, describe, expect, it } from "vitest";
import { SIMULATED_CAPABILITIES } from "./default-capabilities.ts";
import { DEFAULT_PACE } from "./pace.ts";
import type { SimulatedJobRecord } from "./simulated-job.ts";
import { createSimulatedPrinter, DEFAULT_TRACKING_URL_BASE } from "./simulated-printer.ts";
import { TEST_ADDRESS_PHRASES } from "./test-addresses.ts";
import { codeOf, setup, T0 } from "./test-support.ts";

const to = async (line1: string): Promise<PrintJob> => {
  const job = await letterJob("US");
  return { ...job, recipient: { ...job.recipient, line1 } };
};

describe("createSimulatedPrinter: the clock-driven timeline", () => {
  it("accepts after 2 s, hands to the carrier after 10 s and delivers after 30 s by default", async () => {
    expect(DEFAULT_PACE).toEqual({ acceptAfterMs: 2_000, inTransitAfterMs: 10_000, deliverAfterMs: 30_000 });
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await letterJob("US"), { idempotencyKey: "k1" });
    const seen: Array<[number, string]> = [];
    for (const at of [0, 1_999, 2_000, 9_999, 10_000, 19_999, 20_000, 29_999, 30_000, 86_400_000]) {
      clock.set(T0 + at);
      seen.push([at, (await printer.status(reference)).status]);
    }
    expect(seen).toEqual([
      [0, "submitted"],
      [1_999, "submitted"],
      [2_000, "accepted"],
      [9_999, "accepted"],
      [10_000, "in_transit"],
      [19_999, "in_transit"],
      [20_000, "in_transit"],
      [29_999, "in_transit"],
      [30_000, "delivered"],
      [86_400_000, "delivered"],
    ]);
  });

  it("tells the whole story of a delivered letter with times, descriptions and places", async () => {
    const { clock, printer } = setup();
    const submitted = await printer.submit(await letterJob("US"), { idempotencyKey: "k1" });
    expect(submitted).toMatchObject({
      reference: "sim_00000000000040008000000000000001",
      status: "submitted",
      submitted_at: "2026-01-01T00:00:00.000Z",
      tracking_number: null,
      tracking_url: null,
      idempotent_replay: false,
    });
    clock.advance(31_000);
    const view = await printer.status(submitted.reference);
    expect(view.events).toEqual([
      {
        status: "submitted",
        at: "2026-01-01T00:00:00.000Z",
        description: "Received by the simulated printer (1 page)",
        location: "Mailpiece simulated print centre",
      },
      {
        status: "accepted",
        at: "2026-01-01T00:00:02.000Z",
        description: "Printed, folded and enveloped",
        location: "Mailpiece simulated print centre",
      },
      {
        status: "in_transit",
        at: "2026-01-01T00:00:10.000Z",
        description: "Handed to the carrier",
        location: "Mailpiece simulated print centre",
      },
      {
        status: "in_transit",
        at: "2026-01-01T00:00:20.000Z",
        description: "Arrived at the destination sorting facility",
        location: "Washington, DC 20500, US",
      },
      {
        status: "delivered",
        at: "2026-01-01T00:00:30.000Z",
        description: "Delivered to the recipient's mailbox",
        location: "Washington, DC 20500, US",
      },
    ]);
  });

  it("follows a configured pace", async () => {
    const { clock, printer } = setup({
      pace: { acceptAfterMs: 60_000, inTransitAfterMs: 3_600_000, deliverAfterMs: 86_400_000 },
    });
    const { reference } = await printer.submit(await postcardJob("US", "4x6", "US"), {
      idempotencyKey: "k1",
    });
    clock.advance(59_999);
    expect((await printer.status(reference)).status).toBe("submitted");
    clock.advance(1);
    const accepted = await printer.status(reference);
    expect(accepted.status).toBe("accepted");
    expect(accepted.events[1]?.description).toBe("Printed and trimmed");
    clock.set(T0 + 86_400_000);
    expect((await printer.status(reference)).status).toBe("delivered");
    expect(printer.pace).toEqual({
      acceptAfterMs: 60_000,
      inTransitAfterMs: 3_600_000,
      deliverAfterMs: 86_400_000,
    });
  });

  it("keeps each job on the pace it was submitted with, whatever the reading printer's pace", async () => {
    const clock = manualClock(T0);
    const store = createMemoryStore({ clock });
    const slow = createSimulatedPrinter({
      store,
      clock,
      pace: { acceptAfterMs: 600_000, inTransitAfterMs: 600_000, deliverAfterMs: 600_000 },
    });
    const fast = createSimulatedPrinter({ store, clock });
    const { reference } = await slow.submit(await letterJob("US"), { idempotencyKey: "k1" });
    clock.advance(30_000);
    expect((await fast.status(reference)).status).toBe("submitted");
  });

  it("refuses a pace that is not whole, non-negative milliseconds in order", () => {
    const bad = [
      { acceptAfterMs: -1 },
      { inTransitAfterMs: 1.5 },
      { deliverAfterMs: Number.NaN },
      { acceptAfterMs: 20_000 },
      { inTransitAfterMs: 40_000 },
    ];
    for (const pace of bad) expect(() => setup({ pace })).toThrow(RangeError);
    expect(
      setup({ pace: { acceptAfterMs: 0, inTransitAfterMs: 0, deliverAfterMs: 0 } }).printer.pace
        .deliverAfterMs,
    ).toBe(0);
  });
});

describe("createSimulatedPrinter: tracking", () => {
  it("assigns SIM and 20 digits once accepted, with a tracking page under the base", async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await letterJob("US"), { idempotencyKey: "k1" });
    clock.advance(2_000);
    const view = await printer.status(reference);
    expect(view.tracking_number).toMatch(/^SIM\d{20}$/);
    expect(view.tracking_url).toBe(`${DEFAULT_TRACKING_URL_BASE}${view.tracking_number}`);
    const other = await printer.submit(await letterJob("CA", {}, "US"), { idempotencyKey: "k2" });
    clock.advance(2_000);
    expect((await printer.status(other.reference)).tracking_number).not.toBe(view.tracking_number);
  });

  it("puts tracking pages under a configured https base", async () => {
    const { clock, printer } = setup({ trackingUrlBase: "https://mail.example.com/track?x=1" });
    const { reference } = await printer.submit(await letterJob("US"), { idempotencyKey: "k1" });
    clock.advance(2_000);
    const view = await printer.status(reference);
    expect(view.tracking_url).toBe(`https://mail.example.com/track/${view.tracking_number}`);
    expect(() => setup({ trackingUrlBase: "http://mail.example.com/" })).toThrow(TypeError);
    expect(() => setup({ trackingUrlBase: "/track/" })).toThrow(TypeError);
  });
});

describe("createSimulatedPrinter: scripted test addresses", () => {
  it(`returns pieces to "${TEST_ADDRESS_PHRASES.returnToSender}" at delivery time, at the sender's address`, async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await to("1 Return To Sender Lane"), { idempotencyKey: "k1" });
    clock.advance(29_999);
    expect((await printer.status(reference)).status).toBe("in_transit");
    clock.advance(1);
    const view = await printer.status(reference);
    expect(view.status).toBe("returned");
    expect(view.events.at(-1)).toEqual({
      status: "returned",
      at: "2026-01-01T00:00:30.000Z",
      description: "Returned to sender: scripted test address (RETURN TO SENDER)",
      location: "Washington, DC 20500, US",
    });
  });

  it(`fails "${TEST_ADDRESS_PHRASES.failPrint}" after acceptance, when it would reach the carrier`, async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await to("9 FAIL PRINT Road"), { idempotencyKey: "k1" });
    clock.advance(2_000);
    expect((await printer.status(reference)).status).toBe("accepted");
    clock.advance(8_000);
    const failed = await printer.status(reference);
    expect(failed.events.map((e) => e.status)).toEqual(["submitted", "accepted", "failed"]);
    clock.advance(86_400_000);
    expect((await printer.status(reference)).events).toEqual(failed.events);
  });

  it(`refuses "${TEST_ADDRESS_PHRASES.rejectPrint}" with job_rejected and creates nothing`, async () => {
    const { printer } = setup();
    expect(
      await codeOf(async () => printer.submit(await to("reject print way"), { idempotencyKey: "k1" })),
    ).toBe("job_rejected");
    expect(
      await codeOf(async () => printer.submit(await to("Reject Print Way"), { idempotencyKey: "k1" })),
    ).toBe("job_rejected");
    expect(await printer.lookup("k1")).toEqual({ outcome: "not_found" });
  });

  it(`creates "${TEST_ADDRESS_PHRASES.submitTimeout}" jobs but loses the first answer, for reconciliation`, async () => {
    const { printer } = setup();
    const job = await to("5 Submit Timeout Street");
    expect(await codeOf(() => printer.submit(job, { idempotencyKey: "k1" }))).toBe("provider_unavailable");
    const found = await printer.lookup("k1");
    expect(found).toEqual({
      outcome: "found",
      reference: "sim_00000000000040008000000000000001",
      status: "submitted",
    });
    const again = await printer.submit(job, { idempotencyKey: "k1" });
    expect(again.reference).toBe("sim_00000000000040008000000000000001");
    expect(again.idempotent_replay).toBe(true);
  });

  it("delivers every other address", async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await to("12 Printers Row"), { idempotencyKey: "k1" });
    clock.advance(30_000);
    expect((await printer.status(reference)).status).toBe("delivered");
  });
});

describe("createSimulatedPrinter: handwritten mail", () => {
  it("writes, stamps and posts a handwritten piece, ending in transit without tracking", async () => {
    const { clock, printer } = setup();
    const submitted = await printer.submit(await handwrittenJob("US"), { idempotencyKey: "k1" });
    expect(submitted).toMatchObject({ status: "submitted", tracking_number: null, tracking_url: null });
    const seen: Array<[number, string, string | null]> = [];
    for (const at of [1_999, 2_000, 10_000, 30_000, 400 * 86_400_000]) {
      clock.set(T0 + at);
      const view = await printer.status(submitted.reference);
      expect(view.tracking_url).toBeNull();
      seen.push([at, view.status, view.tracking_number]);
    }
    expect(seen).toEqual([
      [1_999, "submitted", null],
      [2_000, "accepted", null],
      [10_000, "in_transit", null],
      [30_000, "in_transit", null],
      [400 * 86_400_000, "in_transit", null],
    ]);
    expect((await printer.status(submitted.reference)).events).toEqual([
      {
        status: "submitted",
        at: "2026-01-01T00:00:00.000Z",
        description: "Received by the simulated printer (1 page)",
        location: "Mailpiece simulated print centre",
      },
      {
        status: "accepted",
        at: "2026-01-01T00:00:02.000Z",
        description: "Written by the handwriting machine, enveloped and stamped",
        location: "Mailpiece simulated print centre",
      },
      {
        status: "in_transit",
        at: "2026-01-01T00:00:10.000Z",
        description: "Posted as stamped mail; handwritten mail has no carrier tracking",
        location: "Mailpiece simulated print centre",
      },
    ]);
    expect(await printer.lookup("k1")).toEqual({
      outcome: "found",
      reference: submitted.reference,
      status: "in_transit",
    });
  });

  it(`is never returned, even to "${TEST_ADDRESS_PHRASES.returnToSender}", but can fail in production`, async () => {
    const { clock, printer } = setup();
    const base = await handwrittenJob("CA", "US");
    const at = (line1: string): PrintJob => ({ ...base, recipient: { ...base.recipient, line1 } });
    const back = await printer.submit(at("1 Return To Sender Lane"), { idempotencyKey: "k1" });
    const fail = await printer.submit(at("9 Fail Print Road"), { idempotencyKey: "k2" });
    clock.advance(30 * 86_400_000);
    expect((await printer.status(back.reference)).events.map((e) => e.status)).toEqual([
      "submitted",
      "accepted",
      "in_transit",
    ]);
    expect((await printer.status(fail.reference)).events.map((e) => e.status)).toEqual([
      "submitted",
      "accepted",
      "failed",
    ]);
  });

  it("can be canceled before the machine starts writing", async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await handwrittenJob("US"), { idempotencyKey: "k1" });
    expect((await printer.cancel(reference)).status).toBe("canceled");
    clock.advance(60_000);
    expect((await printer.status(reference)).status).toBe("canceled");
    const late = await printer.submit(await handwrittenJob("US"), { idempotencyKey: "k2" });
    clock.advance(2_000);
    expect(await codeOf(() => printer.cancel(late.reference))).toBe("cancel_too_late");
  });

  it("is refused with unsupported_job by a printer whose capabilities leave handwritten out", async () => {
    const capabilities = {
      ...SIMULATED_CAPABILITIES,
      mailpiece_types: ["letter" as const, "postcard" as const],
    };
    const { printer } = setup({ capabilities });
    const refusal = await printer
      .submit(await handwrittenJob("US"), { idempotencyKey: "k1" })
      .catch((error: unknown) => error);
    expect(PrintError.isInstance(refusal) && [refusal.code, refusal.field]).toEqual([
      "unsupported_job",
      "mailpiece_type",
    ]);
    expect(await printer.lookup("k1")).toEqual({ outcome: "not_found" });
  });

  it("refuses malformed handwritten jobs with invalid_job at the field", async () => {
    const { printer } = setup();
    const job = await handwrittenJob("US");
    const cases: Array<[Partial<PrintJob>, string]> = [
      [{ postcard_size: "4x6" }, "postcard_size"],
      [{ mail_class: "express" }, "mail_class"],
      [{ certified: true }, "certified"],
    ];
    for (const [change, field] of cases) {
      const refusal = await printer
        .submit({ ...job, ...change }, { idempotencyKey: "k1" })
        .catch((error: unknown) => error);
      expect(PrintError.isInstance(refusal) && [refusal.code, refusal.field]).toEqual(["invalid_job", field]);
    }
    expect(await printer.lookup("k1")).toEqual({ outcome: "not_found" });
  });
});

describe("createSimulatedPrinter: the Store", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("keeps jobs across a restart on a durable store", async () => {
    const dir = await mkdtemp(join(tmpdir(), "print-sim-"));
    dirs.push(dir);
    const clock = manualClock(T0);
    const job = await letterJob("US");
    const firstStore = await createFileStore({ dir, clock });
    const before = createSimulatedPrinter({ store: firstStore, clock });
    const submitted = await before.submit(job, { idempotencyKey: "order-1" });
    await firstStore.close();

    clock.advance(10_000);
    const secondStore = await createFileStore({ dir, clock });
    try {
      const after = createSimulatedPrinter({ store: secondStore, clock });
      expect((await after.status(submitted.reference)).status).toBe("in_transit");
      expect(await after.lookup("order-1")).toEqual({
        outcome: "found",
        reference: submitted.reference,
        status: "in_transit",
      });
      const replay = await after.submit(job, { idempotencyKey: "order-1" });
      expect(replay.reference).toBe(submitted.reference);
      expect(replay.idempotent_replay).toBe(true);
    } finally {
      await secondStore.close();
    }
  });

  it("makes one job for one key across printers sharing a store, whoever submits", async () => {
    const clock = manualClock(T0);
    const store = createMemoryStore({ clock });
    const printers = Array.from({ length: 4 }, () => createSimulatedPrinter({ store, clock }));
    const job = await letterJob("US");
    const results = await Promise.all(
      printers.flatMap((p) => [
        p.submit(job, { idempotencyKey: "shared" }),
        p.submit(job, { idempotencyKey: "shared" }),
      ]),
    );
    expect(new Set(results.map((r) => r.reference)).size).toBe(1);
    expect(results.filter((r) => !r.idempotent_replay)).toHaveLength(1);
    const keys = (await store.list("print:simulated:")).records.map((r) => r.key);
    expect(keys).toEqual([`print:simulated:key:shared`, `print:simulated:ref:${results[0]?.reference}`]);
  });

  it("stores the job without its document bytes, under its name's prefix", async () => {
    const { store, printer } = setup({ name: "sandbox-2" });
    const job = await letterJob("US");
    await printer.submit(job, { idempotencyKey: "k1" });
    const record = await store.get<SimulatedJobRecord>("print:sandbox-2:key:k1");
    expect(record?.value.job.document).toEqual({
      sha256: job.document.sha256,
      page_count: 1,
      byte_length: job.document.bytes.byteLength,
    });
    expect(JSON.stringify(record?.value)).not.toContain('"bytes"');
    expect(record?.value.pace).toEqual(DEFAULT_PACE);
    expect(record?.value.outcome).toBe("delivered");
  });

  it("keeps printers with different names apart", async () => {
    const clock = manualClock(T0);
    const store = createMemoryStore({ clock });
    const a = createSimulatedPrinter({ store, clock, name: "a" });
    const b = createSimulatedPrinter({ store, clock, name: "b" });
    const { reference } = await a.submit(await letterJob("US"), { idempotencyKey: "k1" });
    expect(await b.lookup("k1")).toEqual({ outcome: "not_found" });
    expect(await codeOf(() => b.status(reference))).toBe("job_not_found");
  });

  it("repairs a missing reference index on lookup and on a repeated submit", async () => {
    const { store, printer } = setup();
    const job = await letterJob("US");
    const { reference } = await printer.submit(job, { idempotencyKey: "k1" });
    await store.delete(`print:simulated:ref:${reference}`);
    expect(await codeOf(() => printer.status(reference))).toBe("job_not_found");
    await printer.lookup("k1");
    expect((await printer.status(reference)).reference).toBe(reference);
    await store.delete(`print:simulated:ref:${reference}`);
    await printer.submit(job, { idempotencyKey: "k1" });
    expect((await printer.status(reference)).reference).toBe(reference);
  });

  it("reports store trouble as provider_unavailable: the outcome is unknown", async () => {
    const clock = manualClock(T0);
    const healthy = createMemoryStore({ clock });
    const broken: Store = {
      ...healthy,
      async create() {
        throw new PortError("store_unavailable", "disk full");
      },
      async get() {
        throw new PortError("store_unavailable", "disk full");
      },
    };
    const printer = createSimulatedPrinter({ store: broken, clock });
    expect(await codeOf(async () => printer.submit(await letterJob("US"), { idempotencyKey: "k1" }))).toBe(
      "provider_unavailable",
    );
    expect(await codeOf(() => printer.lookup("k1"))).toBe("provider_unavailable");
    expect(await codeOf(async () => printer.returnReceipt?.("sim_1"))).toBe("provider_unavailable");
  });
});

describe("createSimulatedPrinter: submit checks", () => {
  it("refuses a document whose bytes do not match its sha256 with invalid_job", async () => {
    const { printer } = setup();
    const job = await letterJob("US");
    const tampered = { ...job, document: { ...job.document, sha256: "0".repeat(64) } };
    expect(await codeOf(() => printer.submit(tampered, { idempotencyKey: "k1" }))).toBe("invalid_job");
    expect(await printer.lookup("k1")).toEqual({ outcome: "not_found" });
  });

  it("refuses jobs its configured capabilities do not carry", async () => {
    const { printer } = setup({
      capabilities: {
        origin_country: "US",
        countries: ["US"],
        mailpiece_types: ["letter"],
        postcard_sizes: [],
        mail_classes: ["standard"],
        certified: false,
        registered: [],
        international_postcards: null,
        color: false,
        double_sided: true,
      },
    });
    expect(
      await codeOf(async () => printer.submit(await postcardJob("US", "4x6", "US"), { idempotencyKey: "a" })),
    ).toBe("unsupported_job");
    expect(
      await codeOf(async () =>
        printer.submit(await letterJob("US", { color: true }), { idempotencyKey: "b" }),
      ),
    ).toBe("unsupported_job");
    expect((await printer.submit(await letterJob("US"), { idempotencyKey: "c" })).status).toBe("submitted");
  });

  it("answers job_not_found for references that could never exist", async () => {
    const { printer } = setup();
    for (const reference of ["", "../etc", "a b", "x".repeat(300)]) {
      expect(await codeOf(() => printer.status(reference))).toBe("job_not_found");
      expect(await codeOf(() => printer.cancel(reference))).toBe("job_not_found");
    }
  });

  it("cancels once under concurrent cancels", async () => {
    const { printer, store } = setup();
    const { reference } = await printer.submit(await letterJob("US"), { idempotencyKey: "k1" });
    const views = await Promise.all(Array.from({ length: 5 }, () => printer.cancel(reference)));
    expect(new Set(views.map((v) => JSON.stringify(v))).size).toBe(1);
    expect(views[0]?.status).toBe("canceled");
    expect((await store.get("print:simulated:key:k1"))?.version).toBe(2);
  });
});

describe("createSimulatedPrinter: options", () => {
  it("is a simulated provider named as asked, with frozen capabilities of its own", () => {
    const capabilities = {
      origin_country: "US",
      countries: ["US"],
      mailpiece_types: ["letter" as const],
      postcard_sizes: [],
      mail_classes: ["standard" as const],
      certified: false,
      registered: [],
      international_postcards: null,
      color: false,
      double_sided: false,
    };
    const { printer } = setup({ name: "desk", capabilities });
    capabilities.countries.push("CA");
    expect(printer.name).toBe("desk");
    expect(printer.simulated).toBe(true);
    expect(printer.capabilities.countries).toEqual(["US"]);
    expect(Object.isFrozen(printer.capabilities.countries)).toBe(true);
  });

  it("refuses a name that cannot prefix Store keys, and malformed country codes", () => {
    for (const name of ["", "Print", "a:b", "a b", "x".repeat(65)])
      expect(() => setup({ name })).toThrow(TypeError);
    const { printer } = setup();
    expect(() => setup({ capabilities: { ...printer.capabilities, countries: ["us"] } })).toThrow(TypeError);
    expect(() => setup({ capabilities: { ...printer.capabilities, origin_country: "USA" } })).toThrow(
      TypeError,
    );
  });
});

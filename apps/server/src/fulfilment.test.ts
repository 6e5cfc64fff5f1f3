import { execFileSync } from "node:child_process";
import { letterOrder, manualAddress } from "@mailpiece/conformance";
import { createMailpieceCore } from "@mailpiece/core";
import type { PrintProvider } from "@mailpiece/ports";
import { manualClock } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { Mppx } from "mppx/client";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createRails } from "./rails.ts";
import { createServerApp } from "./server-app.ts";

type Json = Record<string, unknown>;
const PACE = { acceptAfterMs: 2_000, inTransitAfterMs: 10_000, deliverAfterMs: 30_000 };

/** Two server processes sharing one store: separate cores and printers, one clock. */
function deployment(processes = 1) {
  const clock = manualClock(Date.UTC(2026, 10, 22, 9));
  const store = createMemoryStore({ clock });
  const blobs = createMemoryBlobStore();
  const { rails } = createRails(loadConfig({ STORE: "memory", PAYMENT_RAILS: "mpp" }), store);
  const submissions: string[] = [];
  const cores = Array.from({ length: processes }, () => {
    const printer = createSimulatedPrinter({ store, clock, pace: PACE });
    const counting: PrintProvider = {
      ...printer,
      async submit(job, options) {
        submissions.push(options.idempotencyKey);
        return printer.submit(job, options);
      },
    };
    return createMailpieceCore({ store, blobs, clock, rails, printProviders: [counting] });
  });
  const app = createServerApp(cores[0]!, {
    publicUrl: "http://127.0.0.1:3000",
    maxBodyBytes: 1 << 20,
    logger: createLogger("silent"),
    version: "t",
  });
  const status = async (id: string) =>
    (await (
      await app.fetch(new Request(`http://127.0.0.1:3000/api/machine/mpp/orders/${id}`))
    ).json()) as Json;
  return { clock, cores, app, status, submissions };
}

async function payInProcess(d: ReturnType<typeof deployment>, order: Json): Promise<Json> {
  const body = JSON.stringify(order);
  const request = (headers: Record<string, string> = {}) =>
    d.app.fetch(
      new Request("http://127.0.0.1:3000/api/machine/mpp/orders", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      }),
    );
  const unpaid = await request();
  expect(unpaid.status).toBe(402);
  const mpp = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
  const credential = await mpp.createCredential(unpaid);
  const paid = await request({ authorization: credential });
  expect(paid.status).toBe(202);
  return (await paid.json()) as Json;
}

describe("fulfilment with the simulated printer", () => {
  it("takes a paid letter to delivered with its full timeline, tracking and status steps", async () => {
    const d = deployment();
    const paid = await payInProcess(d, letterOrder());
    const id = paid.order_id as string;
    expect((await d.status(id)).status).toBe("queued");
    await d.cores[0]!.fulfil();
    let view = await d.status(id);
    expect(view.status).toBe("submitted");
    d.clock.advance(PACE.acceptAfterMs);
    await d.cores[0]!.fulfil();
    expect((await d.status(id)).status).toBe("accepted");
    d.clock.advance(PACE.inTransitAfterMs);
    await d.cores[0]!.fulfil();
    expect((await d.status(id)).status).toBe("in_transit");
    d.clock.advance(PACE.deliverAfterMs);
    await d.cores[0]!.fulfil();
    view = await d.status(id);
    expect(view.status).toBe("delivered");
    expect(view.terminal).toBe(true);
    const timeline = view.timeline as {
      status_before: string | null;
      status_after: string;
      source: string;
    }[];
    expect(timeline.map((e) => e.status_after)).toEqual([
      "queued",
      "document_preparing",
      "document_prepared",
      "submission_pending",
      "submitted",
      "accepted",
      "in_transit",
      "delivered",
    ]);
    for (let i = 1; i < timeline.length; i++)
      expect(timeline[i]!.status_before).toBe(timeline[i - 1]!.status_after);
    expect((view.steps as { step: string }[]).map((s) => s.step)).toEqual(
      expect.arrayContaining([
        "payment_received",
        "receiver_address_verified",
        "sender_address_verified",
        "pdf_normalized",
        "letter_created",
      ]),
    );
    const tracking = view.tracking as { number: string; url: string; events: unknown[] };
    expect(tracking.number).toMatch(/^SIM\d+$/);
    expect(tracking.url).toContain(tracking.number);
    expect(tracking.events.length).toBeGreaterThanOrEqual(3);
    expect(d.submissions).toEqual([id]);
    // Nothing more to do once delivered.
    expect(await d.cores[0]!.fulfil()).toBe(0);
  });

  it("follows a scripted return to sender", async () => {
    const d = deployment();
    const paid = await payInProcess(
      d,
      letterOrder({ recipient_address_manual: manualAddress({ line1: "1 RETURN TO SENDER Way" }) }),
    );
    for (let i = 0; i < 6; i++) {
      await d.cores[0]!.fulfil();
      d.clock.advance(15_000);
    }
    expect((await d.status(paid.order_id as string)).status).toBe("returned");
  });

  it("two processes sharing a store submit one order once", async () => {
    const d = deployment(2);
    const paid = await payInProcess(d, letterOrder());
    await Promise.all([d.cores[0]!.fulfil({ owner: "a" }), d.cores[1]!.fulfil({ owner: "b" })]);
    await Promise.all([d.cores[0]!.fulfil({ owner: "a" }), d.cores[1]!.fulfil({ owner: "b" })]);
    expect(d.submissions).toEqual([paid.order_id]);
    expect((await d.status(paid.order_id as string)).status).toBe("submitted");
  });

  it("reconciles a submission whose answer was lost instead of submitting blindly", async () => {
    const d = deployment();
    const paid = await payInProcess(
      d,
      letterOrder({ recipient_address_manual: manualAddress({ line1: "1 SUBMIT TIMEOUT Road" }) }),
    );
    const id = paid.order_id as string;
    await d.cores[0]!.fulfil();
    const view = await d.status(id);
    expect(["submitted", "accepted"]).toContain(view.status);
    // One submission: the lost answer was settled by asking the provider about the key, not by submitting again.
    expect(d.submissions).toEqual([id]);
    const timeline = view.timeline as { status_before: string; status_after: string; source: string }[];
    const pendingAt = timeline.findIndex((e) => e.status_after === "submission_pending");
    expect(pendingAt).toBeGreaterThan(0);
    expect(timeline[pendingAt + 1]).toMatchObject({
      status_before: "submission_pending",
      source: "reconciliation",
    });
  });

  it("a paid campaign with good and bad rows mails exactly the good ones, with a campaign page", async () => {
    const d = deployment();
    const base = letterOrder();
    for (const key of ["recipient_name", "recipient_address_type", "recipient_address_manual", "letter"])
      delete base[key];
    const csv = [
      "recipient_name,line1,city,state,zip,gift",
      "Ada Lovelace,1 Main St,Springfield,IL,62701,tea",
      "No Street,,Springfield,IL,62701,",
      "Grace Hopper,2 Oak Ave,Arlington,VA,22201,coffee",
    ].join("\n");
    const paid = await payInProcess(d, {
      ...base,
      bulk: {
        campaign_name: "Thanks",
        content_mode: "text",
        template_text: "Dear {{recipient_name}},\n\nThank you for the {{gift}}.",
        csv_content: csv,
      },
    });
    expect(paid.campaign_url).toMatch(/\/api\/machine\/campaigns\//);
    const campaignPath = new URL(paid.campaign_url as string).pathname;
    const campaign = async () =>
      (await (await d.app.fetch(new Request(`http://127.0.0.1:3000${campaignPath}`))).json()) as {
        pieces: number;
        items: { row_number: number; order_id: string; recipient: string; status: string }[];
      };
    const before = await campaign();
    expect(before.pieces).toBe(2);
    const queued = (await (await d.app.fetch(new Request(paid.status_url as string))).json()) as Json;
    expect(queued).toMatchObject({ status: "queued", terminal: false });
    expect(before.items.map((i) => [i.row_number, i.recipient, i.status])).toEqual([
      [1, "Ada Lovelace", "queued"],
      [3, "Grace Hopper", "queued"],
    ]);
    for (let i = 0; i < 5; i++) {
      await d.cores[0]!.fulfil();
      d.clock.advance(15_000);
    }
    const after = await campaign();
    expect(after.items.map((i) => i.status)).toEqual(["delivered", "delivered"]);
    // The campaign's own status follows its pieces, and it ends when they all have.
    const status = (await (await d.app.fetch(new Request(paid.status_url as string))).json()) as {
      status: string;
      terminal: boolean;
      steps: { step: string }[];
      campaign: { pieces: number; by_status: Record<string, number> };
    };
    expect(status).toMatchObject({ status: "delivered", terminal: true });
    expect(status.steps.map((s) => s.step)).toEqual(["payment_received", "letter_created"]);
    expect(status.campaign).toEqual({ pieces: 2, by_status: { delivered: 2 } });
    expect(new Set(d.submissions)).toEqual(new Set(after.items.map((i) => i.order_id)));
    expect(d.submissions).toHaveLength(2);
    // Each piece is its own letter: the template filled with its row.
    const core = d.cores[0]!;
    const first = (await core.store.get<{ document: { blob_key: string } }>(
      `orders:${after.items[0]!.order_id}`,
    ))!.value;
    const pdf = (await core.blobs.get(first.document.blob_key))!.bytes;
    const text = execFileSync("pdftotext", ["-", "-"], { input: Buffer.from(pdf) }).toString();
    expect(text).toContain("Dear Ada Lovelace,");
    expect(text).toContain("Thank you for the tea.");
    const page = await d.app.fetch(
      new Request(`http://127.0.0.1:3000${campaignPath}`, { headers: { accept: "text/html" } }),
    );
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("Grace Hopper");
    expect(html).toContain("delivered");
  });
});

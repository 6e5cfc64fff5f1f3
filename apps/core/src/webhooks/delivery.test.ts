import type * as Net from "node:net";
import type * as Tls from "node:tls";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runQueue } from "../job-runner.ts";
import { refusal } from "../projects/projects.fixture.ts";
import { principal, statusChange, webhookHarness } from "./webhooks.fixture.ts";
import { createWebhooks } from "./webhooks.ts";

/** Every host dialled, in order; anything but 127.0.0.1 is refused before a packet is sent. */
const dialled = vi.hoisted(() => [] as string[]);

vi.mock("node:tls", async (importOriginal) => {
  const actual = await importOriginal<typeof Tls>();
  const connect = (options: Tls.ConnectionOptions) => {
    dialled.push(String(options.host));
    if (options.host !== "127.0.0.1") throw new Error(`test guard: refused to dial ${options.host}`);
    return actual.connect(options);
  };
  return { ...actual, connect };
});

vi.mock("node:net", async (importOriginal) => {
  const actual = await importOriginal<typeof Net>();
  const connect = (...args: unknown[]) => {
    const options = args[0] as { host?: unknown } | number;
    const host = typeof options === "object" ? String(options.host) : String(args[1]);
    dialled.push(host);
    if (host !== "127.0.0.1") throw new Error(`test guard: refused to dial ${host}`);
    return (actual.connect as (...a: unknown[]) => Net.Socket)(...args);
  };
  return { ...actual, connect, createConnection: connect };
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let h: Awaited<ReturnType<typeof webhookHarness>>;

beforeEach(async () => {
  h = await webhookHarness({ addresses: { "public.example.test": "93.184.216.34" } });
});

afterEach(async () => {
  await h.close();
});

/** An endpoint on the receiver's `path`, whose requests the receiver verifies with its secret. */
async function endpointAt(path: string, statuses?: number[], body: Record<string, unknown> = {}) {
  const created = await h.webhooks.createEndpoint(principal, { url: h.receiver.url(path), ...body });
  h.receiver.route(path, {
    secrets: [created.signing_secret],
    ...(created.public_key ? { publicKey: created.public_key } : {}),
    ...(statuses ? { statuses } : {}),
  });
  return created;
}

const deliveryOf = async (eventId: string, index = 0) =>
  (await h.webhooks.listEvents(principal)).data.find((e) => e.id === eventId)!.deliveries[index]!;

describe("delivery to a local HTTPS receiver", () => {
  it("POSTs the raw JSON body, which the stripe and standardwebhooks packages both verify", async () => {
    const endpoint = await endpointAt("/hooks");
    const event = await h.webhooks.recordOrderStatus(statusChange("o-1", "in_transit"));
    expect(await h.deliver()).toBe(1);

    expect(h.receiver.received).toHaveLength(1);
    const [got] = h.receiver.received;
    expect(got?.checks).toEqual([{ secret: endpoint.signing_secret, stripe: true, standardWebhooks: true }]);
    expect(got?.answered).toBe(200);
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["webhook-id"]).toBe(event?.id);
    expect(got?.headers["service-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(JSON.parse(got!.body)).toEqual({
      id: event?.id,
      type: "service.letter.in_transit",
      created: Math.floor(h.clock.now() / 1000),
      mode: "test",
      data: { object: { id: "o-1", object: "letter", status: "in_transit", metadata: { ref: "A-1" } } },
      mailpiece: { status: "in_transit", tracking_number: "9400100000000000000000", tracking_status: null },
    });

    const delivery = await deliveryOf(event!.id);
    expect(delivery).toMatchObject({
      endpoint_id: endpoint.id,
      kind: "initial",
      status: "delivered",
      next_attempt_at: null,
    });
    expect(delivery.attempts).toEqual([
      {
        at: new Date(h.clock.now()).toISOString(),
        http_status: 200,
        error: null,
        duration_ms: expect.any(Number),
        next_attempt_at: null,
      },
    ]);
    expect(await h.deliver()).toBe(0);
    expect(h.receiver.received).toHaveLength(1);
  });

  it("adds a v1a ed25519 signature that tweetnacl verifies with the endpoint's whpk_ key", async () => {
    const endpoint = await endpointAt("/signed", undefined, { ed25519: true });
    expect(endpoint.ed25519).toBe(true);
    expect(endpoint.public_key).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    await h.webhooks.recordOrderStatus(statusChange("o-2", "delivered"));
    await h.deliver();
    expect(h.receiver.received.map((r) => [r.ed25519, r.checks[0]?.standardWebhooks])).toEqual([
      [true, true],
    ]);
    expect(
      String(h.receiver.received[0]?.headers["webhook-signature"])
        .split(" ")
        .map((s) => s.split(",")[0]),
    ).toEqual(["v1", "v1a"]);
  });

  it("retries a failing receiver after 1 min, 5 min and 30 min, and delivers once when it recovers", async () => {
    // 500, 503, a redirect (never followed), then 200.
    const endpoint = await endpointAt("/flaky", [500, 503, 302, 200]);
    const event = (await h.webhooks.recordOrderStatus(statusChange("o-3", "accepted")))!;
    const t0 = h.clock.now();
    await h.deliver();
    expect(h.receiver.received.map((r) => r.answered)).toEqual([500]);
    expect((await deliveryOf(event.id)).next_attempt_at).toBe(new Date(t0 + MINUTE).toISOString());

    h.advance(MINUTE - 1);
    expect(await h.deliver()).toBe(0);
    h.advance(1);
    await h.deliver();
    h.advance(5 * MINUTE);
    await h.deliver();
    h.advance(30 * MINUTE);
    await h.deliver();
    for (let i = 0; i < 4; i++) {
      h.advance(24 * HOUR);
      await h.deliver();
    }

    expect(h.receiver.received.map((r) => r.answered)).toEqual([500, 503, 302, 200]);
    expect(h.receiver.received.map((r) => r.path)).toEqual(["/flaky", "/flaky", "/flaky", "/flaky"]);
    expect(new Set(h.receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([event.id]));
    expect(new Set(h.receiver.received.map((r) => r.body)).size).toBe(1);
    expect(h.receiver.received.every((r) => r.checks[0]?.stripe && r.checks[0]?.standardWebhooks)).toBe(true);
    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts.map((a) => [a.http_status, a.next_attempt_at])).toEqual([
      [500, new Date(t0 + MINUTE).toISOString()],
      [503, new Date(t0 + 6 * MINUTE).toISOString()],
      [302, new Date(t0 + 36 * MINUTE).toISOString()],
      [200, null],
    ]);
    expect((await h.webhooks.listEndpoints(principal))[0]).toMatchObject({
      id: endpoint.id,
      status: "enabled",
    });
  });

  it("gives up after the schedule's last retry (six by default)", async () => {
    await endpointAt("/down", [500]);
    const event = (await h.webhooks.recordOrderStatus(statusChange("o-4", "failed")))!;
    for (const delay of [0, MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 12 * HOUR, 24 * HOUR, 48 * HOUR]) {
      h.advance(delay);
      await h.deliver();
    }
    expect(h.receiver.received).toHaveLength(7);
    const delivery = await deliveryOf(event.id);
    expect(delivery.status).toBe("failed");
    expect(delivery.next_attempt_at).toBeNull();
    expect(delivery.attempts.at(-1)).toMatchObject({ http_status: 500, next_attempt_at: null });
  });

  it("follows a configured schedule, as WEBHOOK_RETRY_SCHEDULE_MS sets one", async () => {
    const webhooks = createWebhooks({ ...h.deps, options: { retryScheduleMs: [1000, 2000] } });
    const created = await webhooks.createEndpoint(principal, { url: h.receiver.url("/fast") });
    h.receiver.route("/fast", { secrets: [created.signing_secret], statuses: [500] });
    const event = (await webhooks.recordOrderStatus(statusChange("o-5", "canceled")))!;
    const run = () => runQueue(h.jobs, webhooks.deliveryWork, { owner: "t", leaseMs: 60_000 });
    await run();
    h.advance(1000);
    await run();
    h.advance(2000);
    await run();
    h.advance(HOUR);
    await run();
    expect(h.receiver.received).toHaveLength(3);
    expect((await webhooks.listEvents(principal)).data[0]).toMatchObject({
      id: event.id,
      deliveries: [{ status: "failed" }],
    });
  });

  it("records a receiver that does not answer in time as a timeout, and retries it", async () => {
    const webhooks = createWebhooks({ ...h.deps, options: { timeoutMs: 300 } });
    const created = await webhooks.createEndpoint(principal, { url: h.receiver.url("/hang") });
    h.receiver.route("/hang", { secrets: [created.signing_secret], silent: true });
    await webhooks.recordOrderStatus(statusChange("o-6", "delivered"));
    await runQueue(h.jobs, webhooks.deliveryWork, { owner: "t", leaseMs: 60_000 });
    const [delivery] = (await webhooks.eventsOfOrder(principal, "o-6"))[0]!.deliveries;
    expect(delivery?.attempts).toMatchObject([{ http_status: null, error: "timeout" }]);
    expect(delivery?.status).toBe("pending");
  });
});

describe("410, disabled endpoints and replays", () => {
  it("disables the endpoint on 410: the delivery fails, a pending retry is dropped and nothing more is sent", async () => {
    const endpoint = await endpointAt("/gone", [500, 410, 200]);
    const first = (await h.webhooks.recordOrderStatus(statusChange("o-7", "accepted")))!;
    await h.deliver();
    const second = (await h.webhooks.recordOrderStatus(statusChange("o-7", "in_transit")))!;
    await h.deliver();
    expect(h.receiver.received.map((r) => r.answered)).toEqual([500, 410]);
    expect((await h.webhooks.listEndpoints(principal))[0]).toMatchObject({
      id: endpoint.id,
      status: "disabled",
    });
    h.advance(MINUTE);
    await h.deliver();
    const statuses = (await h.webhooks.eventsOfOrder(principal, "o-7")).map((e) => [
      e.id,
      e.deliveries[0]?.status,
    ]);
    expect(statuses).toEqual([
      [first.id, "canceled"],
      [second.id, "failed"],
    ]);
    const third = (await h.webhooks.recordOrderStatus(statusChange("o-7", "delivered")))!;
    expect(third.deliveries).toEqual([]);
    h.advance(48 * HOUR);
    await h.deliver();
    expect(h.receiver.received).toHaveLength(2);
  });

  it("sends nothing to a disabled endpoint, not even a retry that was due", async () => {
    const endpoint = await endpointAt("/retired", [500, 200]);
    const event = (await h.webhooks.recordOrderStatus(statusChange("o-8", "accepted")))!;
    await h.deliver();
    await h.webhooks.disableEndpoint(principal, endpoint.id);
    h.advance(MINUTE);
    await h.deliver();
    expect(h.receiver.received).toHaveLength(1);
    expect((await deliveryOf(event.id)).status).toBe("canceled");
  });

  it("replays an event with the same id: a new delivery that both verifiers accept", async () => {
    await endpointAt("/replayed");
    const event = (await h.webhooks.recordOrderStatus(statusChange("o-9", "delivered")))!;
    await h.deliver();
    h.advance(2 * HOUR);
    const replayed = await h.webhooks.replayEvent(principal, event.id);
    expect(replayed.id).toBe(event.id);
    expect(replayed.deliveries.map((d) => [d.kind, d.status])).toEqual([
      ["initial", "delivered"],
      ["replay", "pending"],
    ]);
    await h.deliver();
    await h.webhooks.replayEvent(principal, event.id);
    await h.deliver();
    expect(h.receiver.received).toHaveLength(3);
    expect(h.receiver.received.map((r) => r.headers["webhook-id"])).toEqual([event.id, event.id, event.id]);
    expect(h.receiver.received.map((r) => JSON.parse(r.body).id)).toEqual([event.id, event.id, event.id]);
    expect(h.receiver.received.every((r) => r.checks[0]?.stripe && r.checks[0]?.standardWebhooks)).toBe(true);
    const final = (await h.webhooks.listEvents(principal)).data[0]!;
    expect(final.deliveries.map((d) => d.status)).toEqual(["delivered", "delivered", "delivered"]);
    expect(new Set(final.deliveries.map((d) => d.id)).size).toBe(3);
  });
});

describe("secret rotation", () => {
  it("signs with the old and the new secret during the overlap, then with the new one only", async () => {
    const endpoint = await endpointAt("/rotating");
    const rotated = await h.webhooks.rotateSecret(principal, endpoint.id);
    expect(rotated.signing_secret).not.toBe(endpoint.signing_secret);
    h.receiver.route("/rotating", { secrets: [endpoint.signing_secret, rotated.signing_secret] });

    await h.webhooks.recordOrderStatus(statusChange("o-10", "accepted"));
    await h.deliver();
    h.advance(24 * HOUR - 1000);
    await h.webhooks.recordOrderStatus(statusChange("o-10", "in_transit"));
    await h.deliver();
    h.advance(1000);
    await h.webhooks.recordOrderStatus(statusChange("o-10", "delivered"));
    await h.deliver();

    const both = { stripe: true, standardWebhooks: true };
    const neither = { stripe: false, standardWebhooks: false };
    expect(h.receiver.received.map((r) => r.checks.map(({ secret: _s, ...check }) => check))).toEqual([
      [both, both],
      [both, both],
      [neither, both],
    ]);
    expect(String(h.receiver.received[0]?.headers["service-signature"]).match(/v1=/g)).toHaveLength(2);
    expect(String(h.receiver.received[2]?.headers["service-signature"]).match(/v1=/g)).toHaveLength(1);
  });
});

describe("once per status change", () => {
  it("creates and delivers an event recorded twice at once, also by two processes, exactly once", async () => {
    await endpointAt("/once");
    const otherProcess = createWebhooks({ ...h.deps });
    const change = statusChange("o-11", "delivered");
    const recorded = await Promise.all([
      h.webhooks.recordOrderStatus(change),
      h.webhooks.recordOrderStatus(change),
      otherProcess.recordOrderStatus({ ...change, at: h.clock.now() + 5 }),
    ]);
    expect(new Set(recorded.map((e) => e?.id)).size).toBe(1);
    await Promise.all([
      h.deliver(),
      runQueue(h.jobs, otherProcess.deliveryWork, { owner: "other", leaseMs: 60_000 }),
    ]);
    h.advance(48 * HOUR);
    await h.deliver();
    expect(h.receiver.received).toHaveLength(1);
    expect((await h.webhooks.listEvents(principal)).data).toHaveLength(1);
    await h.webhooks.recordOrderStatus(change);
    await h.deliver();
    expect(h.receiver.received).toHaveLength(1);
  });
});

describe("receivers at addresses that are not public", () => {
  it("refuses a URL that resolves to a private address when the endpoint is created, before dialling", async () => {
    h.resolver.table.set("intranet.example.test", "10.0.0.5");
    h.resolver.table.set("metadata.example.test", "169.254.169.254");
    const before = dialled.length;
    for (const host of ["intranet.example.test", "metadata.example.test"]) {
      const error = await refusal(h.webhooks.createEndpoint(principal, { url: `https://${host}/hook` }));
      expect(error.code).toBe("validation_failed");
      expect(error.issues).toEqual([
        { path: "url", code: "address_not_public", message: expect.stringContaining(host) },
      ]);
      expect(error.message + JSON.stringify(error.issues)).not.toMatch(/10\.0\.0\.5|169\.254/);
    }
    expect(await h.webhooks.listEndpoints(principal)).toEqual([]);
    expect(dialled.length).toBe(before);
  });

  it("refuses a receiver whose name moved to a private address at delivery time, without dialling it", async () => {
    const endpoint = await h.webhooks.createEndpoint(principal, { url: "https://public.example.test/hook" });
    expect(endpoint.status).toBe("enabled");
    h.resolver.table.set("public.example.test", "10.0.0.5");
    const event = (await h.webhooks.recordOrderStatus(statusChange("o-12", "accepted")))!;
    const before = dialled.length;
    await h.deliver();
    expect(dialled.length).toBe(before);
    const delivery = await deliveryOf(event.id);
    expect(delivery.attempts).toMatchObject([{ http_status: null, error: "address_not_public" }]);
    expect(delivery.status).toBe("pending");
  });

  it("dialled nothing but 127.0.0.1 in this file", () => {
    expect(dialled.every((host) => host === "127.0.0.1")).toBe(true);
  });
});

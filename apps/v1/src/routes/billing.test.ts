import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startV1Server, type V1Server } from "../test-server.fixture.ts";

let server: V1Server;

beforeEach(async () => {
  server = await startV1Server();
});

afterEach(async () => {
  await server.close();
  expect(server.unexpected).toEqual([]);
});

/** A JSON answer, read for the fields a test looks at. */
type Answer = Record<string, unknown> & {
  id: string;
  url: string;
  issues: { path: string }[];
  data: unknown[];
};
const read = async (response: Response) => (await response.json()) as Answer;

/** Completes a setup session's hosted page in-process, as a person paying it would. */
async function complete(url: string, token = "spt_test_ok") {
  const id = new URL(url).pathname.split("/").at(-1)!;
  return server.core.projects.completeSetup(id, { token });
}

describe("POST /api/v1/credits/payment-methods/setup-session", () => {
  it("opens a hosted setup page for the key's mode, with or without a body", async () => {
    const { test_api_key: key } = await server.workspace();
    const bare = await server.call("/credits/payment-methods/setup-session", key, { method: "POST" });
    expect(bare.status).toBe(201);
    const session = await read(bare);
    expect(session).toMatchObject({
      object: "payment_method_setup_session",
      mode: "test",
      status: "open",
      simulated: true,
      enables_live: false,
      payment_method: null,
    });
    expect(session.url).toBe(`${server.base}/checkout/setup/${session.id}`);
    expect(session).not.toHaveProperty("url_path");
    const live = await server.post("/credits/payment-methods/setup-session", key, { mode: "live" });
    expect(live.status).toBe(201);
    expect(await live.json()).toMatchObject({ mode: "live", enables_live: true });
  });

  it("refuses a bad mode or an unknown field with its path, and a body that is not JSON", async () => {
    const { test_api_key: key } = await server.workspace();
    const bad = await server.post("/credits/payment-methods/setup-session", key, { mode: "prod", x: 1 });
    expect(bad.status).toBe(422);
    const body = await read(bad);
    expect(body.error).toBe("validation_failed");
    expect(body.issues.map((i: { path: string }) => i.path).sort()).toEqual(["mode", "x"]);
    const text = await server.call("/credits/payment-methods/setup-session", key, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "live",
    });
    expect(text.status).toBe(415);
  });

  it("a completed live setup live-enables the workspace: the first live key works on the API", async () => {
    const { test_api_key: key } = await server.workspace();
    const session = await read(
      await server.post("/credits/payment-methods/setup-session", key, { mode: "live" }),
    );
    const outcome = await complete(session.url);
    const live = outcome.live_api_key!.api_key;
    const balance = await server.call("/credits/balance", live);
    expect(balance.status).toBe(200);
    expect(await balance.json()).toMatchObject({
      mode: "live",
      billing_rail: "prepaid_credits",
      status: "active",
    });
    const methods = await (await server.call("/credits/payment-methods", live)).json();
    expect(methods).toEqual({
      object: "list",
      has_more: false,
      data: [
        expect.objectContaining({
          object: "payment_method",
          mode: "live",
          brand: "visa",
          last4: "4242",
          default: true,
        }),
      ],
    });
    // The test mode's cards are its own.
    expect((await read(await server.call("/credits/payment-methods", key))).data).toEqual([]);
    const keys = await (await server.call("/api-keys", live)).json();
    expect(JSON.stringify(keys)).not.toContain(live);
  });
});

describe("/api/v1/credits/auto-refill", () => {
  it("needs a saved card, checks its bounds, and shows the policy in the balance once set", async () => {
    const { test_api_key: key } = await server.workspace();
    const none = await server.call("/credits/auto-refill", key);
    expect(await none.json()).toMatchObject({
      object: "auto_refill",
      mode: "test",
      enabled: false,
      status: "not_configured",
      threshold_cents: null,
    });
    const policy = { threshold_cents: 1_000, refill_amount_cents: 2_000 };
    const noCard = await server.post("/credits/auto-refill", key, policy);
    expect(noCard.status).toBe(409);
    expect((await read(noCard)).error).toBe("payment_method_required");

    const session = await read(
      await server.call("/credits/payment-methods/setup-session", key, { method: "POST" }),
    );
    await complete(session.url);
    const outOfBounds = await server.post("/credits/auto-refill", key, {
      threshold_cents: 50,
      refill_amount_cents: 100_001,
    });
    expect(outOfBounds.status).toBe(422);
    expect((await read(outOfBounds)).issues.map((i: { path: string }) => i.path)).toEqual([
      "threshold_cents",
      "refill_amount_cents",
    ]);
    const liveFromTest = await server.post("/credits/auto-refill", key, { ...policy, mode: "live" });
    expect(liveFromTest.status).toBe(403);
    expect((await read(liveFromTest)).error).toBe("forbidden");

    const set = await server.post("/credits/auto-refill", key, policy);
    expect(set.status).toBe(200);
    const view = await set.json();
    expect(view).toMatchObject({ enabled: true, status: "active", ...policy, currency: "usd" });
    expect(await (await server.call("/credits/auto-refill", key)).json()).toEqual(view);
    const balance = await read(await server.call("/credits/balance", key));
    expect(balance.auto_refill).toEqual([view]);
  });

  it("answers 401 without a key and 403 for a key that may only read", async () => {
    const { test_api_key: key } = await server.workspace();
    expect((await server.call("/credits/auto-refill", undefined)).status).toBe(401);
    expect((await server.call("/credits/payment-methods", undefined)).status).toBe(401);
    const reader = await server.keyWith(key, "test", ["letters:read"]);
    expect((await server.call("/credits/payment-methods", reader)).status).toBe(200);
    const refused = await server.post("/credits/auto-refill", reader, {
      threshold_cents: 500,
      refill_amount_cents: 500,
    });
    expect(refused.status).toBe(403);
    expect((await read(refused)).error).toBe("permission_denied");
    const setup = await server.call("/credits/payment-methods/setup-session", reader, { method: "POST" });
    expect(setup.status).toBe(403);
  });
});

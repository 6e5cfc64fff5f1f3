import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startV1Server, TEST_CREDITS_CENTS, type V1Server } from "../test-server.fixture.ts";

let server: V1Server;

beforeEach(async () => {
  server = await startV1Server();
});

afterEach(async () => {
  await server.close();
  expect(server.unexpected).toEqual([]);
});

describe("GET /api/v1/credits/balance", () => {
  it("shows a new workspace's test credits in the key's mode, with both modes' snapshots", async () => {
    const { test_api_key: key } = await server.workspace();
    const response = await server.call("/credits/balance", key);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      object: "credit_balance",
      mode: "test",
      currency: "usd",
      billing_rail: "mock_test_credits",
      available_cents: TEST_CREDITS_CENTS,
      reserved_cents: 0,
      status: "active",
      test: {
        billing_rail: "mock_test_credits",
        available_cents: TEST_CREDITS_CENTS,
        reserved_cents: 0,
        status: "active",
      },
      live: {
        billing_rail: "prepaid_credits",
        available_cents: 0,
        reserved_cents: 0,
        status: "setup_required",
      },
      auto_refill: [],
    });
  });
});

describe("GET /api/v1/credits/ledger", () => {
  it("lists the test credits of a new workspace as a top-up", async () => {
    const { test_api_key: key } = await server.workspace();
    for (const query of ["", "?limit=1", "?limit=100", "?cursor="]) {
      const response = await server.call(`/credits/ledger${query}`, key);
      expect(response.status, query).toBe(200);
      expect(await response.json()).toEqual({
        object: "list",
        data: [
          expect.objectContaining({
            object: "credit_ledger_entry",
            mode: "test",
            type: "top_up",
            amount_cents: TEST_CREDITS_CENTS,
            available_delta_cents: TEST_CREDITS_CENTS,
            reserved_delta_cents: 0,
          }),
        ],
        has_more: false,
        next_cursor: null,
      });
    }
  });

  it("answers 400 invalid_query naming the parameter for a limit out of 1..100 or a foreign cursor", async () => {
    const { test_api_key: key } = await server.workspace();
    for (const query of [
      "limit=0",
      "limit=101",
      "limit=-1",
      "limit=abc",
      "limit=1.5",
      "limit=",
      "limit=1&limit=2",
    ]) {
      const response = await server.call(`/credits/ledger?${query}`, key);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = (await response.json()) as { error: string; issues: { path: string }[] };
      expect(body.error).toBe("invalid_query");
      expect(body.issues.map((issue) => issue.path)).toEqual(["limit"]);
    }
    for (const query of ["cursor=nope", `cursor=${"c".repeat(600)}`]) {
      const response = await server.call(`/credits/ledger?${query}`, key);
      expect(response.status, query).toBe(400);
      const body = (await response.json()) as { error: string; issues: { path: string }[] };
      expect(body).toMatchObject({ error: "invalid_query", issues: [{ path: "cursor" }] });
    }
    // Another workspace's cursor is not one of this ledger's.
    const { test_api_key: other } = await server.workspace("Other");
    const theirs = (await (await server.call("/credits/ledger", other)).json()) as { data: { id: string }[] };
    const foreign = await server.call(
      `/credits/ledger?cursor=${encodeURIComponent(theirs.data[0]!.id)}`,
      key,
    );
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({ error: "invalid_query", issues: [{ path: "cursor" }] });
  });
});

describe("POST /api/v1/credits/checkout-session", () => {
  it("answers a hosted top-up page for the key's mode, and refuses amounts outside 100 to 100000 cents", async () => {
    const { test_api_key: key } = await server.workspace();
    const created = await server.post("/credits/checkout-session", key, { amount_cents: 2_500 });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; url: string; status: string; mode: string };
    expect(session).toMatchObject({ status: "open", mode: "test", amount_cents: 2_500 });
    expect(session.url).toBe(`${server.base}/checkout/top-up/${session.id}`);
    for (const amount_cents of [99, 100_001, "2500"]) {
      const refused = await server.post("/credits/checkout-session", key, { amount_cents });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { issues: { path: string }[] }).issues[0]!.path).toBe("amount_cents");
    }
  });
});

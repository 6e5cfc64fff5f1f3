import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { claimDraft, claimReplay, claimRequest, peekRequest } from "./claims.ts";
import { fingerprintBytes } from "./fingerprint.ts";

const RID = "6f1c2c3e-1d5b-4b7e-9b6a-2f1f0c9e8d7a";

describe("claimRequest", () => {
  it("binds a request_id once; the same body replays, another body conflicts", async () => {
    const store = createMemoryStore();
    const a = fingerprintBytes('{"a":1}');
    const first = await claimRequest(store, { request_id: RID, fingerprint: a, order_id: "o1", now: 1 });
    expect(first.kind).toBe("claimed");
    const again = await claimRequest(store, { request_id: RID, fingerprint: a, order_id: "o2", now: 2 });
    expect(again).toEqual({
      kind: "replay",
      claim: expect.objectContaining({ order_id: "o1", claimed_at: 1 }),
    });
    const other = await claimRequest(store, {
      request_id: RID,
      fingerprint: fingerprintBytes('{"a":2}'),
      order_id: "o3",
      now: 3,
    });
    expect(other.kind).toBe("conflict");
    expect(other.claim.order_id).toBe("o1");
  });

  it("has exactly one winner among concurrent identical requests", async () => {
    const store = createMemoryStore();
    const fp = fingerprintBytes("body");
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        claimRequest(store, { request_id: RID, fingerprint: fp, order_id: `o${i}`, now: i }),
      ),
    );
    const winners = outcomes.filter((o) => o.kind === "claimed");
    expect(winners).toHaveLength(1);
    const orderIds = new Set(outcomes.map((o) => o.claim.order_id));
    expect(orderIds).toEqual(new Set([winners[0]!.claim.order_id]));
  });

  it("peeks without claiming", async () => {
    const store = createMemoryStore();
    const fp = fingerprintBytes("x");
    expect(await peekRequest(store, RID, fp)).toBeUndefined();
    await claimRequest(store, { request_id: RID, fingerprint: fp, order_id: "o1", now: 1 });
    expect((await peekRequest(store, RID, fp))?.kind).toBe("replay");
    expect((await peekRequest(store, RID, fingerprintBytes("y")))?.kind).toBe("conflict");
  });
});

describe("claimReplay", () => {
  it("lets one credential pay for one order only, under concurrency", async () => {
    const store = createMemoryStore();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        claimReplay(store, { replay_key: "x402:eip155:84532:0xabc:0xdef:0x01", order_id: `o${i}`, now: i }),
      ),
    );
    expect(outcomes.filter((o) => o.kind === "claimed")).toHaveLength(1);
    const winner = outcomes.find((o) => o.kind === "claimed")!.claim.order_id;
    for (const o of outcomes) expect(o.claim.order_id).toBe(winner);
  });
});

describe("claimDraft", () => {
  it("collapses a duplicate draft onto the first order", async () => {
    const store = createMemoryStore();
    const first = await claimDraft(store, {
      draft_key: "k",
      order_id: "o1",
      request_id: "r1",
      now: 1,
      ttlMs: 1000,
    });
    expect(first.kind).toBe("claimed");
    const second = await claimDraft(store, {
      draft_key: "k",
      order_id: "o2",
      request_id: "r2",
      now: 2,
      ttlMs: 1000,
    });
    expect(second).toEqual({
      kind: "duplicate",
      claim: expect.objectContaining({ order_id: "o1", request_id: "r1" }),
    });
  });
});

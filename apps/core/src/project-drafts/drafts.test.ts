import { describe, expect, it } from "vitest";
import { CoreError } from "../errors.ts";
import { refusal } from "../projects/projects.fixture.ts";
import { fakeDrafts, KEYS, principalOf } from "./drafts.fixture.ts";

const issuesOf = async (promise: Promise<unknown>) => {
  const error = await refusal(promise);
  expect(error.code).toBe("validation_failed");
  return error.issues.map(({ path, code }) => ({ path, code }));
};

const codeOf = async (promise: Promise<unknown>) => (await refusal(promise)).code;

describe("saving and reading drafts", () => {
  it("saves revision 1 without sending, reads it back, and keeps it to its workspace and mode", async () => {
    const { drafts, fake } = fakeDrafts();
    const saved = await drafts.create(KEYS.liveNeedsApproval, { type: "letter", amount: 250, note: "rent" });
    expect(saved).toMatchObject({
      object: "draft",
      type: "letter",
      mode: "live",
      state: "draft",
      current_revision: 1,
      revision: {
        revision: 1,
        reason: "created",
        body: { type: "letter", amount: 250, note: "rent" },
        price_cents: 250,
      },
      revisions: [{ revision: 1, reason: "created", price_cents: 250 }],
      approval: null,
      order_id: null,
    });
    expect(saved.id).toMatch(/^drf_[0-9a-f]{44}$/);
    expect(fake.calls).toEqual([]);
    expect(await drafts.get(KEYS.liveTrusted, saved.id)).toEqual(saved);
    expect(await codeOf(drafts.get(KEYS.test, saved.id))).toBe("not_found");
    const otherWorkspace = principalOf("live", KEYS.liveTrusted.permissions, `ws_${"b".repeat(32)}`);
    expect(await codeOf(drafts.get(otherWorkspace, saved.id))).toBe("not_found");
    expect(await codeOf(drafts.get(KEYS.liveTrusted, "drf_nope"))).toBe("not_found");
    expect(await codeOf(drafts.discard(otherWorkspace, saved.id))).toBe("not_found");
  });

  it("refuses a bad draft with every issue at its field, and saves nothing", async () => {
    const { drafts } = fakeDrafts();
    expect(await issuesOf(drafts.create(KEYS.test, []))).toEqual([{ path: "", code: "invalid_type" }]);
    expect(await issuesOf(drafts.create(KEYS.test, { amount: 1 }))).toEqual([
      { path: "type", code: "required" },
    ]);
    expect(await issuesOf(drafts.create(KEYS.test, { type: "fax", amount: 1 }))).toEqual([
      { path: "type", code: "unsupported_type" },
    ]);
    expect(await issuesOf(drafts.create(KEYS.test, { type: "letter", amount: 0, extra: 1 }))).toEqual([
      { path: "amount", code: "invalid_amount" },
      { path: "extra", code: "unknown_field" },
    ]);
    // A known type this deployment does not offer yet is refused at `type`, naming the types it accepts.
    const template = await refusal(drafts.create(KEYS.test, { type: "template", amount: 1 }));
    expect(template.issues).toEqual([
      expect.objectContaining({
        path: "type",
        code: "unsupported_type",
        message: expect.stringContaining("letter"),
      }),
    ]);
    expect((await drafts.list(KEYS.test, {})).data).toEqual([]);
  });

  it("offers a type registered later, with one call", async () => {
    const { drafts, types, fake } = fakeDrafts();
    expect(types.names()).toEqual(["letter"]);
    types.register("template", fake.type);
    expect(types.names()).toEqual(["letter", "template"]);
    const saved = await drafts.create(KEYS.test, { type: "template", amount: 3 });
    expect(saved).toMatchObject({ type: "template", state: "draft" });
    const refused = await refusal(drafts.create(KEYS.test, { type: "handwritten", amount: 1 }));
    expect(refused.issues[0]?.message).toContain("letter, template");
  });

  it("lists oldest first, a page at a time, by state, and refuses a bad query", async () => {
    const { drafts, advance } = fakeDrafts();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push((await drafts.create(KEYS.test, { type: "letter", amount: i })).id);
      advance(1000);
    }
    await drafts.discard(KEYS.test, ids[1]!);
    const first = await drafts.list(KEYS.test, { limit: 2 });
    expect(first.data.map((d) => d.id)).toEqual(ids.slice(0, 2));
    expect(first.has_more).toBe(true);
    const second = await drafts.list(KEYS.test, { limit: 2, cursor: first.next_cursor! });
    expect(second.data.map((d) => d.id)).toEqual(ids.slice(2, 4));
    const last = await drafts.list(KEYS.test, { limit: 2, cursor: second.next_cursor! });
    expect(last).toMatchObject({ has_more: false, next_cursor: null });
    expect(last.data.map((d) => d.id)).toEqual([ids[4]]);
    const kept = await drafts.list(KEYS.test, { state: "draft" });
    expect(kept.data.map((d) => d.id)).toEqual([ids[0], ids[2], ids[3], ids[4]]);
    expect((await drafts.list(KEYS.test, { state: "discarded" })).data.map((d) => d.id)).toEqual([ids[1]]);
    expect((await drafts.list(KEYS.liveTrusted, {})).data).toEqual([]);
    const badState = await refusal(drafts.list(KEYS.test, { state: "sent" }));
    expect(badState).toMatchObject({
      code: "invalid_query",
      issues: [expect.objectContaining({ path: "state" })],
    });
    const badLimit = await refusal(drafts.list(KEYS.test, { limit: 101 }));
    expect(badLimit).toMatchObject({
      code: "invalid_query",
      issues: [expect.objectContaining({ path: "limit" })],
    });
  });

  it("checks the key: reading needs read, saving needs the mode's send permission with or without approval", async () => {
    const { drafts } = fakeDrafts();
    expect(await codeOf(drafts.create(KEYS.readOnly, { type: "letter", amount: 1 }))).toBe(
      "permission_denied",
    );
    const saved = await drafts.create(KEYS.liveNeedsApproval, { type: "letter", amount: 1 });
    await expect(drafts.get(KEYS.readOnly, saved.id)).resolves.toMatchObject({ id: saved.id });
    await expect(drafts.list(KEYS.readOnly, {})).resolves.toMatchObject({ data: [{ id: saved.id }] });
    await expect(drafts.approval(KEYS.readOnly, saved.id)).resolves.toMatchObject({ state: "none" });
    for (const act of [
      () => drafts.edit(KEYS.readOnly, saved.id, { amount: 2 }),
      () => drafts.refresh(KEYS.readOnly, saved.id),
      () => drafts.requestApproval(KEYS.readOnly, saved.id),
      () => drafts.withdraw(KEYS.readOnly, saved.id),
      () => drafts.discard(KEYS.readOnly, saved.id),
      () => drafts.release(KEYS.readOnly, saved.id),
    ]) {
      expect(await codeOf(act())).toBe("permission_denied");
    }
    const writeOnly = principalOf("live", ["letters:write"]);
    expect(await codeOf(drafts.get(writeOnly, saved.id))).toBe("permission_denied");
    // A test key that may not send test mail may not prepare it either.
    expect(
      await codeOf(drafts.create(principalOf("test", ["letters:read"]), { type: "letter", amount: 1 })),
    ).toBe("permission_denied");
  });
});

describe("revisions", () => {
  it("makes an immutable revision per PATCH: fields replace, null removes, the earlier ones stay readable", async () => {
    const { drafts } = fakeDrafts();
    const saved = await drafts.create(KEYS.test, { type: "letter", amount: 100, note: "first" });
    const edited = await drafts.edit(KEYS.test, saved.id, { amount: 120 });
    expect(edited).toMatchObject({
      current_revision: 2,
      revision: {
        revision: 2,
        reason: "edited",
        body: { type: "letter", amount: 120, note: "first" },
        price_cents: 120,
      },
    });
    const again = await drafts.edit(KEYS.test, saved.id, { type: "letter", note: null });
    expect(again.revision.body).toEqual({ type: "letter", amount: 120 });
    expect(again.revisions.map((r) => [r.revision, r.reason, r.price_cents])).toEqual([
      [1, "created", 100],
      [2, "edited", 120],
      [3, "edited", 120],
    ]);
    expect((await drafts.get(KEYS.test, saved.id, 1)).revision).toMatchObject({
      revision: 1,
      body: { type: "letter", amount: 100, note: "first" },
    });
    expect((await drafts.get(KEYS.test, saved.id, 2)).revision.body).toEqual({
      type: "letter",
      amount: 120,
      note: "first",
    });
    expect(await codeOf(drafts.get(KEYS.test, saved.id, 4))).toBe("not_found");
    expect(await codeOf(drafts.get(KEYS.test, saved.id, 0))).toBe("not_found");
  });

  it("refuses a bad PATCH with its issues and keeps the current revision", async () => {
    const { drafts } = fakeDrafts();
    const saved = await drafts.create(KEYS.test, { type: "letter", amount: 100 });
    expect(await issuesOf(drafts.edit(KEYS.test, saved.id, {}))).toEqual([{ path: "", code: "empty_patch" }]);
    expect(await issuesOf(drafts.edit(KEYS.test, saved.id, "x"))).toEqual([
      { path: "", code: "invalid_type" },
    ]);
    expect(await issuesOf(drafts.edit(KEYS.test, saved.id, { type: "postcard" }))).toEqual([
      { path: "type", code: "type_immutable" },
    ]);
    expect(await issuesOf(drafts.edit(KEYS.test, saved.id, { amount: -1 }))).toEqual([
      { path: "amount", code: "invalid_amount" },
    ]);
    expect(await issuesOf(drafts.edit(KEYS.test, saved.id, { amount: null }))).toEqual([
      { path: "amount", code: "invalid_amount" },
    ]);
    expect(await drafts.get(KEYS.test, saved.id)).toEqual(saved);
  });

  it("keeps concurrent PATCHes apart: each makes its own revision", async () => {
    const { drafts } = fakeDrafts();
    const saved = await drafts.create(KEYS.test, { type: "letter", amount: 1 });
    await Promise.all([2, 3, 4, 5].map((amount) => drafts.edit(KEYS.test, saved.id, { amount })));
    const read = await drafts.get(KEYS.test, saved.id);
    expect(read.current_revision).toBe(5);
    const amounts = await Promise.all(
      [2, 3, 4, 5].map(async (n) => (await drafts.get(KEYS.test, saved.id, n)).revision.body.amount),
    );
    expect([...amounts].sort()).toEqual([2, 3, 4, 5]);
    expect(read.revision.body.amount).toBe(amounts.at(-1));
  });
});

describe("the approval workflow", () => {
  it("requests, withdraws, requests again; a person approves; a new revision clears the approval", async () => {
    const { drafts, fake } = fakeDrafts();
    const key = KEYS.liveNeedsApproval;
    const saved = await drafts.create(key, { type: "letter", amount: 500 });
    const requested = await drafts.requestApproval(key, saved.id);
    expect(requested).toMatchObject({
      state: "approval_requested",
      approval: { state: "pending", revision: 1 },
    });
    // Asking again while it waits changes nothing.
    expect(await drafts.requestApproval(key, saved.id)).toEqual(requested);
    expect(await drafts.withdraw(key, saved.id)).toMatchObject({ state: "draft", approval: null });
    expect(await codeOf(drafts.withdraw(key, saved.id))).toBe("state_conflict");
    expect(
      await codeOf(drafts.decide(key.workspace_id, saved.id, "approve", { body: {}, via: "admin_api" })),
    ).toBe("state_conflict");
    await drafts.requestApproval(key, saved.id);
    const approved = await drafts.decide(key.workspace_id, saved.id, "approve", {
      body: { note: " ok " },
      via: "dashboard",
    });
    expect(approved).toMatchObject({ state: "approved", revision: 1, price_cents: 500 });
    expect(await drafts.get(key, saved.id)).toMatchObject({
      state: "approved",
      approval: { state: "approved", revision: 1, note: "ok" },
    });
    // The same decision again changes nothing; the opposite one is refused.
    expect(
      await drafts.decide(key.workspace_id, saved.id, "approve", { body: {}, via: "admin_api" }),
    ).toEqual(approved);
    expect(
      await codeOf(drafts.decide(key.workspace_id, saved.id, "reject", { body: {}, via: "admin_api" })),
    ).toBe("state_conflict");
    expect(await codeOf(drafts.requestApproval(key, saved.id))).toBe("state_conflict");
    expect(fake.calls).toEqual([]);

    // A new revision: the draft is a draft again, and this key cannot release it.
    expect(await drafts.edit(key, saved.id, { amount: 501 })).toMatchObject({
      state: "draft",
      approval: null,
    });
    expect(await drafts.approval(key, saved.id)).toMatchObject({ state: "none", revision: 2 });
    const refused = await refusal(drafts.release(key, saved.id));
    expect(refused.code).toBe("state_conflict");
    expect(refused.message).toContain("approval");
    expect(fake.calls).toEqual([]);
  });

  it("rejects: a rejected revision is never released nor asked again; a new revision starts over", async () => {
    const { drafts, fake } = fakeDrafts();
    const saved = await drafts.create(KEYS.liveTrusted, { type: "letter", amount: 9 });
    await drafts.requestApproval(KEYS.liveTrusted, saved.id);
    const rejected = await drafts.decide(KEYS.liveTrusted.workspace_id, saved.id, "reject", {
      body: { note: "too expensive" },
      via: "admin_api",
    });
    expect(rejected).toMatchObject({ state: "rejected", revision: 1 });
    expect(await codeOf(drafts.release(KEYS.liveTrusted, saved.id))).toBe("state_conflict");
    expect(await codeOf(drafts.requestApproval(KEYS.liveTrusted, saved.id))).toBe("state_conflict");
    expect(await codeOf(drafts.withdraw(KEYS.liveTrusted, saved.id))).toBe("state_conflict");
    expect(
      await codeOf(
        drafts.decide(KEYS.liveTrusted.workspace_id, saved.id, "approve", { body: {}, via: "admin_api" }),
      ),
    ).toBe("state_conflict");
    expect(fake.calls).toEqual([]);
    expect(await drafts.edit(KEYS.liveTrusted, saved.id, { amount: 8 })).toMatchObject({
      state: "draft",
      approval: null,
    });
    await expect(drafts.requestApproval(KEYS.liveTrusted, saved.id)).resolves.toMatchObject({
      state: "approval_requested",
      approval: { revision: 2 },
    });
  });

  it("decides only the revision the person saw, and refuses a bad revision or note", async () => {
    const { drafts } = fakeDrafts();
    const saved = await drafts.create(KEYS.liveNeedsApproval, { type: "letter", amount: 9 });
    await drafts.edit(KEYS.liveNeedsApproval, saved.id, { amount: 10 });
    await drafts.requestApproval(KEYS.liveNeedsApproval, saved.id);
    const ws = KEYS.liveNeedsApproval.workspace_id;
    expect(
      await codeOf(drafts.decide(ws, saved.id, "approve", { body: { revision: 1 }, via: "admin_api" })),
    ).toBe("state_conflict");
    expect(
      await issuesOf(drafts.decide(ws, saved.id, "approve", { body: { revision: "2" }, via: "admin_api" })),
    ).toEqual([{ path: "revision", code: "invalid_revision" }]);
    expect(
      await issuesOf(
        drafts.decide(ws, saved.id, "reject", {
          body: { note: "x".repeat(501), revision: 0 },
          via: "admin_api",
        }),
      ),
    ).toEqual([
      { path: "revision", code: "invalid_revision" },
      { path: "note", code: "invalid_note" },
    ]);
    expect(
      await codeOf(
        drafts.decide(`ws_${"b".repeat(32)}`, saved.id, "approve", { body: {}, via: "admin_api" }),
      ),
    ).toBe("not_found");
    expect((await drafts.get(KEYS.liveNeedsApproval, saved.id)).state).toBe("approval_requested");
    await expect(
      drafts.decide(ws, saved.id, "approve", { body: { revision: 2 }, via: "admin_api" }),
    ).resolves.toMatchObject({
      state: "approved",
      revision: 2,
    });
  });

  it("discards any unsent draft for good, closing a pending request", async () => {
    const { drafts, fake } = fakeDrafts();
    const key = KEYS.liveNeedsApproval;
    const states = {
      draft: await drafts.create(key, { type: "letter", amount: 1 }),
      requested: await drafts.create(key, { type: "letter", amount: 2 }),
      approved: await drafts.create(key, { type: "letter", amount: 3 }),
      rejected: await drafts.create(key, { type: "letter", amount: 4 }),
    };
    for (const d of [states.requested, states.approved, states.rejected])
      await drafts.requestApproval(key, d.id);
    await drafts.decide(key.workspace_id, states.approved.id, "approve", { body: {}, via: "admin_api" });
    await drafts.decide(key.workspace_id, states.rejected.id, "reject", { body: {}, via: "admin_api" });
    for (const d of Object.values(states)) {
      const discarded = await drafts.discard(key, d.id);
      expect(discarded.state).toBe("discarded");
      expect(discarded.discarded_at).not.toBeNull();
      expect(await drafts.discard(key, d.id)).toEqual(discarded);
      for (const act of [
        () => drafts.edit(key, d.id, { amount: 7 }),
        () => drafts.refresh(key, d.id),
        () => drafts.requestApproval(key, d.id),
        () => drafts.withdraw(key, d.id),
        () => drafts.release(KEYS.liveTrusted, d.id),
        () => drafts.decide(key.workspace_id, d.id, "approve", { body: {}, via: "admin_api" }),
      ]) {
        expect(await codeOf(act())).toBe("state_conflict");
      }
    }
    expect((await drafts.get(key, states.requested.id)).approval).toBeNull();
    expect((await drafts.approvals(key, {})).data).toEqual([]);
    expect(fake.calls).toEqual([]);
  });

  it("refreshes: a new quote at the same price keeps the approval; a changed price asks for it again", async () => {
    const { drafts, fake } = fakeDrafts();
    const key = KEYS.liveNeedsApproval;
    const saved = await drafts.create(key, { type: "letter", amount: 700 });
    await drafts.requestApproval(key, saved.id);
    await drafts.decide(key.workspace_id, saved.id, "approve", { body: {}, via: "admin_api" });
    const same = await drafts.refresh(key, saved.id);
    expect(same).toMatchObject({
      state: "approved",
      current_revision: 2,
      revision: { reason: "refreshed", quote_id: "q1", price_cents: 700, body: { quote: 1 } },
      approval: { state: "approved", revision: 2 },
    });
    fake.state.surcharge = 50;
    const changed = await drafts.refresh(key, saved.id);
    expect(changed).toMatchObject({
      state: "draft",
      current_revision: 3,
      revision: { quote_id: "q2", price_cents: 750 },
      approval: null,
    });
    expect(await codeOf(drafts.release(key, saved.id))).toBe("state_conflict");
    // A pending request at the same price stays pending for the new revision.
    await drafts.requestApproval(key, saved.id);
    expect(await drafts.refresh(key, saved.id)).toMatchObject({
      state: "approval_requested",
      approval: { state: "pending", revision: 4 },
    });
    expect(fake.calls).toEqual([]);
  });
});

describe("release", () => {
  it("sends the approved revision once; every retry answers the same order", async () => {
    const { drafts, fake } = fakeDrafts();
    const key = KEYS.liveNeedsApproval;
    const saved = await drafts.create(key, { type: "letter", amount: 42 });
    expect(await codeOf(drafts.release(key, saved.id))).toBe("state_conflict");
    await drafts.requestApproval(key, saved.id);
    expect(await codeOf(drafts.release(key, saved.id))).toBe("state_conflict");
    await drafts.decide(key.workspace_id, saved.id, "approve", { body: {}, via: "admin_api" });
    const first = await drafts.release(key, saved.id);
    expect(first).toEqual({ id: "order_1", idempotent_replay: false });
    const again = await drafts.release(key, saved.id);
    expect(again).toEqual({ id: "order_1", idempotent_replay: true });
    expect(fake.sent.size).toBe(1);
    expect(new Set(fake.calls)).toEqual(new Set([`draft:${saved.id}:r1`]));
    expect(await drafts.get(key, saved.id)).toMatchObject({
      state: "released",
      order_id: "order_1",
      released_revision: 1,
      approval: { state: "approved" },
    });
    for (const act of [
      () => drafts.edit(key, saved.id, { amount: 1 }),
      () => drafts.refresh(key, saved.id),
      () => drafts.discard(key, saved.id),
      () => drafts.requestApproval(key, saved.id),
    ]) {
      expect(await codeOf(act())).toBe("state_conflict");
    }
  });

  it("lets a key with submit_without_approval and any test key release without approval", async () => {
    const { drafts, fake } = fakeDrafts();
    const trusted = await drafts.create(KEYS.liveTrusted, { type: "letter", amount: 1 });
    await drafts.requestApproval(KEYS.liveTrusted, trusted.id);
    await expect(drafts.release(KEYS.liveTrusted, trusted.id)).resolves.toMatchObject({
      idempotent_replay: false,
    });
    // The pending request is closed by the release.
    expect(await drafts.get(KEYS.liveTrusted, trusted.id)).toMatchObject({
      state: "released",
      approval: null,
    });
    const test = await drafts.create(KEYS.test, { type: "letter", amount: 1 });
    await expect(drafts.release(KEYS.test, test.id)).resolves.toMatchObject({ idempotent_replay: false });
    expect(fake.sent.size).toBe(2);
  });

  it("sends once under concurrent releases", async () => {
    const { drafts, fake } = fakeDrafts();
    const saved = await drafts.create(KEYS.test, { type: "letter", amount: 5 });
    const orders = await Promise.all(Array.from({ length: 8 }, () => drafts.release(KEYS.test, saved.id)));
    expect(new Set(orders.map((o) => o.id))).toEqual(new Set(["order_1"]));
    expect(orders.filter((o) => !o.idempotent_replay)).toHaveLength(1);
    expect(fake.sent.size).toBe(1);
  });

  it("gives a refused send back: the draft is as it was and can be released later", async () => {
    const { drafts, fake } = fakeDrafts();
    const key = KEYS.liveNeedsApproval;
    const saved = await drafts.create(key, { type: "letter", amount: 5 });
    await drafts.requestApproval(key, saved.id);
    await drafts.decide(key.workspace_id, saved.id, "approve", { body: {}, via: "admin_api" });
    fake.state.refuse = new CoreError("insufficient_credits", "no credits");
    expect(await codeOf(drafts.release(key, saved.id))).toBe("insufficient_credits");
    expect(await drafts.get(key, saved.id)).toMatchObject({ state: "approved", order_id: null });
    fake.state.refuse = undefined;
    await expect(drafts.release(key, saved.id)).resolves.toEqual({ id: "order_1", idempotent_replay: false });
  });

  it("finishes a release whose process stopped after the claim, with the claimed revision's key", async () => {
    const { drafts, fake } = fakeDrafts();
    const saved = await drafts.create(KEYS.test, { type: "letter", amount: 5 });
    // The send fails unexpectedly (a lost connection, a killed process): the claim stays.
    fake.state.refuse = new Error("connection reset");
    await expect(drafts.release(KEYS.test, saved.id)).rejects.toThrow("connection reset");
    expect((await drafts.get(KEYS.test, saved.id)).state).toBe("releasing");
    expect(await codeOf(drafts.edit(KEYS.test, saved.id, { amount: 6 }))).toBe("state_conflict");
    expect(await codeOf(drafts.discard(KEYS.test, saved.id))).toBe("state_conflict");
    fake.state.refuse = undefined;
    await expect(drafts.release(KEYS.test, saved.id)).resolves.toEqual({
      id: "order_1",
      idempotent_replay: false,
    });
    expect(fake.calls).toEqual([`draft:${saved.id}:r1`, `draft:${saved.id}:r1`]);
    expect((await drafts.get(KEYS.test, saved.id)).state).toBe("released");
  });
});

describe("approval summaries", () => {
  it("list the drafts with a request, by state, with expense fields only", async () => {
    const { drafts, advance } = fakeDrafts();
    const key = KEYS.liveNeedsApproval;
    const save = async (amount: number, note: string) => {
      advance(1000);
      return drafts.create(key, { type: "letter", amount, note });
    };
    const plain = await save(1, "Grace at 350 Fifth Avenue");
    const pending = await save(2, "secret");
    const approved = await save(3, "secret");
    await drafts.requestApproval(key, pending.id);
    await drafts.requestApproval(key, approved.id);
    await drafts.decide(key.workspace_id, approved.id, "approve", { body: {}, via: "admin_api" });
    const all = await drafts.approvals(key, {});
    expect(all.data.map((a) => [a.draft_id, a.state])).toEqual([
      [pending.id, "pending"],
      [approved.id, "approved"],
    ]);
    expect(Object.keys(all.data[1]!).sort()).toEqual(
      [
        "object",
        "draft_id",
        "type",
        "mode",
        "revision",
        "price_cents",
        "currency",
        "state",
        "requested_at",
        "decided_at",
      ].sort(),
    );
    expect(JSON.stringify(all)).not.toContain("secret");
    expect((await drafts.approvals(key, { state: "pending" })).data.map((a) => a.draft_id)).toEqual([
      pending.id,
    ]);
    expect((await drafts.approvals(key, { state: "rejected" })).data).toEqual([]);
    expect(await drafts.approval(key, plain.id)).toMatchObject({ state: "none", requested_at: null });
    expect(await codeOf(drafts.approvals(key, { state: "none" }))).toBe("invalid_query");
    const page = await drafts.approvals(key, { limit: 1 });
    expect(page.data.map((a) => a.draft_id)).toEqual([pending.id]);
    const rest = await drafts.approvals(key, { limit: 1, cursor: page.next_cursor! });
    expect(rest.data.map((a) => a.draft_id)).toEqual([approved.id]);
    expect(
      (await drafts.workspaceApprovals(key.workspace_id, "live", { state: "pending" })).data,
    ).toHaveLength(1);
    expect((await drafts.workspaceApprovals(key.workspace_id, "test", {})).data).toEqual([]);
  });
});

import { randomBytes } from "node:crypto";
import { createAdminApp } from "@mailpiece/admin";
import { makePdf, serveOnLoopback } from "@mailpiece/conformance";
import type { MailpieceCore } from "@mailpiece/core";
import type { H3 } from "h3";
import { afterEach, describe, expect, it } from "vitest";
import { aliasedAddress as address, HOUR, startV1Server, type V1Server } from "../test-server.fixture.ts";

let server: V1Server | undefined;
let admin: Awaited<ReturnType<typeof startAdmin>> | undefined;

afterEach(async () => {
  await admin?.close();
  await server?.close();
  expect(server?.unexpected ?? []).toEqual([]);
  server = undefined;
  admin = undefined;
});

/** The operator's admin API over the same core, on 127.0.0.1: where a person approves or rejects. */
async function startAdmin(core: MailpieceCore) {
  const token = randomBytes(32).toString("base64url");
  let app: H3 | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  app = createAdminApp(core, { publicUrl: running.url, adminToken: token });
  const call = (path: string, body?: unknown) =>
    fetch(`${running.url}/admin/api${path}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    enableLive: async (workspaceId: string) =>
      ((await (await call(`/workspaces/${workspaceId}/live`)).json()) as { live_api_key: string })
        .live_api_key,
    decide: (workspaceId: string, draftId: string, decision: "approve" | "reject", body?: unknown) =>
      call(`/workspaces/${workspaceId}/approvals/${draftId}/${decision}`, body),
    close: () => running.close(),
  };
}

type Json = Record<string, unknown> & {
  id: string;
  state: string;
  error: string;
  issues: { path: string; code: string }[];
  data: Json[];
};
const read = async (response: Response) => (await response.json()) as Json;

/**
 * The Projects API and the admin API over one core; a workspace live-enabled by the operator, with live credits
 * bought by card, its first live key (every live permission: `trusted`), a live key that needs approvals
 * (`restricted`) and its test key; and `letter(key)`, a draft body with a new quote of an uploaded letter.
 */
async function setup(options: { liveCreditsCents?: number } = {}) {
  const s = await startV1Server({ core: { keyOverlapMs: 365 * 24 * HOUR } });
  server = s;
  const a = await startAdmin(s.core);
  admin = a;
  const { id, test_api_key: test } = await s.workspace();
  const trusted = await a.enableLive(id);
  const topUp = await read(
    await s.post("/credits/checkout-session", trusted, { amount_cents: options.liveCreditsCents ?? 5_000 }),
  );
  await s.core.projects.payTopUp(topUp.id, { token: "spt_test_ok" });
  const rotated = await s.post("/api-keys/rotate", trusted, {
    mode: "live",
    permissions: ["mailings.submit_live", "letters:read"],
  });
  const restricted = ((await rotated.json()) as { api_key: string }).api_key;
  const documents = new Map<string, string>();
  /** A letter document of the key's mode (uploaded once per key), quoted now. */
  const letter = async (key: string, metadata: Record<string, string> = { cost_center: "CC-77" }) => {
    let documentId = documents.get(key);
    if (!documentId) {
      const pdf = await makePdf(1);
      const intent = await read(
        await s.post("/documents/upload-intent", key, {
          content_type: "application/pdf",
          byte_size: pdf.byteLength,
        }),
      );
      documentId = intent.document_id as string;
      await fetch(intent.upload_url as string, {
        method: "PUT",
        headers: { "content-type": "application/pdf" },
        body: pdf,
      });
      await s.post(`/documents/${documentId}/complete`, key, { page_count: 1 });
      documents.set(key, documentId);
    }
    const quote = await read(await s.post("/letters/quotes", key, { document_id: documentId }));
    return {
      quote_id: quote.quote_id as string,
      recipient: address("Grace Recipient"),
      sender: address("Ada Sender"),
      metadata,
    };
  };
  const draft = async (key: string, body: unknown) => {
    const response = await s.post("/drafts", key, body);
    expect(response.status).toBe(201);
    return read(response);
  };
  const act = (key: string, id: string, action: string) =>
    s.call(`/drafts/${id}/${action}`, key, { method: "POST" });
  const balance = async (key: string) => read(await s.call("/credits/balance", key));
  const orders = async () => (await s.store.list("orders:", { limit: 1000 })).records;
  return { s, a, id, test, trusted, restricted, letter, draft, act, balance, orders };
}

describe("drafts and approvals over HTTP", () => {
  it("takes a live key without submit_without_approval from 403 approval_required through approval to one order", async () => {
    const { s, a, id, trusted, restricted, letter, draft, act, balance, orders } = await setup();
    // The key uploads and quotes its letter itself: preparing mail spends nothing.
    const body = await letter(restricted);
    // A direct live send from this key is refused: it has to go through a draft.
    const direct = await s.call("/letters", restricted, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "direct-1" },
      body: JSON.stringify(body),
    });
    expect(direct.status).toBe(403);
    expect(await read(direct)).toMatchObject({ error: "approval_required" });

    const saved = await draft(restricted, { type: "letter", ...body });
    expect(saved).toMatchObject({
      object: "draft",
      type: "letter",
      mode: "live",
      state: "draft",
      current_revision: 1,
    });
    const release = await act(restricted, saved.id, "release");
    expect(release.status).toBe(409);
    expect(await read(release)).toMatchObject({ error: "state_conflict" });
    const requested = await act(restricted, saved.id, "request-approval");
    expect(requested.status).toBe(200);
    expect(await read(requested)).toMatchObject({
      state: "approval_requested",
      approval: { state: "pending" },
    });

    const before = await balance(trusted);
    const approved = await a.decide(id, saved.id, "approve", { revision: 1 });
    expect(approved.status).toBe(200);
    expect(await read(approved)).toMatchObject({ object: "approval", draft_id: saved.id, state: "approved" });
    // Approving neither charges nor sends.
    expect(await balance(trusted)).toEqual(before);
    expect(await orders()).toEqual([]);

    const first = await act(restricted, saved.id, "release");
    expect(first.status).toBe(201);
    const order = await read(first);
    expect(order).toMatchObject({
      object: "letter",
      mode: "live",
      funds_status: "reserved",
      metadata: { cost_center: "CC-77" },
      idempotent_replay: false,
    });
    const second = await act(restricted, saved.id, "release");
    expect(second.status).toBe(200);
    expect(await read(second)).toMatchObject({ id: order.id, idempotent_replay: true });
    expect(await orders()).toHaveLength(1);
    const after = await balance(trusted);
    expect(after.reserved_cents).toBe(order.price_cents);
    expect(after.available_cents).toBe((before.available_cents as number) - (order.price_cents as number));
    const read1 = await read(await s.call(`/drafts/${saved.id}`, restricted));
    expect(read1).toMatchObject({ state: "released", order_id: order.id, released_revision: 1 });
    expect((await s.call(`/letters/${order.id}`, restricted)).status).toBe(200);
  });

  it("answers one order to concurrent releases, reserving the credits once", async () => {
    const { test, letter, draft, act, balance, orders } = await setup();
    const saved = await draft(test, { type: "letter", ...(await letter(test)) });
    const before = await balance(test);
    const answers = await Promise.all(Array.from({ length: 6 }, () => act(test, saved.id, "release")));
    const bodies = await Promise.all(answers.map(read));
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(await orders()).toHaveLength(1);
    const after = await balance(test);
    expect(after.reserved_cents).toBe((before.reserved_cents as number) + (bodies[0]!.price_cents as number));
  });

  it("refuses to release an approval a new revision invalidated (409 state_conflict)", async () => {
    const { s, a, id, trusted, restricted, letter, draft, act, orders } = await setup();
    const saved = await draft(restricted, { type: "letter", ...(await letter(trusted)) });
    await act(restricted, saved.id, "request-approval");
    await a.decide(id, saved.id, "approve");
    const patched = await s.call(`/drafts/${saved.id}`, restricted, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { cost_center: "CC-78" } }),
    });
    expect(patched.status).toBe(200);
    expect(await read(patched)).toMatchObject({
      state: "draft",
      current_revision: 2,
      approval: null,
      revision: { revision: 2, reason: "edited", body: { metadata: { cost_center: "CC-78" } } },
    });
    const refused = await act(restricted, saved.id, "release");
    expect(refused.status).toBe(409);
    expect(await read(refused)).toMatchObject({ error: "state_conflict" });
    expect(await orders()).toEqual([]);
    // The first revision stays as it was.
    const first = await read(await s.call(`/drafts/${saved.id}?revision=1`, restricted));
    expect(first).toMatchObject({
      current_revision: 2,
      revision: { revision: 1, body: { metadata: { cost_center: "CC-77" } } },
    });
    // A decision on the revision the person saw no longer applies.
    expect((await a.decide(id, saved.id, "approve", { revision: 1 })).status).toBe(409);
  });

  it("rejects, withdraws and discards, each answering 409 to what its state does not allow", async () => {
    const { a, id, trusted, restricted, letter, draft, act, orders } = await setup();
    const rejected = await draft(restricted, { type: "letter", ...(await letter(trusted)) });
    await act(restricted, rejected.id, "request-approval");
    const decided = await a.decide(id, rejected.id, "reject", { note: "Not this month" });
    expect(await read(decided)).toMatchObject({ state: "rejected" });
    expect((await act(restricted, rejected.id, "release")).status).toBe(409);
    expect((await act(trusted, rejected.id, "release")).status).toBe(409);
    expect((await act(restricted, rejected.id, "request-approval")).status).toBe(409);

    const withdrawn = await draft(restricted, { type: "letter", ...(await letter(trusted)) });
    expect((await act(restricted, withdrawn.id, "withdraw")).status).toBe(409);
    await act(restricted, withdrawn.id, "request-approval");
    const back = await act(restricted, withdrawn.id, "withdraw");
    expect(back.status).toBe(200);
    expect(await read(back)).toMatchObject({ state: "draft", approval: null });
    expect((await a.decide(id, withdrawn.id, "approve")).status).toBe(409);

    const discarded = await act(restricted, withdrawn.id, "discard");
    expect(await read(discarded)).toMatchObject({ state: "discarded" });
    for (const action of ["release", "request-approval", "withdraw", "refresh"]) {
      const answer = await act(restricted, withdrawn.id, action);
      expect(answer.status, action).toBe(409);
      expect(await read(answer)).toMatchObject({ error: "state_conflict" });
    }
    expect(await orders()).toEqual([]);
  });

  it("lets a trusted key and a test key release without approval, and refreshes an expired quote", async () => {
    const { s, test, trusted, letter, draft, act } = await setup();
    const live = await draft(trusted, { type: "letter", ...(await letter(trusted)) });
    expect((await act(trusted, live.id, "release")).status).toBe(201);
    const testDraft = await draft(test, { type: "letter", ...(await letter(test)) });
    s.advance(25 * HOUR);
    const expired = await act(test, testDraft.id, "release");
    expect(expired.status).toBe(422);
    expect((await read(expired)).issues).toEqual([
      expect.objectContaining({ path: "quote_id", code: "quote_expired" }),
    ]);
    const refreshed = await act(test, testDraft.id, "refresh");
    expect(refreshed.status).toBe(200);
    expect(await read(refreshed)).toMatchObject({
      state: "draft",
      current_revision: 2,
      revision: { reason: "refreshed" },
    });
    expect((await act(test, testDraft.id, "release")).status).toBe(201);
  });

  it("summarises approvals as expenses only: no documents, addresses, metadata or tracking", async () => {
    const { s, a, id, trusted, restricted, letter, draft, act } = await setup();
    const body = await letter(trusted, { project: "Secret Merger" });
    const pending = await draft(restricted, { type: "letter", ...body });
    await act(restricted, pending.id, "request-approval");
    const approved = await draft(restricted, {
      type: "letter",
      ...(await letter(trusted, { project: "Secret Merger" })),
    });
    await act(restricted, approved.id, "request-approval");
    await a.decide(id, approved.id, "approve");
    const plain = await draft(restricted, { type: "letter", ...(await letter(trusted)) });

    const listed = await s.call("/approvals", restricted);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    const page = JSON.parse(text) as Json;
    expect(page).toMatchObject({ object: "list", has_more: false, next_cursor: null });
    expect(page.data.map((item) => [item.draft_id, item.state]).sort()).toEqual(
      [
        [pending.id, "pending"],
        [approved.id, "approved"],
      ].sort(),
    );
    const price = pending.revision as { price_cents: number };
    for (const item of page.data) {
      expect(item).toEqual({
        object: "approval",
        draft_id: expect.stringMatching(/^drf_/),
        type: "letter",
        mode: "live",
        revision: 1,
        price_cents: price.price_cents,
        currency: "usd",
        state: expect.stringMatching(/^(pending|approved)$/),
        requested_at: expect.any(String),
        decided_at: item.state === "approved" ? expect.any(String) : null,
      });
    }
    const one = await s.call(`/approvals/${approved.id}`, restricted);
    const oneText = await one.text();
    expect(JSON.parse(oneText)).toMatchObject({
      draft_id: approved.id,
      state: "approved",
      mode: "live",
      type: "letter",
    });
    for (const secret of [
      "Secret Merger",
      "Grace Recipient",
      "Ada Sender",
      "350 Fifth Avenue",
      "10118",
      body.quote_id,
      "tracking",
      "document",
    ]) {
      expect(text).not.toContain(secret);
      expect(oneText).not.toContain(secret);
    }
    const filtered = await read(await s.call("/approvals?state=pending&limit=1", restricted));
    expect(filtered.data.map((item) => item.draft_id)).toEqual([pending.id]);
    expect(await read(await s.call(`/approvals/${plain.id}`, restricted))).toMatchObject({ state: "none" });
    // A read-only key reads summaries and drafts, but saves nothing.
    const readOnly = await read(
      await s.post("/api-keys/rotate", trusted, { mode: "live", permissions: ["letters:read"] }),
    );
    const reader = readOnly.api_key as string;
    expect((await s.call("/approvals", reader)).status).toBe(200);
    expect((await s.call(`/drafts/${plain.id}`, reader)).status).toBe(200);
    const refused = await s.post("/drafts", reader, { type: "letter", ...body });
    expect(refused.status).toBe(403);
    expect(await read(refused)).toMatchObject({ error: "permission_denied" });
  });

  it("refuses bad requests with the field's path, and keeps drafts to their workspace and mode", async () => {
    const { s, test, trusted, letter, draft, act } = await setup();
    const body = await letter(test);
    const unknownType = await s.post("/drafts", test, { type: "poster", quote_id: body.quote_id });
    expect(unknownType.status).toBe(422);
    const issue = (await read(unknownType)).issues[0]!;
    expect(issue).toMatchObject({ path: "type", code: "unsupported_type" });
    expect((issue as unknown as { message: string }).message).toContain(
      "letter, postcard, template, handwritten",
    );
    const template = await read(await s.post("/drafts", test, { type: "template", template_id: "tpl_1" }));
    expect(template.issues).toContainEqual(expect.objectContaining({ path: "template_id" }));
    const missing = await read(await s.post("/drafts", test, { type: "letter", quote_id: body.quote_id }));
    expect(missing.issues).toContainEqual(expect.objectContaining({ path: "recipient", code: "required" }));
    expect(
      (
        await s.call("/drafts", test, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{",
        })
      ).status,
    ).toBe(400);
    expect((await read(await s.call("/drafts", test))).data).toEqual([]);

    const saved = await draft(test, { type: "letter", ...body });
    const withBody = await s.post(`/drafts/${saved.id}/request-approval`, test, { note: "please" });
    expect(withBody.status).toBe(422);
    expect((await read(withBody)).issues).toEqual([
      expect.objectContaining({ path: "note", code: "unknown_field" }),
    ]);
    expect((await s.post(`/drafts/${saved.id}/request-approval`, test, {})).status).toBe(200);
    const badPatch = await s.call(`/drafts/${saved.id}`, test, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "postcard" }),
    });
    expect(badPatch.status).toBe(422);
    expect((await read(badPatch)).issues).toEqual([
      expect.objectContaining({ path: "type", code: "type_immutable" }),
    ]);

    for (const query of ["state=sent", "limit=0", "limit=101", "state=draft&state=released"]) {
      const answer = await s.call(`/drafts?${query}`, test);
      expect(answer.status, query).toBe(400);
      expect(await read(answer)).toMatchObject({ error: "invalid_query" });
    }
    expect((await s.call(`/drafts/${saved.id}?revision=abc`, test)).status).toBe(400);
    expect((await s.call(`/drafts/${saved.id}?revision=9`, test)).status).toBe(404);
    expect((await s.call("/approvals?state=none", test)).status).toBe(400);
    expect((await s.call("/drafts?cursor=%00", test)).status).toBe(400);

    // Another workspace, or the other mode of the same one, sees nothing of it.
    const { test_api_key: other } = await s.workspace("Other");
    for (const key of [other, trusted]) {
      expect((await s.call(`/drafts/${saved.id}`, key)).status).toBe(404);
      expect((await s.call(`/approvals/${saved.id}`, key)).status).toBe(404);
      expect((await act(key, saved.id, "discard")).status).toBe(404);
    }
    expect((await s.call(`/drafts/drf_nope`, test)).status).toBe(404);
    const wrongMethod = await s.call(`/drafts/${saved.id}`, test, { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD, PATCH, OPTIONS");
    expect((await s.call(`/drafts/${saved.id}`)).status).toBe(401);
  });
});

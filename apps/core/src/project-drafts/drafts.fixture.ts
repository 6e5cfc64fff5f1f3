import { makePdf } from "@mailpiece/conformance";
import type { Issue } from "@mailpiece/errors";
import { randomIds } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { createMailpieceCore } from "../core.ts";
import { readyDocument } from "../projects/projects.fixture.ts";
import type { Permission } from "../workspaces/api-keys.ts";
import { workspaceCredits } from "../workspaces/credits.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { createDraftTypes, type DraftType, type SendBody } from "./draft-types.ts";
import { createProjectDrafts } from "./project-drafts.ts";

export const HOUR = 60 * 60 * 1000;

/** A principal of workspace `ws_a...` (or `workspace`) in `mode` with `permissions`. */
export function principalOf(
  mode: "test" | "live",
  permissions: Permission[],
  workspace = `ws_${"a".repeat(32)}`,
): Principal {
  return { workspace_id: workspace, mode, key_id: `key_${mode}_${permissions.length}`, permissions };
}

/** Keys of every kind the drafts distinguish. */
export const KEYS = {
  test: principalOf("test", ["mailings.submit_test", "letters:read"]),
  /** A live key that must go through approvals. */
  liveNeedsApproval: principalOf("live", ["mailings.submit_live", "letters:read"]),
  /** A live key that may send without approval. */
  liveTrusted: principalOf("live", [
    "mailings.submit_live",
    "mailings.submit_without_approval",
    "letters:read",
  ]),
  readOnly: principalOf("live", ["letters:read"]),
};

/**
 * A draft type standing in for a real send: a body `{amount, note?}` is valid with an integer amount of at least 1;
 * its price is the amount plus `surcharge`, and `requote` bumps `quote` so a refresh makes a new body. Every send is
 * recorded; a send of the same key answers the first order. `refuse` makes the next sends refuse.
 */
export function fakeType() {
  const sent = new Map<string, { id: string; body: SendBody }>();
  const calls: string[] = [];
  const state = { surcharge: 0, refuse: undefined as Error | undefined, quotes: 0 };
  const type: DraftType = {
    async validate(_principal, body) {
      const issues: Issue[] = [];
      if (!Number.isInteger(body.amount) || (body.amount as number) < 1) {
        issues.push({
          path: "amount",
          code: "invalid_amount",
          message: "amount must be a positive integer.",
        });
      }
      for (const key of Object.keys(body)) {
        if (!["amount", "note", "quote"].includes(key)) {
          issues.push({ path: key, code: "unknown_field", message: `${key} is not a field.` });
        }
      }
      return issues;
    },
    async price(_principal, body) {
      return {
        price_cents: (body.amount as number) + state.surcharge,
        currency: "usd",
        quote_id: `q${String(body.quote ?? 0)}`,
        quote_expires_at: null,
      };
    },
    async requote(_principal, body) {
      state.quotes += 1;
      return { ...body, quote: state.quotes };
    },
    async send(_principal, body, key) {
      calls.push(key);
      if (state.refuse) throw state.refuse;
      const found = sent.get(key);
      if (found) return { id: found.id, idempotent_replay: true };
      const order = { id: `order_${sent.size + 1}`, body };
      sent.set(key, order);
      return { id: order.id, idempotent_replay: false };
    },
  };
  return { type, sent, calls, state };
}

/** The drafts use cases over a memory store, with the fake type as `letter`, and a clock tests move. */
export function fakeDrafts() {
  let now = Date.UTC(2026, 10, 24, 12);
  const clock = { now: () => now };
  const store = createMemoryStore();
  const types = createDraftTypes();
  const fake = fakeType();
  types.register("letter", fake.type);
  const drafts = createProjectDrafts({ store, clock, ids: randomIds, types });
  return {
    drafts,
    store,
    types,
    fake,
    advance(ms: number) {
      now += ms;
    },
  };
}

export const address = (name: string) => ({
  name,
  street1: "350 Fifth Avenue",
  city: "New York",
  province: "NY",
  zip: "10118",
});

/**
 * A core on memory stores with one workspace: its test key, its first live key (every live permission), a live key
 * that needs approvals, and ready one-page documents in both modes; live credits funded. The clock moves by
 * `advance`; rotated keys overlap for a year, so moving it never expires them.
 */
export async function coreWithWorkspace(options: { liveCreditsCents?: number } = {}) {
  let now = Date.UTC(2026, 10, 24, 12);
  const clock = { now: () => now };
  const store = createMemoryStore();
  const blobs = createMemoryBlobStore();
  /** A core over the same store and blobs: another process of the same deployment. */
  const newCore = () =>
    createMailpieceCore({
      store,
      blobs,
      clock,
      config: { keyOverlapMs: 365 * 24 * HOUR, testCreditsCents: 10_000 },
    });
  const core = newCore();
  const workspace = await core.workspaces.create("Acme");
  const test = await core.workspaces.authenticate(workspace.test_api_key);
  const firstLive = await core.workspaces.enableLive(workspace.id);
  const live = await core.workspaces.authenticate(firstLive!.api_key);
  const restricted = await core.workspaces.authenticate(
    (await core.workspaces.rotateKey(live, "live", ["mailings.submit_live", "letters:read"])).api_key,
  );
  await workspaceCredits(store).fund(
    workspace.id,
    "live",
    options.liveCreditsCents ?? 10_000,
    "fixture-funding",
  );
  const documents = { test: await readyDocument(core, test), live: await readyDocument(core, live) };
  /** A letter send body with a new quote of the principal's mode's document. */
  const letterBody = async (principal: Principal, quoteBody: Record<string, unknown> = {}) => ({
    quote_id: (
      await core.projects.createQuote(principal, "letter", {
        document_id: documents[principal.mode],
        ...quoteBody,
      })
    ).quote_id,
    recipient: address("Grace Recipient"),
    sender: address("Ada Sender"),
    metadata: { cost_center: "CC-77" },
  });
  /** A ready two-page 6x9 postcard document (front and back, with bleed) of the principal's mode. */
  const postcardDocument = async (principal: Principal) => {
    const pdf = await makePdf(2, [666, 450]);
    const intent = await core.projects.createUploadIntent(principal, {
      content_type: "application/pdf",
      byte_size: pdf.byteLength,
    });
    const token = new URL(intent.upload_path, "http://x").searchParams.get("token")!;
    await core.projects.uploadDocument({
      document_id: intent.document_id,
      token,
      content_type: "application/pdf",
      bytes: pdf,
    });
    return (await core.projects.completeDocument(principal, intent.document_id, { page_count: 2 })).id;
  };
  /** Every order record in the store. */
  const orders = async () => (await store.list("orders:", { limit: 1000 })).records;
  const balance = (mode: "test" | "live") => core.workspaces.balance(workspace.id, mode);
  return {
    core,
    newCore,
    store,
    workspace,
    test,
    live,
    restricted,
    documents,
    letterBody,
    postcardDocument,
    orders,
    balance,
    advance(ms: number) {
      now += ms;
    },
  };
}

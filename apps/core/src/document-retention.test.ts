import { createHash } from "node:crypto";
import { letterOrder, makePdf } from "@mailpiece/conformance";
import type { Store } from "@mailpiece/ports";
import { manualClock } from "@mailpiece/ports";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { BASE_SEPOLIA, createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "./core.ts";
import type { DocumentRetentionContext } from "./document-retention.ts";
import { DOCUMENT_GC_QUEUE, documentCollectionWork, holdDocument } from "./document-retention.ts";
import { runQueue } from "./job-runner.ts";
import { readyDocument, refusal } from "./projects/projects.fixture.ts";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const RETENTION = 30 * DAY;
const UPLOAD_TTL = HOUR;

const sha256Of = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

function setup() {
  const clock = manualClock(Date.parse("2026-06-01T12:00:00Z"));
  const store = createMemoryStore({ clock });
  const blobs = createMemoryBlobStore();
  const core = createMailpieceCore({
    store,
    blobs,
    clock,
    config: { documentRetentionMs: RETENTION, uploadTtlMs: UPLOAD_TTL },
  });
  const upload = async (bytes: Uint8Array) => {
    const slot = await core.createUpload({
      file_name: "letter.pdf",
      content_type: "application/pdf",
      content_length: bytes.byteLength,
      clientKey: "198.51.100.7",
    });
    await core.fillUpload(slot.upload_token, bytes);
    return slot.upload_token;
  };
  const stored = async (bytes: Uint8Array) =>
    (await blobs.head(`documents:${sha256Of(bytes)}`)) !== undefined;
  return { clock, store, blobs, core, upload, stored };
}

/** A retention context over `store` whose store writes can be interleaved with by `beforePut`. */
function retentionOn(store: Store, beforePut?: (key: string, value: unknown) => Promise<void>) {
  const clock = manualClock(Date.parse("2026-06-01T12:00:00Z"));
  let hook = beforePut;
  const wrapped: Store = {
    ...store,
    async put(key, value, options) {
      const run = hook;
      hook = undefined;
      await run?.(key, value);
      return store.put(key, value, options);
    },
  };
  const ctx: DocumentRetentionContext & { clock: ReturnType<typeof manualClock> } = {
    store: wrapped,
    blobs: createMemoryBlobStore(),
    jobs: createStoreJobQueue({ store, clock }),
    clock,
    retentionMs: RETENTION,
  };
  return ctx;
}

describe("documents no order names are collected after retention", () => {
  it("deletes an upload no order used once its retention has passed, not a moment before", async () => {
    const t = setup();
    const bytes = await makePdf(1);
    await t.upload(bytes);
    expect(await t.stored(bytes)).toBe(true);
    // The upload can be used for an hour; the document is kept for the retention after that.
    t.clock.advance(UPLOAD_TTL + RETENTION - 1000);
    await t.core.fulfil();
    expect(await t.stored(bytes)).toBe(true);
    t.clock.advance(1000);
    await t.core.fulfil();
    expect(await t.stored(bytes)).toBe(false);
    expect(await t.store.get(`document_holders:${sha256Of(bytes)}`)).toBeUndefined();
    expect(await t.core.jobs.get(DOCUMENT_GC_QUEUE, sha256Of(bytes))).toBeUndefined();
    await t.core.close();
  });

  it("keeps for good a document an order names, paid or not", async () => {
    const t = setup();
    const bytes = await makePdf(1);
    const token = await t.upload(bytes);
    const raw = JSON.stringify(letterOrder({ letter: undefined, pdf: { upload_token: token } }));
    const rail = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
      facilitator: createLocalFacilitator({ network: BASE_SEPOLIA, clock: t.clock }),
    });
    const unpaid = await t.core.createOrder({
      raw,
      body: JSON.parse(raw),
      clientKey: "198.51.100.7",
      payment: { rail, credential: undefined, resourceUrl: (id) => `https://mailpiece.test/orders/${id}` },
    });
    // Unpaid, the order names the PDF all the same.
    expect(unpaid.kind).toBe("payment_required");
    t.clock.advance(UPLOAD_TTL + 2 * RETENTION);
    await t.core.fulfil();
    expect(await t.stored(bytes)).toBe(true);
    await t.core.close();
  });

  it("an upload of the same PDF after the first one expired holds it again: kept until its own retention ends", async () => {
    const t = setup();
    const bytes = await makePdf(2);
    await t.upload(bytes);
    t.clock.advance(UPLOAD_TTL + RETENTION / 2);
    await t.upload(bytes);
    t.clock.advance(RETENTION / 2 + 1000);
    await t.core.fulfil();
    // The first upload's retention has passed, the second's has not.
    expect(await t.stored(bytes)).toBe(true);
    t.clock.advance(UPLOAD_TTL + RETENTION);
    await t.core.fulfil();
    expect(await t.stored(bytes)).toBe(false);
    // Collected, then uploaded again: stored and held anew.
    await t.upload(bytes);
    expect(await t.stored(bytes)).toBe(true);
    expect(await t.core.jobs.get(DOCUMENT_GC_QUEUE, sha256Of(bytes))).toMatchObject({ state: "pending" });
    await t.core.close();
  });

  it("keeps a completed Projects API document's PDF for as long as the document backs quotes", async () => {
    const t = setup();
    const workspace = await t.core.workspaces.create("Acme");
    const principal = await t.core.workspaces.authenticate(workspace.test_api_key);
    const documentId = await readyDocument(t.core, principal);
    const pdf = await makePdf(1);
    expect(await t.stored(pdf)).toBe(true);
    // Long after the upload expired, the document still quotes: its PDF was kept.
    t.clock.advance(RETENTION - HOUR);
    await t.core.fulfil();
    expect(await t.stored(pdf)).toBe(true);
    const quote = await t.core.projects.createQuote(principal, "letter", { document_id: documentId });
    expect(quote.price_cents).toBeGreaterThan(0);
    // Once its retention has passed the document is gone, and so is its PDF once the quote's hold has ended too.
    t.clock.advance(HOUR);
    expect(
      (await refusal(t.core.projects.createQuote(principal, "letter", { document_id: documentId }))).issues,
    ).toContainEqual(expect.objectContaining({ path: "document_id" }));
    t.clock.advance(2 * RETENTION + 8 * DAY);
    await t.core.fulfil();
    expect(await t.stored(pdf)).toBe(false);
    await t.core.close();
  });

  it("a hold recorded between the collector's read and its mark wins: the document is kept", async () => {
    const store = createMemoryStore();
    const bytes = await makePdf(1);
    const sha256 = sha256Of(bytes);
    let ctx!: ReturnType<typeof retentionOn>;
    ctx = retentionOn(store, async (key, value) => {
      // The collector is about to mark the collection: a new holder gets in first.
      if (key === `document_holders:${sha256}` && (value as { collecting?: number }).collecting) {
        await holdDocument({ ...ctx, store }, sha256, ctx.clock.now() + HOUR, bytes);
      }
    });
    await holdDocument({ ...ctx, store }, sha256, ctx.clock.now(), bytes);
    ctx.clock.advance(RETENTION);
    const work = documentCollectionWork(ctx);
    expect(await runQueue(ctx.jobs, work, { owner: "t", leaseMs: 10_000 })).toBe(1);
    expect(await ctx.blobs.head(`documents:${sha256}`)).toBeDefined();
    // Looked at again at once, it is then due when the new holder's retention ends.
    expect(await runQueue(ctx.jobs, work, { owner: "t", leaseMs: 10_000 })).toBe(1);
    expect((await ctx.jobs.get(DOCUMENT_GC_QUEUE, sha256))?.runAt).toBe(ctx.clock.now() + HOUR + RETENTION);
  });

  it("a hold that meets a collection under way waits for it, then stores the PDF again", async () => {
    const store = createMemoryStore();
    const ctx = retentionOn(store);
    const bytes = await makePdf(1);
    const sha256 = sha256Of(bytes);
    await ctx.blobs.put(`documents:${sha256}`, bytes);
    await store.create(`document_holders:${sha256}`, {
      sha256,
      pinned: false,
      until: 0,
      collecting: ctx.clock.now(),
    });
    // The collection finishes a little later.
    const finishing = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 120));
      await ctx.blobs.delete(`documents:${sha256}`);
      await store.delete(`document_holders:${sha256}`);
    })();
    await holdDocument(ctx, sha256, "pinned", bytes);
    await finishing;
    expect(await ctx.blobs.head(`documents:${sha256}`)).toBeDefined();
    expect((await store.get(`document_holders:${sha256}`))?.value).toMatchObject({ pinned: true });
  });

  it("a collection cut short by a crash is taken over by the next holder, and its job keeps the document", async () => {
    const store = createMemoryStore();
    const ctx = retentionOn(store);
    const bytes = await makePdf(1);
    const sha256 = sha256Of(bytes);
    await holdDocument(ctx, sha256, ctx.clock.now(), bytes);
    // Marked, then the process died: the mark is a minute old.
    const found = (await store.get<{ until: number }>(`document_holders:${sha256}`))!;
    await store.put(`document_holders:${sha256}`, { ...found.value, collecting: ctx.clock.now() });
    ctx.clock.advance(RETENTION + 60_000);
    await holdDocument(ctx, sha256, ctx.clock.now() + HOUR, bytes);
    expect(await runQueue(ctx.jobs, documentCollectionWork(ctx), { owner: "t", leaseMs: 10_000 })).toBe(1);
    expect(await ctx.blobs.head(`documents:${sha256}`)).toBeDefined();
    expect((await store.get(`document_holders:${sha256}`))?.value).not.toHaveProperty("collecting");
  });
});

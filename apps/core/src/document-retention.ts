import type { BlobStore, Clock, JobQueue, Store, StoredRecord } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { CoreError } from "./errors.ts";
import type { QueueWork } from "./job-runner.ts";

/**
 * Who holds a document kept by content (`documents:<sha256>`): `pinned` once an order (paid or not) names it, which
 * keeps it for good; otherwise the latest time a short-lived holder (an upload, a Projects API document or quote)
 * may still need it. `collecting` marks a collection under way, since that time.
 */
interface DocumentHolders {
  sha256: string;
  pinned: boolean;
  until: number;
  collecting?: number;
}

export interface DocumentRetentionContext {
  store: Store;
  blobs: BlobStore;
  jobs: JobQueue;
  clock: Clock;
  /** How long a document no holder needs any more is kept before it is collected. */
  retentionMs: number;
}

/** The job queue of documents to collect: one job per document not pinned, due when its retention ends. */
export const DOCUMENT_GC_QUEUE = "document-gc";
const holdersKey = (sha256: string) => `document_holders:${sha256}`;
const blobKey = (sha256: string) => `documents:${sha256}`;
/** A collection marked this long ago without finishing was cut short (a crash): a new holder takes the document over. */
const COLLECTION_STALE_MS = 60_000;
/** How long a holder waits, in all, for a collection under way to finish before answering busy. */
const COLLECTION_WAIT_MS = 5_000;
const COLLECTION_POLL_MS = 50;
/** Compare-and-set rounds before a hold gives up on holders that keep changing. */
const MAX_ROUNDS = 100;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Records a holder of the document `sha256`, then keeps its bytes (when given and not already stored): `until` is
 * when this holder stops needing it, or "pinned" for an order, which keeps it for good. The holder is recorded
 * before the bytes are written, so a collection either finishes before the hold (and the bytes are written again)
 * or sees it and keeps the document. A document new to the holders' records gets its collection job first, due when
 * its retention after `until` ends. While a collection is under way the hold waits for it (a few seconds at most).
 */
export async function holdDocument(
  ctx: DocumentRetentionContext,
  sha256: string,
  until: number | "pinned",
  bytes?: Uint8Array,
): Promise<void> {
  const waitUntil = Date.now() + COLLECTION_WAIT_MS;
  for (let round = 0; ; round++) {
    if (round >= MAX_ROUNDS) {
      throw new CoreError("storage_unavailable", "The document's holders kept changing; try again.");
    }
    const found = await ctx.store.get<DocumentHolders>(holdersKey(sha256));
    const now = ctx.clock.now();
    if (found?.value.collecting !== undefined && now - found.value.collecting < COLLECTION_STALE_MS) {
      if (Date.now() >= waitUntil) {
        throw new CoreError("service_busy", "This document is being collected right now; try again shortly.");
      }
      await sleep(COLLECTION_POLL_MS);
      continue;
    }
    if (!found && until !== "pinned") {
      // The collection job first: a holders' record never stands without one, even after a crash.
      await ctx.jobs.enqueue({
        queue: DOCUMENT_GC_QUEUE,
        key: sha256,
        payload: { sha256 },
        runAt: until + ctx.retentionMs,
      });
    }
    if ((await recordHolder(ctx, sha256, found, until)) === "recorded") break;
  }
  if (bytes && !(await ctx.blobs.head(blobKey(sha256)))) {
    await ctx.blobs.put(blobKey(sha256), bytes, { contentType: "application/pdf" });
  }
}

/** Writes the holder into the record `found` (or a new one): recorded (or nothing to change), or conflict. */
async function recordHolder(
  ctx: DocumentRetentionContext,
  sha256: string,
  found: StoredRecord<DocumentHolders> | undefined,
  until: number | "pinned",
): Promise<"recorded" | "conflict"> {
  const pinned = until === "pinned";
  if (!found) {
    const created = await ctx.store.create<DocumentHolders>(holdersKey(sha256), {
      sha256,
      pinned,
      until: pinned ? 0 : until,
    });
    return created.created ? "recorded" : "conflict";
  }
  const current = found.value;
  const next: DocumentHolders = {
    sha256,
    pinned: current.pinned || pinned,
    until: pinned ? current.until : Math.max(current.until, until),
  };
  // A collection cut short is taken over: its job, still pending, finds the document held again.
  if (current.collecting === undefined && next.pinned === current.pinned && next.until === current.until) {
    return "recorded";
  }
  try {
    await ctx.store.put(holdersKey(sha256), next, { ifVersion: found.version });
    return "recorded";
  } catch (error) {
    if (PortError.isInstance(error) && error.code === "version_conflict") return "conflict";
    throw error;
  }
}

/**
 * The document collection queue's work: a document that is pinned, or has no holders' record, is done with; one
 * still held is looked at again when its retention ends; one past it is collected. The collection is marked first
 * (compare-and-set, so a hold recorded meanwhile wins), then the bytes go, then the mark.
 */
export function documentCollectionWork(ctx: DocumentRetentionContext): QueueWork<{ sha256: string }> {
  return {
    queue: DOCUMENT_GC_QUEUE,
    async handle({ sha256 }) {
      const found = await ctx.store.get<DocumentHolders>(holdersKey(sha256));
      if (!found || found.value.pinned) return "done";
      const due = found.value.until + ctx.retentionMs;
      const now = ctx.clock.now();
      if (now < due) return { again: due };
      let marked: StoredRecord<DocumentHolders>;
      try {
        marked = await ctx.store.put(
          holdersKey(sha256),
          { ...found.value, collecting: now },
          { ifVersion: found.version },
        );
      } catch (error) {
        // A holder came meanwhile: look again now.
        if (PortError.isInstance(error) && error.code === "version_conflict") return { again: now };
        throw error;
      }
      await ctx.blobs.delete(blobKey(sha256));
      await ctx.store.delete(holdersKey(sha256), { ifVersion: marked.version });
      return "done";
    },
  };
}

/** Keeps documents by content and records who holds them, for their collection after retention. */
export interface DocumentKeeper {
  hold(sha256: string, until: number | "pinned", bytes?: Uint8Array): Promise<void>;
}

export function documentKeeper(ctx: DocumentRetentionContext): DocumentKeeper {
  return { hold: (sha256, until, bytes) => holdDocument(ctx, sha256, until, bytes) };
}

/**
 * Keeps the document `sha256` for a holder until `until` (or for good: "pinned"), writing `bytes` when they are not
 * stored yet. Without a keeper (a context made by hand), the bytes are kept and nothing is recorded.
 */
export async function keepDocumentFor(
  ctx: { blobs: BlobStore; documents?: DocumentKeeper },
  sha256: string,
  until: number | "pinned",
  bytes?: Uint8Array,
): Promise<void> {
  if (ctx.documents) return ctx.documents.hold(sha256, until, bytes);
  if (bytes && !(await ctx.blobs.head(blobKey(sha256)))) {
    await ctx.blobs.put(blobKey(sha256), bytes, { contentType: "application/pdf" });
  }
}

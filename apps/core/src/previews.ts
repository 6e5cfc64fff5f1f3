import { createHmac, timingSafeEqual } from "node:crypto";
import type { Blob, BlobStore, Clock, Store } from "@mailpiece/ports";

/** A signed, short-lived link to a document: `/api/machine/previews/<sha256>.pdf?expires=<unix s>&sig=<hex>`. */
export interface PreviewSigner {
  /** The path and query of a preview link for a stored document, valid for the configured time. */
  sign(sha256: string, now: number): { path: string; expiresAt: number };
  /** Whether a link is genuine and unexpired; compares signatures in constant time. */
  verify(
    sha256: string,
    expires: string | null,
    sig: string | null,
    now: number,
  ): "ok" | "expired" | "invalid";
}

/** Link expiry times are rounded up to this, so that one signature serves every link to a document for a while. */
const EXPIRY_STEP_SECONDS = 60;
/** Signed links remembered per signer (the newest per document); past this many the memory starts again. */
const SIGNED_MEMO_LIMIT = 4096;

/**
 * A signer of preview links that last `ttlMs`, rounded up to the next whole minute: every link to a document made in
 * the same minute is the same link, signed once.
 */
export function createPreviewSigner(secret: string, ttlMs: number): PreviewSigner {
  const mac = (sha256: string, expires: number) =>
    createHmac("sha256", secret).update(`preview.v1.${sha256}.${expires}`).digest("hex");
  const signed = new Map<string, { path: string; expiresAt: number }>();
  return {
    sign(sha256, now) {
      const expires = Math.ceil((now + ttlMs) / 1000 / EXPIRY_STEP_SECONDS) * EXPIRY_STEP_SECONDS;
      const known = signed.get(sha256);
      if (known !== undefined && known.expiresAt === expires * 1000) return known;
      const link = {
        path: `/api/machine/previews/${sha256}.pdf?expires=${expires}&sig=${mac(sha256, expires)}`,
        expiresAt: expires * 1000,
      };
      if (signed.size >= SIGNED_MEMO_LIMIT) signed.clear();
      signed.set(sha256, link);
      return link;
    },
    verify(sha256, expires, sig, now) {
      if (
        !/^[0-9a-f]{64}$/.test(sha256) ||
        !expires ||
        !/^\d{1,12}$/.test(expires) ||
        !sig ||
        !/^[0-9a-f]{64}$/.test(sig)
      ) {
        return "invalid";
      }
      const expected = Buffer.from(mac(sha256, Number(expires)), "hex");
      const given = Buffer.from(sig, "hex");
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
      return Number(expires) * 1000 < now ? "expired" : "ok";
    },
  };
}

/** Where previews of documents that nothing has ordered are kept, and the index that says until when. */
const previewBlobKey = (sha256: string) => `previews:${sha256}`;
const previewIndexKey = (sha256: string) => `preview-index:${sha256}`;
/** How long a preview outlives its link, so that a link opened at its last second still finds the bytes. */
const PREVIEW_GRACE_MS = 60_000;

/** Kept-until times are rounded up to this, so that one write serves every validation of a document for a while. */
const PREVIEW_BUCKET_MS = 10 * 60_000;

/** Previews this process knows to be kept, by content hash, with the time they are kept until. */
export type PreviewMemo = Map<string, number>;
const MEMO_LIMIT = 10_000;

/**
 * Keeps the bytes behind a preview link of unpaid work (a validation) until the link expires. A document that an
 * order already holds is served from there; anything else is collected by `collectPreviews` once expired, so free
 * validations never grow the store for good. A preview this process already keeps long enough costs no I/O.
 */
export async function keepPreview(
  ctx: { store: Store; blobs: BlobStore },
  sha256: string,
  bytes: Uint8Array,
  expiresAt: number,
  memo?: PreviewMemo,
): Promise<void> {
  const needed = expiresAt + PREVIEW_GRACE_MS;
  if ((memo?.get(sha256) ?? 0) >= needed) return;
  if (await ctx.blobs.head(`documents:${sha256}`)) {
    // An ordered document is kept for good.
    remember(memo, sha256, Number.POSITIVE_INFINITY);
    return;
  }
  const index = await ctx.store.get<{ expires_at: number }>(previewIndexKey(sha256));
  let until = index?.value.expires_at ?? 0;
  // The index goes down first: a crash between the two writes leaves an entry the collector clears, never a blob.
  if (until < needed) {
    until = Math.ceil(needed / PREVIEW_BUCKET_MS) * PREVIEW_BUCKET_MS;
    await ctx.store.put(previewIndexKey(sha256), { expires_at: until });
  }
  if (!(await ctx.blobs.head(previewBlobKey(sha256))))
    await ctx.blobs.put(previewBlobKey(sha256), bytes, { contentType: "application/pdf" });
  remember(memo, sha256, until);
}

function remember(memo: PreviewMemo | undefined, sha256: string, until: number): void {
  if (!memo) return;
  if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value as string);
  memo.set(sha256, until);
}

/** The stored bytes of a document by content hash: an ordered document, or a preview still kept. */
export async function openDocument(ctx: { blobs: BlobStore }, sha256: string): Promise<Blob | undefined> {
  const blob = (await ctx.blobs.get(`documents:${sha256}`)) ?? (await ctx.blobs.get(previewBlobKey(sha256)));
  // Only PDFs are previews: anything else a blob store keeps under a content key is not served.
  return blob && isPdf(blob.bytes) ? blob : undefined;
}

function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 5)).toString("latin1") === "%PDF-";
}

/** Deletes previews whose links have expired; returns how many. One page per call, oldest keys first. */
export async function collectPreviews(
  ctx: { store: Store; blobs: BlobStore; clock: Clock },
  limit = 200,
): Promise<number> {
  const page = await ctx.store.list<{ expires_at: number }>("preview-index:", { limit });
  let collected = 0;
  for (const entry of page.records) {
    if (entry.value.expires_at > ctx.clock.now()) continue;
    const sha256 = entry.key.slice("preview-index:".length);
    await ctx.blobs.delete(previewBlobKey(sha256));
    try {
      await ctx.store.delete(entry.key, { ifVersion: entry.version });
      collected++;
    } catch {
      // Validated again meanwhile: the newer entry keeps the preview, and its bytes are put back on that request.
    }
  }
  return collected;
}

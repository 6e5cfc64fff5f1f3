import { claimDraft, claimRequest, draftKeyOf } from "@mailpiece/idempotency";
import type { BlobStore } from "@mailpiece/ports";
import type { StoredDocumentRef } from "./campaign-record.ts";
import type { OrderContext } from "./create-machine-order.ts";
import type { DocumentKeeper } from "./document-retention.ts";
import { keepDocumentFor } from "./document-retention.ts";
import type { ResolvedDocument } from "./documents.ts";
import type { MailingRecord } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import type { Payable } from "./payments/payable.ts";

/** What a fresh record is made with, whatever its kind. */
export interface NewRecordBase {
  id: string;
  fingerprint: string;
  draft_key: string;
  now: number;
}

/**
 * One kind of thing a machine order request makes (a single order, a campaign): where its records live and how one
 * is made from the prepared request. Claiming, collapsing and paying are the same for every kind.
 */
export interface MailingKind<P extends { order: { request_id: string } }, R extends MailingRecord> {
  readonly payable: Payable<R>;
  /** The store key of the record with this id. */
  key(id: string): string;
  /** The content key unpaid duplicates collapse on: the same content, parties and options. */
  draftKey(prepared: P): string;
  /** The PDF kept by content (`documents:<sha256>`) before the record names it; undefined: none yet. */
  document(prepared: P): ResolvedDocument | undefined;
  /** The unpaid record for a new request. */
  create(prepared: P, base: NewRecordBase): R;
  /** The upload token the request's PDF comes from, bound to the record before payment. */
  uploadToken(prepared: P): string | undefined;
  /** What the buyer sees of the record in the create answer. */
  view(record: R): OrderStatusView;
  /** The SHA-256 of the one PDF that prints, for a preview link; undefined when no one PDF prints. */
  previewSha256(record: R): string | undefined;
}

/**
 * How many request_ids may collapse onto one unpaid order. Recent unpaid duplicates (the same letter to the same
 * people under a new request_id) join the earlier order; past this many, a duplicate opens an order of its own, so
 * no record grows without bound.
 */
export const MAX_REQUEST_IDS_PER_ORDER = 20;

/**
 * Finds or makes the unpaid record for this request: claims the request_id (exactly one concurrent caller makes the
 * record), and collapses a recent unpaid duplicate (same content, parties and options under another request_id)
 * onto the earlier record, unless `collapse` is false (the record is then the request's own, and no later duplicate
 * joins it). Returns "conflict" when the request_id turned out to be bound to another body.
 */
export async function openMailing<P extends { order: { request_id: string } }, R extends MailingRecord>(
  ctx: Pick<OrderContext, "store" | "blobs" | "clock" | "ids" | "config" | "documents">,
  kind: MailingKind<P, R>,
  prepared: P,
  fingerprint: string,
  options: { collapse?: boolean } = {},
): Promise<R | "conflict"> {
  const now = ctx.clock.now();
  const requestId = prepared.order.request_id;
  const document = kind.document(prepared);
  if (document) await keepDocument(ctx, document);

  const draftKey = kind.draftKey(prepared);
  const id = ctx.ids.uuid();
  const draft =
    options.collapse === false
      ? ({ kind: "own" } as const)
      : await claimDraft(ctx.store, {
          draft_key: draftKey,
          order_id: id,
          request_id: requestId,
          now,
          ttlMs: ctx.config.draftTtlMs,
        });
  if (draft.kind === "duplicate") {
    const existing = await kind.payable.load(draft.claim.order_id);
    if (
      existing &&
      existing.payment_status === "unpaid" &&
      existing.status === "awaiting_payment" &&
      existing.request_ids.length < MAX_REQUEST_IDS_PER_ORDER
    ) {
      const claim = await claimRequest(ctx.store, {
        request_id: requestId,
        fingerprint,
        order_id: existing.id,
        now,
      });
      if (claim.kind === "conflict") return "conflict";
      return kind.payable.update(claim.claim.order_id, (r) => {
        if (r.request_ids.includes(requestId)) return undefined;
        r.request_ids.push(requestId);
        return r;
      });
    }
  }

  const record = kind.create(prepared, { id, fingerprint, draft_key: draftKey, now });
  await ctx.store.create(kind.key(id), record);
  const claim = await claimRequest(ctx.store, { request_id: requestId, fingerprint, order_id: id, now });
  if (claim.kind === "conflict") {
    await ctx.store.delete(kind.key(id));
    return "conflict";
  }
  if (claim.kind === "replay") {
    // A concurrent identical request made the record first: use it, drop ours.
    await ctx.store.delete(kind.key(id));
    return (await kind.payable.load(claim.claim.order_id))!;
  }
  if (draft.kind === "duplicate") {
    // The earlier draft is full, paid or gone: later duplicates collapse onto this record instead.
    await ctx.store.put(
      draftKeyOf(draftKey),
      { draft_key: draftKey, order_id: id, request_id: requestId, claimed_at: now },
      { ttlMs: ctx.config.draftTtlMs },
    );
  }
  return record;
}

/** Where a document kept by content lives in the blob store. */
export const documentBlobKey = (sha256: string) => `documents:${sha256}`;

/** Keeps a print-ready PDF by content (once for any number of records) and names it. */
export async function keepDocument(
  ctx: { blobs: BlobStore; documents?: DocumentKeeper },
  document: ResolvedDocument,
): Promise<StoredDocumentRef> {
  // An order names it, paid or not: it is kept for good.
  await keepDocumentFor(ctx, document.sha256, "pinned", document.bytes);
  return {
    blob_key: documentBlobKey(document.sha256),
    sha256: document.sha256,
    page_count: document.page_count,
  };
}

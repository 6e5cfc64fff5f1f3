import type { PrintProvider, ReturnReceipt } from "@mailpiece/ports";
import { PrintError } from "@mailpiece/ports";
import type { JobOutcome, QueueWork } from "../job-runner.ts";
import { loadOrder } from "../order-record.ts";
import {
  enqueueReceiptJob,
  RETURN_RECEIPTS_QUEUE,
  type ReceiptContext,
  type ReceiptJob,
  retentionUntil,
} from "./receipt-context.ts";
import {
  loadReceipt,
  moveReceipt,
  openingRecord,
  type ReceiptIndexEntry,
  type ReturnReceiptRecord,
  receiptBlobKey,
  receiptIndexKey,
  receiptKey,
} from "./receipt-record.ts";
import { pdfKept, type ReceiptOrder } from "./receipt-states.ts";

/**
 * Notes an order after a fulfilment round: a delivered letter that asked for an electronic receipt gets its receipt
 * record (awaiting) and a job that asks its provider for the receipt. Idempotent: an order whose receipt record
 * exists, or any other order, changes nothing. The job is queued before the record is written, so a crash between the
 * two leaves a job that opens the record itself.
 */
export async function noteDelivered(ctx: ReceiptContext, order: ReceiptOrder): Promise<void> {
  const now = ctx.clock.now();
  const opening = openingRecord(order, now);
  if (!opening || (await loadReceipt(ctx.store, order.id))) return;
  await enqueueReceiptJob(ctx, { task: "acquire", order_id: order.id }, now);
  await ctx.store.create(receiptKey(order.id), opening);
}

/** The receipts queue's work: acquisition of awaited receipts, deletion of expired ones. */
export function receiptWork(ctx: ReceiptContext): QueueWork<ReceiptJob> {
  return {
    queue: RETURN_RECEIPTS_QUEUE,
    handle: (job) => (job.task === "acquire" ? acquire(ctx, job.order_id) : expire(ctx, job.order_id)),
  };
}

/**
 * One look for an awaited receipt. A receipt the provider answers is kept; none yet (or a provider that cannot answer
 * now, or is not configured in this process) is looked for again later, the wait as long as the time waited so far,
 * from `firstLookAfterMs` up to `longestLookAfterMs`, until `acquireWithinMs` after the delivery was noted: then the
 * receipt is unavailable. A provider without electronic receipts, or one that does not know the job, makes it
 * unavailable at once.
 */
async function acquire(ctx: ReceiptContext, orderId: string): Promise<JobOutcome> {
  let record = await loadReceipt(ctx.store, orderId);
  if (!record) {
    const order = (await loadOrder(ctx.store, orderId))?.value;
    const opening = order ? openingRecord(order, ctx.clock.now()) : undefined;
    if (!opening) return "done";
    record = (await ctx.store.create(receiptKey(orderId), opening)).record.value;
  }
  if (record.state !== "awaiting") return "done";
  const provider = ctx.providers.find((p) => p.name === record.provider);
  if (provider && !provider.returnReceipt) {
    return giveUp(
      ctx,
      record,
      "receipt_unsupported",
      `${provider.name} offers no electronic return receipts.`,
    );
  }
  let receipt: ReturnReceipt | undefined;
  try {
    receipt = provider ? await provider.returnReceipt?.(record.reference) : undefined;
  } catch (error) {
    if (PrintError.isInstance(error) && error.code === "job_not_found") {
      return giveUp(ctx, record, "job_not_found", `${record.provider} does not know this letter's job.`);
    }
    // Any other failure leaves the receipt where it was: looked for again, as one not there yet.
  }
  if (receipt && wellFormed(receipt)) {
    await keep(ctx, record, receipt);
    return "done";
  }
  const now = ctx.clock.now();
  const deadline = record.noted_at + ctx.config.acquireWithinMs;
  if (now >= deadline) {
    return giveUp(
      ctx,
      record,
      "receipt_unavailable",
      `${describe(provider, record)} gave no electronic return receipt within ${span(ctx.config.acquireWithinMs)} of delivery.`,
    );
  }
  const waited = now - record.noted_at;
  const wait = Math.min(ctx.config.longestLookAfterMs, Math.max(ctx.config.firstLookAfterMs, waited));
  return { again: Math.min(deadline, now + wait) };
}

/** A duration for people: whole hours up to two days, whole days beyond. */
const span = (ms: number) =>
  ms < 48 * 3_600_000 ? `${Math.round(ms / 3_600_000)} hours` : `${Math.round(ms / 86_400_000)} days`;

const describe = (provider: PrintProvider | undefined, record: ReturnReceiptRecord) =>
  provider ? provider.name : `The print provider ${record.provider} (not configured)`;

/** A receipt the record can be made of: a PDF, the article number, the signer and a time of signing. */
function wellFormed(receipt: ReturnReceipt): boolean {
  return (
    receipt.pdf instanceof Uint8Array &&
    receipt.pdf.byteLength > 0 &&
    typeof receipt.tracking_number === "string" &&
    receipt.tracking_number !== "" &&
    typeof receipt.signer_name === "string" &&
    typeof receipt.signed_at === "string" &&
    Number.isFinite(Date.parse(receipt.signed_at))
  );
}

async function giveUp(
  ctx: ReceiptContext,
  record: ReturnReceiptRecord,
  code: string,
  message: string,
): Promise<JobOutcome> {
  const at = ctx.clock.now();
  await moveReceipt(ctx.store, ctx.clock.now, record.order_id, "unavailable", () => ({
    failure: { code, message, at },
  }));
  return "done";
}

/**
 * Keeps a receipt: its PDF, its line in the export's listing (Projects API orders), its deletion job at the end of
 * its retention, then the record (the commit: a crash before it only does the same again, the PDF being the same).
 */
async function keep(ctx: ReceiptContext, record: ReturnReceiptRecord, receipt: ReturnReceipt): Promise<void> {
  const storedAt = ctx.clock.now();
  const until = retentionUntil(ctx.config, storedAt);
  const signedAt = new Date(Date.parse(receipt.signed_at)).toISOString();
  await ctx.blobs.put(receiptBlobKey(record.order_id), receipt.pdf, { contentType: "application/pdf" });
  if (record.workspace_id !== null && record.mode !== null) {
    await ctx.store.put<ReceiptIndexEntry>(receiptIndexKey(record, signedAt), {
      order_id: record.order_id,
      tracking_number: receipt.tracking_number,
      signed_at: signedAt,
      signer_name: receipt.signer_name,
    });
  }
  await enqueueReceiptJob(ctx, { task: "expire", order_id: record.order_id }, until);
  // Its email is queued before the commit: the mail waits until the receipt is stored, and a crash queues it again.
  if (record.err_delivery === "email") await ctx.emailReceipt?.(record.order_id);
  await moveReceipt(ctx.store, ctx.clock.now, record.order_id, "stored", () => ({
    tracking_number: receipt.tracking_number,
    signed_at: signedAt,
    signer_name: receipt.signer_name,
    stored_at: storedAt,
    retention_until: until,
  }));
}

/**
 * The end of a receipt's retention: its export line goes, then it is marked expired (from then on nothing serves its
 * PDF), then its PDF is deleted. A job that comes early waits for `retention_until`; one run again after a crash
 * finishes the deletion.
 */
async function expire(ctx: ReceiptContext, orderId: string): Promise<JobOutcome> {
  const record = await loadReceipt(ctx.store, orderId);
  if (!record || !(pdfKept(record.state) || record.state === "expired")) return "done";
  if (record.state !== "expired") {
    const until = record.retention_until ?? 0;
    if (ctx.clock.now() < until) return { again: until };
  }
  if (record.workspace_id !== null && record.signed_at !== null) {
    await ctx.store.delete(receiptIndexKey(record, record.signed_at));
  }
  await moveReceipt(ctx.store, ctx.clock.now, orderId, "expired", () => ({ expired_at: ctx.clock.now() }));
  await ctx.blobs.delete(receiptBlobKey(orderId));
  return "done";
}

import type { Issue } from "@mailpiece/errors";
import { validateFlowerLetterRequest } from "@mailpiece/flowers";
import { fingerprintBytes, peekRequest } from "@mailpiece/idempotency";
import { invalidRequest, requestIdConflict } from "../errors.ts";
import type { CreateInput, CreateOutcome, PaymentOutcome } from "../payments/pay.ts";
import { payFor } from "../payments/pay.ts";
import { isPaidLike } from "../payments/payment-record.ts";
import { limitUnpaidCreation } from "../rate-limit.ts";
import { requestIdOf } from "../request-id.ts";
import type { FlowerQuoteView } from "./florist-checks.ts";
import { checkAvailability, priceWithFlorist, quoteView } from "./florist-checks.ts";
import type { FlowerContext, FlowerOrderRecord } from "./record.ts";
import {
  findFlowerLetter,
  flowerClaimId,
  flowerPayable,
  loadFlowerLetter,
  openFlowerLetter,
} from "./record.ts";
import { attemptSubmission } from "./submission.ts";
import type { FlowerOrderView } from "./view.ts";
import { flowerOrderView, viewWithDelivery } from "./view.ts";

export type FlowerCreateInput = CreateInput;
export type FlowerCreateOutcome = CreateOutcome<FlowerOrderView>;

/**
 * Checks a flower-letter request and quotes it, changing nothing: the request, then with the florist the product,
 * the ZIP coverage and the delivery date, then the final quote against the bounds. Florist trouble
 * (`florist_unavailable`) is thrown as the florist's FloristError.
 */
export async function validateFlowerLetter(
  ctx: FlowerContext,
  body: unknown,
): Promise<{ ok: true; view: FlowerQuoteView } | { ok: false; issues: Issue[] }> {
  const validation = validateFlowerLetterRequest(body);
  if (!validation.ok) return validation;
  const available = await checkAvailability(ctx, validation.request);
  if (!available.ok) return available;
  const priced = await priceWithFlorist(ctx, validation.request, available.product);
  if (!priced.ok) return priced;
  return { ok: true, view: quoteView(ctx, validation.request, available.product, priced.quote) };
}

/** True when `requestId` is bound to another body: validate answers 409. */
export async function flowerRequestConflict(
  ctx: FlowerContext,
  requestId: string,
  raw: Uint8Array | string,
): Promise<boolean> {
  const seen = await peekRequest(ctx.store, flowerClaimId(requestId), fingerprintBytes(raw));
  return seen?.kind === "conflict";
}

/**
 * Creates (or resumes) a flower letter and takes its payment through the one payment flow: the request_id is
 * claimed atomically, the product, ZIP and date are checked with the florist before every 402 and before money
 * moves, and once paid the florist is asked under the order id as idempotency key, so a retried submission never
 * places a second order.
 */
export async function createFlowerLetter(
  ctx: FlowerContext,
  input: FlowerCreateInput,
): Promise<FlowerCreateOutcome> {
  const fingerprint = fingerprintBytes(input.raw);
  const claimedId = requestIdOf(input.body);
  const seen = claimedId ? await peekRequest(ctx.store, flowerClaimId(claimedId), fingerprint) : undefined;
  const known = seen?.kind === "replay" ? await loadFlowerLetter(ctx.store, seen.claim.order_id) : undefined;
  const payable = flowerPayable(ctx);
  // The identical body of a flower letter already paid: answer from the order, without asking the florist again.
  if (known && isPaidLike(known.payment_status)) {
    return answer(ctx, await payFor(ctx.payments, payable, known, input.payment));
  }

  const validation = validateFlowerLetterRequest(input.body);
  if (!validation.ok) throw invalidRequest(validation.issues);
  const request = validation.request;
  if (seen?.kind === "conflict") throw requestIdConflict(request.request_id, "flower letter");

  // Before any 402 and before money moves, the florist must still take it. A known order keeps its price.
  const available = await checkAvailability(ctx, request);
  if (!available.ok) throw invalidRequest(available.issues);
  let record = known;
  if (!record) {
    const priced = await priceWithFlorist(ctx, request, available.product);
    if (!priced.ok) throw invalidRequest(priced.issues);
    // A request that would store a new flower letter counts against its client's unpaid-creation limit.
    await limitUnpaidCreation(ctx, input.clientKey, ctx.unpaidRateLimit, "unpaid flower letters");
    const opened = await openFlowerLetter(ctx, request, available.product, priced.quote, fingerprint);
    if (opened === "conflict") throw requestIdConflict(request.request_id, "flower letter");
    record = opened;
  }
  return answer(ctx, await payFor(ctx.payments, payable, record, input.payment));
}

/** A flower letter by its order id or its request_id; undefined when there is none. */
export async function getFlowerLetter(ctx: FlowerContext, id: string): Promise<FlowerOrderView | undefined> {
  const found = await findFlowerLetter(ctx.store, id);
  return found ? viewWithDelivery(ctx, found) : undefined;
}

async function answer(
  ctx: FlowerContext,
  outcome: PaymentOutcome<FlowerOrderRecord>,
): Promise<FlowerCreateOutcome> {
  if (outcome.kind === "payment_required") {
    return {
      kind: "payment_required",
      challenge: outcome.challenge,
      order: flowerOrderView(ctx, outcome.record, null),
      ...(outcome.error ? { error: outcome.error } : {}),
    };
  }
  let record = outcome.record;
  // A paid letter whose last submission ended with an unknown outcome is submitted again (same key) on a retry.
  if (
    outcome.kind === "already_paid" &&
    record.status === "submission_queued" &&
    record.submission.last_error !== undefined
  ) {
    record = await attemptSubmission(ctx, record.id);
  }
  return {
    kind: outcome.kind,
    order: await viewWithDelivery(ctx, record),
    receiptHeaders: outcome.receiptHeaders,
  };
}

/**
 * Submits a paid flower letter still queued for its florist, under its order id as idempotency key: for a worker
 * that retries submissions whose outcome was unknown (or that a crash interrupted). Changes nothing for an order
 * that is unpaid or already placed. Undefined when there is no such flower letter.
 */
export async function submitFlowerLetter(
  ctx: FlowerContext,
  id: string,
): Promise<FlowerOrderView | undefined> {
  const found = await findFlowerLetter(ctx.store, id);
  if (!found) return undefined;
  return viewWithDelivery(ctx, await attemptSubmission(ctx, found.id));
}

import type { PriceBook, QuoteBounds } from "@mailpiece/pricing";
import { DEFAULT_PRICE_BOOK, MACHINE_ORDER_BOUNDS, PROJECT_ORDER_BOUNDS } from "@mailpiece/pricing";
import type { RateLimit } from "./rate-limit.ts";

/** The default of CoreConfig.orderIntentGraceMs: how long an order intent may stand before it counts as lost. */
export const ORDER_INTENT_GRACE_MS = 5 * 60 * 1000;

/** What an operator may tune; every field has a safe default. */
export interface CoreConfig {
  /** HTTPS hosts from which a `pdf` download URL may be fetched. Empty: no downloads. */
  pdfDownloadHosts: readonly string[];
  priceBook: PriceBook;
  /** The price range of one machine order (a floor applies below it). */
  bounds: QuoteBounds;
  /** The price range of one Projects API piece: letters, postcards, template sends and handwritten mail. */
  projectBounds: QuoteBounds;
  /** Largest PDF accepted, in bytes (spec 1: 100 MB). */
  maxPdfBytes: number;
  /** Most pages a PDF may have (spec 1: 199). */
  maxPdfPages: number;
  /** Unpaid order creation per client (spec 1: 10 attempts per hour per IP). */
  unpaidRateLimit: { limit: number; windowMs: number };
  /** How long a claimed payment credential stays claimed; at least as long as any credential can be valid. */
  replayClaimTtlMs: number;
  /** How long a retry waits for a settlement in flight before answering settled_pending_webhook. */
  settleWaitMs: number;
  /**
   * How long a settle may still be running after it began (the longest a rail takes before giving up). Past it, a
   * payment still settling was interrupted (a crash) and its rail is asked where it stands: finished or released.
   */
  settleLeaseMs: number;
  /** How long an unpaid draft collects duplicates (same document and parties under another request_id). */
  draftTtlMs: number;
  /** How long a draft's hosted checkout session can be paid. */
  checkoutTtlMs: number;
  /** How long an API key replaced by a rotation keeps working (spec 3: a configurable overlap, default 24 h). */
  keyOverlapMs: number;
  /** The test credits a new workspace starts with, in cents (spec 3: test keys run the whole flow at no cost). */
  testCreditsCents: number;
  /** Signs preview links; without it responses carry no preview_url. */
  previewSecret?: string;
  /** How long a preview link works. */
  previewTtlMs: number;
  /** How long an upload token can be filled and then used. */
  uploadTtlMs: number;
  /** How long a Projects API quote's price holds. */
  quoteTtlMs: number;
  /**
   * How long a Projects API order request may stand between its reservation and its record before it counts as
   * lost in a crash: its reservation is then released and its Idempotency-Key freed. A retry within it finishes the
   * order instead. Keep it well above the slowest order request.
   */
  orderIntentGraceMs: number;
  /**
   * How long a document (a PDF kept by content) that no order names and no upload, Projects API document or quote
   * needs any more is kept before it is deleted. Documents an order names are kept for good.
   */
  documentRetentionMs: number;
  /** Upload slots one client may open, and the bytes it may declare, per window. */
  uploadLimits: { slots: RateLimit; bytes: RateLimit };
  /** Validations one client may ask for per window, counted in each process: generous for agents, a bound for floods. */
  validateRateLimit: RateLimit;
  /**
   * Bytes of prepared documents kept in memory by content (0: none). Default 8 MiB: about five hundred typeset
   * letters, far more than the validate, create and paid retry of the orders in flight at once.
   */
  cacheBytes: number;
}

export function defaultCoreConfig(overrides: Partial<CoreConfig> = {}): CoreConfig {
  return {
    pdfDownloadHosts: [],
    priceBook: DEFAULT_PRICE_BOOK,
    bounds: MACHINE_ORDER_BOUNDS,
    projectBounds: PROJECT_ORDER_BOUNDS,
    maxPdfBytes: 100 * 1024 * 1024,
    maxPdfPages: 199,
    unpaidRateLimit: { limit: 10, windowMs: 60 * 60 * 1000 },
    replayClaimTtlMs: 7 * 24 * 60 * 60 * 1000,
    settleWaitMs: 10_000,
    settleLeaseMs: 15_000,
    draftTtlMs: 24 * 60 * 60 * 1000,
    checkoutTtlMs: 24 * 60 * 60 * 1000,
    keyOverlapMs: 24 * 60 * 60 * 1000,
    testCreditsCents: 10_000,
    previewTtlMs: 15 * 60 * 1000,
    uploadTtlMs: 60 * 60 * 1000,
    quoteTtlMs: 24 * 60 * 60 * 1000,
    orderIntentGraceMs: ORDER_INTENT_GRACE_MS,
    documentRetentionMs: 30 * 24 * 60 * 60 * 1000,
    uploadLimits: {
      slots: { limit: 30, windowMs: 60 * 60 * 1000 },
      bytes: { limit: 1024 * 1024 * 1024, windowMs: 60 * 60 * 1000 },
    },
    validateRateLimit: { limit: 600, windowMs: 60 * 1000 },
    cacheBytes: 8 * 1024 * 1024,
    ...overrides,
  };
}

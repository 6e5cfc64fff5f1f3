/**
 * The PaymentRail port: one per payment protocol (x402, MPP, test rails). A rail turns a price into a payment
 * challenge, reads the credential a client sends back, verifies it against the same price, and settles it.
 * The core decides when to call each step; the rail never touches orders.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit.
 * - `challenge` MUST be deterministic for one `Charge` apart from fields the protocol requires to be fresh (an MPP
 *   challenge id and expiry); x402 requirements for one Charge MUST be identical on every call, so a paid retry
 *   matches the 402 it answered.
 * - `readCredential` MUST return undefined when the request carries no credential of this rail, and a
 *   `PaymentError` with code `malformed_credential` when it carries one that cannot be decoded.
 * - `verify` MUST refuse a credential whose amount, asset, currency, payee, network or resource differs from the
 *   Charge (`payment_mismatch`; `invalid_challenge` where the protocol binds those terms into the challenge, as
 *   MPP's HMAC id does), an expired one (`payment_expired`), and one whose signature or binding does not check
 *   (`verification_failed`, or `invalid_challenge` for a broken challenge binding), without settling anything.
 * - `verify` MUST return a `replayKey` that is equal for every credential that could settle the same funds (x402:
 *   network, asset, payer and nonce; MPP: the challenge id). The core claims it atomically before `settle`, so one
 *   credential settles at most once.
 * - `settle` MUST be called only after `verify` succeeded and its replay key was claimed; it MUST NOT be retried
 *   for one replay key once it returned or threw an ambiguous failure, and MUST report `pending` (never success)
 *   when the outcome is not yet final.
 * - Receipt headers MUST be produced only for a successful or pending settlement, never for an error.
 */
export interface PaymentRail {
  /** The protocol as named in responses and logs. */
  readonly protocol: "x402" | "mpp";
  /** True when settlement is simulated (development and tests); the server says so loudly at start. */
  readonly simulated: boolean;

  /**
   * The answer for an unpaid request: status 402 with fresh challenges, headers and body. With `failure`, the
   * answer to a payment that was refused: the same challenges (so the client can pay again) and a body that says
   * why in the protocol's own terms; the status is 402, or what the protocol prescribes for that failure.
   */
  challenge(charge: Charge, failure?: PaymentError): Promise<PaymentChallenge>;

  /** Reads this rail's credential from request headers (lower-cased names). */
  readCredential(headers: Headers): PaymentCredential | undefined;

  /** Checks the credential against the charge without moving money. */
  verify(credential: PaymentCredential, charge: Charge): Promise<VerifiedPayment>;

  /** Moves the money. */
  settle(payment: VerifiedPayment, charge: Charge): Promise<Settlement>;

  /** Headers that tell the client the payment went through (PAYMENT-RESPONSE, Payment-Receipt). */
  receiptHeaders(settlement: Settlement): Record<string, string>;

  /**
   * Optional capability: asks where a settlement that was `pending`, or whose answer was lost, stands now. It MUST
   * NOT move money; it MUST answer `settled` only for funds that arrived, `failed` only when they never will, and
   * `pending` otherwise. Rails whose settlements are always final in `settle` need not declare it.
   */
  confirm?(payment: {
    replayKey: string;
    reference?: string;
    amount_cents: number;
  }): Promise<Settlement | { status: "pending" | "failed" }>;
}

/** What the buyer is asked to pay for one order. */
export interface Charge {
  /** Integer US cents. */
  amount_cents: number;
  currency: "usd";
  /** Absolute URL of the paid resource (the create endpoint). */
  resource_url: string;
  description: string;
  /** Stable reference of the logical order (the request_id); bound into challenges where the protocol allows. */
  order_ref: string;
}

export interface PaymentChallenge {
  status: number;
  headers: Record<string, string | string[]>;
  body: unknown;
  contentType: string;
}

/** A credential as read from the request; opaque to the core. */
export interface PaymentCredential {
  protocol: "x402" | "mpp";
  /** The raw header value, for logs as a short digest only. */
  raw: string;
  decoded: unknown;
}

export interface VerifiedPayment {
  protocol: "x402" | "mpp";
  /** Claimed atomically by the core before settling; see the contract. */
  replayKey: string;
  /** Who paid, when the protocol says (an address or a DID). */
  payer?: string;
  amount_cents: number;
  /** Rail-specific data `settle` needs. */
  details: unknown;
}

export interface Settlement {
  protocol: "x402" | "mpp";
  status: "settled" | "pending";
  /** A transaction hash or a provider reference. */
  reference: string;
  payer?: string;
  amount_cents: number;
  /** Milliseconds since the epoch. */
  settledAt: number;
  /** Rail-specific data `receiptHeaders` needs. */
  details: unknown;
}

/** Stable codes of payment failures; apps map them to 402 or 400 bodies. */
export type PaymentErrorCode =
  | "malformed_credential"
  | "payment_mismatch"
  | "payment_expired"
  | "verification_failed"
  | "payment_replayed"
  | "invalid_challenge"
  | "method_unsupported"
  | "settlement_failed"
  | "facilitator_unavailable";

const MARKER = Symbol.for("mailpiece.payment_error");

export class PaymentError extends Error {
  readonly code: PaymentErrorCode;
  readonly [MARKER] = true;

  constructor(code: PaymentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PaymentError";
    this.code = code;
  }

  static isInstance(value: unknown): value is PaymentError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

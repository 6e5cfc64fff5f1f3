import { defineError } from "@mailpiece/errors";

/**
 * The PaymentRail port: one per payment protocol (x402, MPP, test rails). A rail turns a price into a payment
 * challenge, reads the credential a client sends back, verifies it against the same price, settles it, and, when
 * a settlement was pending or its answer was lost, confirms where it stands. The core decides when to call each
 * step; the rail never touches orders.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit.
 * - `challenge` MUST be deterministic for one `Charge` apart from fields the protocol requires to be fresh (an MPP
 *   challenge id and expiry); x402 requirements for one Charge MUST be identical on every call, so a paid retry
 *   matches the 402 it answered.
 * - `parseCredential` MUST resolve undefined for a value that is not this rail's credential (an `Authorization`
 *   header of another scheme), and reject with a `PaymentError` with code `malformed_credential` for one that is
 *   this rail's and cannot be decoded. It is asynchronous so that a rail may load its protocol library on first
 *   use (see `lazyPaymentRail`). `readCredential(headers)` MUST answer what `parseCredential` answers for the
 *   value of the `credentialHeader` header, and undefined when the request has none.
 * - `verify` MUST refuse a credential whose amount, asset, currency, payee, network or resource differs from the
 *   Charge (`payment_mismatch`; `invalid_challenge` where the protocol binds those terms into the challenge, as
 *   MPP's HMAC id does), an expired one (`payment_expired`), and one whose signature or binding does not check
 *   (`verification_failed`, or `invalid_challenge` for a broken challenge binding), without settling anything.
 * - `verify` MUST return a `replayKey` that is equal for every credential that could settle the same funds (x402:
 *   network, asset, payer and nonce; MPP: the challenge id). The core claims it atomically before `settle`, so one
 *   credential settles at most once.
 * - `VerifiedPayment.details` MUST survive a JSON round trip: the core stores it, and `settle` and `confirm` MUST
 *   accept it as read back.
 * - `settle` MUST be called only after `verify` succeeded and its replay key was claimed; it MUST NOT be retried
 *   for one replay key once it returned or threw an ambiguous failure, and MUST report `pending` (never success)
 *   when the outcome is not yet final. It MUST throw a code of `DEFINITE_SETTLE_FAILURES` only when no money moved.
 * - Receipt headers MUST be produced only for a successful or pending settlement, never for an error.
 * - `confirm` MUST NOT move money. It MUST be safe to call any number of times, also concurrently and from another
 *   process or another rail instance with the same configuration, and those calls MUST agree. It MUST answer a
 *   full `Settlement` with status `settled` (reference, amount, settledAt and details, so that `receiptHeaders`
 *   works) only for funds that arrived; `failed` only when they never will (the credential can no longer settle);
 *   `pending` otherwise.
 */
export interface PaymentRail {
  /** The protocol as named in responses and logs. */
  readonly protocol: PaymentProtocol;
  /** True when settlement is simulated (development and tests); the server says so loudly at start. */
  readonly simulated: boolean;

  /**
   * The answer for an unpaid request: status 402 with fresh challenges, headers and body. With `failure`, the
   * answer to a payment that was refused: the same challenges (so the client can pay again) and a body that says
   * why in the protocol's own terms; the status is 402, or what the protocol prescribes for that failure.
   */
  challenge(charge: Charge, failure?: PaymentError): Promise<PaymentChallenge>;

  /**
   * The lower-case name of the HTTP header that carries this rail's credential: `payment-signature` for x402,
   * `authorization` for MPP. Surfaces other than HTTP (an MCP tool argument) carry the same value under their own
   * name and hand it to `parseCredential`.
   */
  readonly credentialHeader: string;

  /**
   * Reads this rail's credential from its raw transport value (the header value, or the same string passed as a
   * tool argument): undefined when the value is not this rail's (another scheme), `PaymentError`
   * `malformed_credential` when it is and does not decode.
   */
  parseCredential(value: string): Promise<PaymentCredential | undefined>;

  /** Reads this rail's credential from request headers: `parseCredential` of the `credentialHeader` value. */
  readCredential(headers: Headers): Promise<PaymentCredential | undefined>;

  /** Checks the credential against the charge without moving money. */
  verify(credential: PaymentCredential, charge: Charge): Promise<VerifiedPayment>;

  /** Moves the money. */
  settle(payment: VerifiedPayment, charge: Charge): Promise<Settlement>;

  /** Headers that tell the client the payment went through (PAYMENT-RESPONSE, Payment-Receipt). */
  receiptHeaders(settlement: Settlement): Record<string, string>;

  /**
   * Where a settlement that was `pending`, or whose answer was lost (a crash, a timeout, an ambiguous error),
   * stands now; see the contract. The core asks only after a settle lease has passed since settle began, so no
   * settle of this payment is still running anywhere. A rejection means "ask again later", like `pending`.
   * Optional for rails whose settlements are always final in `settle`.
   */
  confirm?(payment: PaymentToConfirm): Promise<PaymentConfirmation>;
}

/**
 * How a payment is made: `x402` and `mpp` are paid per request by the client; `checkout` is a card payment taken
 * on a hosted checkout with a shared payment token (the CheckoutPayments port, behind the core's checkout rail).
 */
export type PaymentProtocol = "x402" | "mpp" | "checkout";

/** What the core knows about a payment it asks `confirm` about. */
export interface PaymentToConfirm {
  replayKey: string;
  amount_cents: number;
  /** `VerifiedPayment.details` exactly as verify returned it, after a JSON round trip through the store. */
  details: unknown;
  /** The reference settle returned, when it returned one (a pending settlement). */
  reference?: string;
  /** When settle began, milliseconds since the epoch. */
  startedAt: number;
}

/** The answer of `confirm`: the settlement when the funds arrived, or why they did not (yet). */
export type PaymentConfirmation =
  | Settlement
  | { status: "pending" }
  | { status: "failed"; code: PaymentErrorCode; message: string };

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
  protocol: PaymentProtocol;
  /** The raw header value, for logs as a short digest only. */
  raw: string;
  decoded: unknown;
}

export interface VerifiedPayment {
  protocol: PaymentProtocol;
  /** Claimed atomically by the core before settling; see the contract. */
  replayKey: string;
  /** Who paid, when the protocol says (an address or a DID). */
  payer?: string;
  amount_cents: number;
  /** Rail-specific data `settle` and `confirm` need; plain JSON, so the core can store it (see the contract). */
  details: unknown;
}

export interface Settlement {
  protocol: PaymentProtocol;
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
  | "payment_declined"
  | "requires_action"
  | "invalid_payment_token"
  | "facilitator_unavailable";

/**
 * The codes `settle` throws when it is certain that no money moved, so the record is unpaid again and the buyer may
 * pay again: a settlement refused by the network or facilitator, a card declined, a card that needs the buyer to
 * authenticate (3-D Secure), a payment token the provider does not know. Any other failure of `settle` leaves the
 * outcome unknown, and the payment is confirmed later, never settled again.
 */
export const DEFINITE_SETTLE_FAILURES: ReadonlySet<PaymentErrorCode> = new Set<PaymentErrorCode>([
  "settlement_failed",
  "payment_declined",
  "requires_action",
  "invalid_payment_token",
]);

/** The error of the payment port. `code` is a stable wire contract; `message` is for people. */
export class PaymentError extends defineError<PaymentErrorCode>("PaymentError") {}

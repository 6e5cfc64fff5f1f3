import { portRequirement, type Requirement } from "../kit.ts";
import type { PaymentRailContractName } from "./payment-rail-contract.ts";

const port = (sentence: string) => portRequirement("PaymentRail", "Contracts", sentence);

const PARSE = port(
  "`parseCredential` MUST resolve undefined for a value that is not this rail's credential … and reject with a `PaymentError` with code `malformed_credential` for one that is this rail's and cannot be decoded.",
);
const MISMATCH = port(
  "`verify` MUST refuse a credential whose amount, asset, currency, payee, network or resource differs from the Charge (`payment_mismatch`; `invalid_challenge` where the protocol binds those terms into the challenge, as MPP's HMAC id does)",
);
const SETTLE = port(
  "`settle` … MUST NOT be retried for one replay key once it returned or threw an ambiguous failure, and MUST report `pending` (never success) when the outcome is not yet final. It MUST throw a code of `DEFINITE_SETTLE_FAILURES` only when no money moved.",
);
const CONFIRM_SETTLED = port(
  "It MUST answer a full `Settlement` with status `settled` (reference, amount, settledAt and details, so that `receiptHeaders` works) only for funds that arrived; `failed` only when they never will (the credential can no longer settle); `pending` otherwise.",
);

/** The MUST sentence of the PaymentRail port (adapters/ports/src/payment-rail.ts) that each test checks. */
export const PAYMENT_RAIL_REQUIREMENTS: Readonly<Record<PaymentRailContractName, Requirement>> = {
  "challenge is deterministic for one charge": port(
    "`challenge` MUST be deterministic for one `Charge` apart from fields the protocol requires to be fresh (an MPP challenge id and expiry)",
  ),
  "readCredential returns undefined when the request carries no credential": port(
    "`readCredential(headers)` MUST answer what `parseCredential` answers for the value of the `credentialHeader` header, and undefined when the request has none.",
  ),
  "readCredential refuses an undecodable credential with malformed_credential": PARSE,
  "verify refuses a credential for another amount with payment_mismatch": MISMATCH,
  "verify refuses a credential for another resource with payment_mismatch": MISMATCH,
  "verify refuses a tampered credential with payment_mismatch or invalid_challenge": MISMATCH,
  "verify refuses an expired credential with payment_expired": port(
    "`verify` MUST refuse … an expired one (`payment_expired`)",
  ),
  "verify refuses a credential whose signature or binding does not check with verification_failed or invalid_challenge":
    port(
      "`verify` MUST refuse … one whose signature or binding does not check (`verification_failed`, or `invalid_challenge` for a broken challenge binding), without settling anything.",
    ),
  "verify moves no money": port("`verify` MUST refuse … without settling anything."),
  "verify returns one replayKey for every copy of a credential and another for another payment": port(
    "`verify` MUST return a `replayKey` that is equal for every credential that could settle the same funds (x402: network, asset, payer and nonce; MPP: the challenge id).",
  ),
  "settle reports a final settlement as settled with a reference": SETTLE,
  "settle reports pending, never success, when the outcome is not final": SETTLE,
  "settle moves the funds of one credential at most once": port(
    "The core claims it atomically before `settle`, so one credential settles at most once.",
  ),
  "receipt headers exist for settled and pending settlements": port(
    "Receipt headers MUST be produced only for a successful or pending settlement, never for an error.",
  ),
  "parseCredential reads the credentialHeader value as readCredential reads the request": port(
    "`readCredential(headers)` MUST answer what `parseCredential` answers for the value of the `credentialHeader` header",
  ),
  "verified details survive a JSON round trip": port(
    "`VerifiedPayment.details` MUST survive a JSON round trip: the core stores it, and `settle` and `confirm` MUST accept it as read back.",
  ),
  "confirm answers settled with the settlement's reference after a settle": CONFIRM_SETTLED,
  "confirm never answers settled for a payment that was never settled": CONFIRM_SETTLED,
  "confirm moves no money": port("`confirm` MUST NOT move money."),
  "confirm answers alike when called concurrently and from another rail instance": port(
    "It MUST be safe to call any number of times, also concurrently and from another process or another rail instance with the same configuration, and those calls MUST agree.",
  ),
  "confirm answers settled when settle lost its answer after the money moved": CONFIRM_SETTLED,
  "confirm never answers settled when settle failed before the money moved": CONFIRM_SETTLED,
};

import { portRequirement, type Requirement } from "../kit.ts";
import type { CheckoutPaymentsContractName } from "./checkout-payments-contract.ts";

const port = (section: string, sentence: string) => portRequirement("CheckoutPayments", section, sentence);

const ONCE = port(
  "Contracts",
  "`charge` MUST move the amount at most once per `idempotency_key`, also when called again, concurrently, or from another process: a second call with the same key and terms MUST answer the first call's outcome (the same `reference`)",
);
const REFUSALS = port(
  "Contracts",
  "A token that is not a shared payment token (no `spt_` prefix, or one the provider does not know) MUST be refused with `invalid_token`; a declined payment with `payment_declined`; a payment that needs the buyer to authenticate (3-D Secure) with `requires_action`. None of them moves money.",
);
const UNAVAILABLE = port(
  "Contracts",
  "A provider that cannot be reached, or whose answer was lost, MUST throw `provider_unavailable`; the caller asks again with the same key, which answers the outcome that happened.",
);
const NO_TOKEN = port("Contracts", "Errors carry no token, secret or card data.");
const SAVE = port(
  "Saved payment methods",
  "`saveMethod` MUST keep the card behind a shared payment token for later off-session charges, under the provider customer given (or one it makes when none is given), and move no money.",
);
const SAVE_IDEMPOTENT = port(
  "Saved payment methods",
  "It is idempotent like `charge`: a repeat with the same key and terms answers the same saved method, other terms are `idempotency_conflict`.",
);
const CHARGE_SAVED = port(
  "Saved payment methods",
  "`chargeSaved` MUST charge a method that `saveMethod` answered, under its customer, at most once per `idempotency_key`, with the same replay and conflict rules as `charge`.",
);

/** The MUST sentence of the CheckoutPayments port (adapters/ports/src/checkout-payments.ts) that each test checks. */
export const CHECKOUT_PAYMENTS_REQUIREMENTS: Readonly<Record<CheckoutPaymentsContractName, Requirement>> = {
  "charge answers a well-formed receipt for the amount charged": ONCE,
  "a repeat under the same key and terms answers the first receipt": ONCE,
  "concurrent calls under one key charge once and answer one reference": ONCE,
  "different keys make different charges": ONCE,
  "the same key with other terms is refused with idempotency_conflict, changing nothing": port(
    "Contracts",
    "a call with the same key and other terms MUST be refused with `idempotency_conflict`.",
  ),
  "a token that is not a shared payment token, or one the provider does not know, is refused with invalid_token":
    REFUSALS,
  "a declined payment is refused with payment_declined, also on a repeat": REFUSALS,
  "a payment that needs authentication is refused with requires_action, also on a repeat": REFUSALS,
  "an amount that is not a positive integer or a currency other than usd is refused with invalid_request":
    port(
      "Contracts",
      '`amount_cents` MUST be a positive integer and `currency` "usd"; anything else is `invalid_request`.',
    ),
  "after a lost answer a retry under the same key answers the charge that happened": UNAVAILABLE,
  "after an unreachable provider a retry under the same key charges once": UNAVAILABLE,
  "errors are CheckoutPaymentErrors that carry no token": NO_TOKEN,
  "saveMethod answers a saved method under the given customer, or under a new one, that chargeSaved can charge":
    SAVE,
  "a repeat of saveMethod under one key, also concurrent, answers the same method; other terms are idempotency_conflict":
    SAVE_IDEMPOTENT,
  "saveMethod refuses tokens as charge does, and the refusal holds its key": port(
    "Saved payment methods",
    "Tokens are refused as `charge` refuses them (`invalid_token`, `payment_declined`, `requires_action`); nothing is saved then.",
  ),
  "chargeSaved charges once per key, also for five concurrent calls, and a repeat answers the first receipt":
    CHARGE_SAVED,
  "chargeSaved with other terms under a used key is refused with idempotency_conflict, changing nothing":
    CHARGE_SAVED,
  "chargeSaved of a method or customer the provider does not know, or of another customer's method, is refused with invalid_token":
    port(
      "Saved payment methods",
      "A method or customer the provider does not know, or a method of another customer, is `invalid_token`",
    ),
  "a saved card declined off-session is refused with payment_declined, also on a repeat": port(
    "Saved payment methods",
    "a card refused off-session is `payment_declined`, one that needs its holder to authenticate is `requires_action`; neither moves money.",
  ),
  "saveMethod and chargeSaved refuse malformed requests with invalid_request": port(
    "Contracts",
    '`amount_cents` MUST be a positive integer and `currency` "usd"; anything else is `invalid_request`.',
  ),
  "after a lost answer or an unreachable provider a chargeSaved retry under the same key answers one charge":
    UNAVAILABLE,
  "saveMethod and chargeSaved errors carry no token": NO_TOKEN,
};

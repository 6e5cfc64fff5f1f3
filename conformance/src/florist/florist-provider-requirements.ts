import { portRequirement, type Requirement } from "../kit.ts";
import type { FloristProviderContractName } from "./florist-provider-contract.ts";

const port = (section: string, sentence: string) => portRequirement("FloristProvider", section, sentence);

const IDEMPOTENT = port(
  "Submitting",
  "`submit` MUST be idempotent by key: every later or concurrent submit of the same order under a key already accepted MUST return the same `reference` with `idempotent_replay: true` (exactly one caller gets `false`), also when the delivery date could no longer be booked, and MUST NOT place a second order.",
);
const STATUS = port(
  "Following",
  "`status(reference)` MUST return the order's current status and every event so far, oldest first, the last one carrying the current status; an unknown reference MUST be refused with `order_not_found`.",
);

/** The MUST sentence of the FloristProvider port (adapters/ports/src/florist-provider.ts) that each test checks. */
export const FLORIST_PROVIDER_REQUIREMENTS: Readonly<Record<FloristProviderContractName, Requirement>> = {
  "catalogue lists distinct, well-formed products, each accepted by quote and submit": port(
    "Catalogue",
    '`catalogue()` MUST list every product `quote` and `submit` accept, each with a distinct `code`, a non-empty `name` and `description`, a non-negative integer `price_cents` and `currency` `"usd"`.',
  ),
  "a product code absent from the catalogue is refused with product_unknown": port(
    "Catalogue",
    "A product code absent from the catalogue MUST be refused with `product_unknown` by `deliveryDates`, `quote` and `submit`.",
  ),
  "coverage is true only for a covered place, false with a reason for any other string, and never throws":
    port(
      "Coverage",
      "`coverage(zip, country)` MUST answer `covered: true` only for a place the provider delivers to, and `covered: false` with a reason for every other one … it MUST NOT throw for a well-typed string it does not know.",
    ),
  "deliveryDates, quote and submit refuse a place coverage does not cover with zip_not_covered": port(
    "Coverage",
    "`deliveryDates`, `quote` and `submit` MUST refuse a place that `coverage` does not cover with `zip_not_covered`.",
  ),
  "deliveryDates returns ascending distinct YYYY-MM-DD dates, none before from or the provider's today": port(
    "Delivery dates",
    "`deliveryDates(product_code, zip, { from })` MUST return the dates the product can be delivered to that place, as `YYYY-MM-DD` strings in ascending order without repeats, none before `from` … and none before the provider's today on its own clock.",
  ),
  "every date deliveryDates returns is accepted by quote and submit, every other refused with delivery_date_unavailable":
    port(
      "Delivery dates",
      "Every date `deliveryDates` returns MUST be accepted by `quote` and by `submit` at the same moment; every other date MUST be refused by both with `delivery_date_unavailable`.",
    ),
  "a from or delivery_date that is not a YYYY-MM-DD calendar date is refused with invalid_request naming it":
    port(
      "Delivery dates",
      "A `from` or `delivery_date` that is not a calendar date in `YYYY-MM-DD` form MUST be refused with `invalid_request`, naming the argument in `field`.",
    ),
  "quote returns non-negative integer cents whose parts and lines add up to total_cents": port(
    "Quotes",
    "`quote` MUST return non-negative integer cents with `total_cents` equal to `product_cents + delivery_cents + service_fee_cents + tax_cents`, and `lines` whose amounts add up to `total_cents`.",
  ),
  "submit accepts the price of a quote shown earlier": port(
    "Quotes",
    "a caller that asks for payment MUST keep the quote it showed, and the provider MUST accept a `submit` at that price.",
  ),
  "submit refuses a malformed order with invalid_order and a malformed key with invalid_idempotency_key":
    port(
      "Submitting",
      "`submit` MUST refuse a malformed order (`findFloristOrderProblem`) with `invalid_order`, and a key that does not match `FLORIST_IDEMPOTENCY_KEY_PATTERN` with `invalid_idempotency_key`.",
    ),
  "submit is idempotent by key: a repeat returns the same reference as a replay, also once the date has passed":
    IDEMPOTENT,
  "submit is idempotent under concurrent callers: one order, one reference, one original": IDEMPOTENT,
  "submit refuses a different order under a used key with idempotency_conflict, changing nothing": port(
    "Submitting",
    "`submit` of a different order under a key already used MUST be refused with `idempotency_conflict`, changing nothing.",
  ),
  "different keys give different orders with different references": port(
    "Submitting",
    "Different keys MUST give different orders with different references.",
  ),
  "a definite refusal places no order and leaves its key free": port(
    "Submitting",
    "A definite refusal (`isDefiniteFloristRefusal`: every code but `florist_unavailable`) MUST mean the refused submit placed no order.",
  ),
  "a retry after florist_unavailable under the same key places no second order": port(
    "Submitting",
    "After `florist_unavailable` or a network error the outcome is unknown; the caller MAY submit again under the same key and the same order, which MUST NOT place a second one.",
  ),
  "status reports the current status and every event so far, oldest first": STATUS,
  "status refuses an unknown reference with order_not_found": STATUS,
  "status only moves forward, final statuses stay, and an event once reported never changes": port(
    "Following",
    "The status MUST only move forward along `accepted` -> `out_for_delivery` -> `delivered` | `failed` (a poll may skip steps); the last two are final. An event once reported MUST be reported again unchanged and in the same place.",
  ),
  "every failure is a FloristError with a code of FloristErrorCode": port(
    "Errors",
    "Every failure the adapter reports MUST be a `FloristError` with one of the codes of `FloristErrorCode`.",
  ),
};

import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * The FloristProvider port: a florist network that sells arrangements and delivers them, with a card note, to a
 * recipient on a chosen date (the simulated florist, real florist wire services). The core reads its catalogue,
 * coverage, delivery dates and prices to validate and quote a flower letter before asking for payment, then
 * submits the paid order under an idempotency key and follows its delivery.
 *
 * Contracts. An adapter MUST satisfy every sentence below.
 *
 * Catalogue
 * - `catalogue()` MUST list every product `quote` and `submit` accept, each with a distinct `code`, a non-empty
 *   `name` and `description`, a non-negative integer `price_cents` and `currency` `"usd"`.
 * - A product code absent from the catalogue MUST be refused with `product_unknown` by `deliveryDates`, `quote`
 *   and `submit`.
 *
 * Coverage
 * - `coverage(zip, country)` MUST answer `covered: true` only for a place the provider delivers to, and
 *   `covered: false` with a reason for every other one, including a ZIP that is not a postal code of `country`;
 *   it MUST NOT throw for a well-typed string it does not know.
 * - `deliveryDates`, `quote` and `submit` MUST refuse a place that `coverage` does not cover with
 *   `zip_not_covered`.
 *
 * Delivery dates
 * - `deliveryDates(product_code, zip, { from })` MUST return the dates the product can be delivered to that
 *   place, as `YYYY-MM-DD` strings in ascending order without repeats, none before `from` (default: the
 *   provider's today) and none before the provider's today on its own clock.
 * - Every date `deliveryDates` returns MUST be accepted by `quote` and by `submit` at the same moment; every other
 *   date MUST be refused by both with `delivery_date_unavailable`. The rules behind the dates (a same-day cutoff,
 *   closed days, blackout dates, a lead time, a furthest day ahead) are the provider's.
 * - A `from` or `delivery_date` that is not a calendar date in `YYYY-MM-DD` form MUST be refused with
 *   `invalid_request`, naming the argument in `field`.
 *
 * Quotes
 * - `quote` MUST return non-negative integer cents with `total_cents` equal to `product_cents + delivery_cents +
 *   service_fee_cents + tax_cents`, and `lines` whose amounts add up to `total_cents`.
 * - Prices MAY change with the date, the place and time (dynamic pricing); a caller that asks for payment MUST
 *   keep the quote it showed, and the provider MUST accept a `submit` at that price.
 *
 * Submitting
 * - `submit` MUST refuse a malformed order (`findFloristOrderProblem`) with `invalid_order`, and a key that does
 *   not match `FLORIST_IDEMPOTENCY_KEY_PATTERN` with `invalid_idempotency_key`.
 * - `submit` MUST be idempotent by key: every later or concurrent submit of the same order under a key already
 *   accepted MUST return the same `reference` with `idempotent_replay: true` (exactly one caller gets `false`),
 *   also when the delivery date could no longer be booked, and MUST NOT place a second order.
 * - `submit` of a different order under a key already used MUST be refused with `idempotency_conflict`, changing
 *   nothing. Different keys MUST give different orders with different references.
 * - A definite refusal (`isDefiniteFloristRefusal`: every code but `florist_unavailable`) MUST mean the refused
 *   submit placed no order. After `florist_unavailable` or a network error the outcome is unknown; the caller MAY
 *   submit again under the same key and the same order, which MUST NOT place a second one.
 *
 * Following
 * - `status(reference)` MUST return the order's current status and every event so far, oldest first, the last
 *   one carrying the current status; an unknown reference MUST be refused with `order_not_found`.
 * - The status MUST only move forward along `accepted` -> `out_for_delivery` -> `delivered` | `failed` (a poll
 *   may skip steps); the last two are final. An event once reported MUST be reported again unchanged and in the
 *   same place.
 *
 * Errors
 * - Every failure the adapter reports MUST be a `FloristError` with one of the codes of `FloristErrorCode`.
 */
export interface FloristProvider {
  /** A short name for logs, reports and routing, e.g. `simulated`. */
  readonly name: string;
  /** True when nothing is really delivered (development and tests); the server says so loudly at start. */
  readonly simulated: boolean;

  /** Every product on sale, in the provider's order. */
  catalogue(): Promise<FloristProduct[]>;
  /** Whether the provider delivers to a postal code of a country (upper-case ISO 3166-1 alpha-2). */
  coverage(zip: string, country: string): Promise<FloristCoverage>;
  /** The dates a product can be delivered to a place, from `from` (default today) on. */
  deliveryDates(productCode: string, zip: string, options?: DeliveryDatesOptions): Promise<string[]>;
  /** The price of one product delivered to one place on one date. */
  quote(request: FloristQuoteRequest): Promise<FloristQuote>;
  /** Places one order under `idempotencyKey`. */
  submit(order: FloristOrder, options: { idempotencyKey: string }): Promise<FloristSubmitResult>;
  /** Where the order is now, with its events. */
  status(reference: string): Promise<FloristOrderView>;
}

/** One product of the catalogue. */
export interface FloristProduct {
  /** Stable product code, 1 to 64 letters, digits, `-` or `_`. */
  code: string;
  name: string;
  description: string;
  /** The product alone, before delivery, fees and tax; integer US cents. */
  price_cents: number;
  currency: "usd";
}

export type FloristCoverage =
  | { covered: true; zip: string; country: string }
  | { covered: false; zip: string; country: string; reason: string };

export interface DeliveryDatesOptions {
  /** First date to consider, `YYYY-MM-DD`; default the provider's today. */
  from?: string;
  /** Upper-case ISO 3166-1 alpha-2; default `US`. */
  country?: string;
}

export interface FloristQuoteRequest {
  product_code: string;
  zip: string;
  /** `YYYY-MM-DD`. */
  delivery_date: string;
  /** Upper-case ISO 3166-1 alpha-2; default `US`. */
  country?: string;
}

/** One line of a quote: what it is for and how much, for people. */
export interface FloristQuoteLine {
  /** Stable snake_case code, e.g. `product`, `delivery`, `holiday_surcharge`, `rural_surcharge`, `tax`. */
  code: string;
  label: string;
  amount_cents: number;
}

export interface FloristQuote {
  product_code: string;
  zip: string;
  country: string;
  delivery_date: string;
  product_cents: number;
  /** Delivery with every surcharge of the date and the place. */
  delivery_cents: number;
  service_fee_cents: number;
  tax_cents: number;
  total_cents: number;
  currency: "usd";
  /** Oldest first; the amounts add up to `total_cents`. */
  lines: FloristQuoteLine[];
}

/** Who receives the arrangement. */
export interface FloristRecipient {
  name: string;
  /** The driver calls it when nobody answers the door. */
  phone: string;
  address1: string;
  city: string;
  state: string;
  zipcode: string;
  /** Upper-case ISO 3166-1 alpha-2. */
  country: string;
}

/** Who sends it: the florist's contact for substitutions and delivery problems. */
export interface FloristCustomer {
  name: string;
  email: string;
  phone?: string;
  address1?: string;
  city?: string;
  state?: string;
  zipcode?: string;
  /** Upper-case ISO 3166-1 alpha-2. */
  country: string;
}

/** One order to place. */
export interface FloristOrder {
  product_code: string;
  /** `YYYY-MM-DD`. */
  delivery_date: string;
  /** Printed on the card; 0 to `FLORIST_CARD_NOTE_MAX_CHARS` characters. */
  card_note: string;
  /** The florist may replace flowers that are out of season with others of the same style and value. */
  allow_substitutions: boolean;
  recipient: FloristRecipient;
  customer: FloristCustomer;
  /** The total the customer was quoted and paid, in integer US cents. */
  total_cents: number;
}

/** An order's status at its florist. */
export type FloristOrderStatus = "accepted" | "out_for_delivery" | "delivered" | "failed";

export const FLORIST_ORDER_STATUSES: readonly FloristOrderStatus[] = Object.freeze([
  "accepted",
  "out_for_delivery",
  "delivered",
  "failed",
]);

/** Statuses an order never leaves. */
export const FINAL_FLORIST_ORDER_STATUSES: readonly FloristOrderStatus[] = Object.freeze([
  "delivered",
  "failed",
]);

export interface FloristEvent {
  /** The order's status once this event happened. */
  status: FloristOrderStatus;
  /** ISO 8601 date-time in UTC. */
  at: string;
  /** What happened, for people. */
  description: string;
  location?: string;
}

export interface FloristOrderView {
  reference: string;
  status: FloristOrderStatus;
  product_code: string;
  delivery_date: string;
  /** ISO 8601 date-time in UTC. */
  submitted_at: string;
  /** Oldest first; the last one carries `status`. */
  events: FloristEvent[];
}

export interface FloristSubmitResult extends FloristOrderView {
  /** True when the key had already been accepted and this answer is the original order. */
  idempotent_replay: boolean;
}

/** Idempotency keys: letters, digits, `.`, `_`, `-` and `:`, starting with a letter or digit, 1 to 255 long. */
export const FLORIST_IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$/;

/** The longest card note, in characters (Unicode code points). */
export const FLORIST_CARD_NOTE_MAX_CHARS = 200;

/** Stable codes of florist failures; apps map them to HTTP in one place. */
export type FloristErrorCode =
  /** An argument is malformed (a date that is not `YYYY-MM-DD`); `field` names it. */
  | "invalid_request"
  /** The order is malformed (`findFloristOrderProblem`); `field` names the part at fault. */
  | "invalid_order"
  /** The idempotency key does not match `FLORIST_IDEMPOTENCY_KEY_PATTERN`. */
  | "invalid_idempotency_key"
  /** No product of the catalogue has this code. */
  | "product_unknown"
  /** The provider does not deliver to this postal code. */
  | "zip_not_covered"
  /** The product cannot be delivered there on that date. */
  | "delivery_date_unavailable"
  /** The key was used before for a different order. */
  | "idempotency_conflict"
  /** No order has this reference. */
  | "order_not_found"
  /** The provider could not be reached or did not answer; the outcome of the call is unknown. */
  | "florist_unavailable";

export const FLORIST_ERROR_CODES: readonly FloristErrorCode[] = Object.freeze([
  "invalid_request",
  "invalid_order",
  "invalid_idempotency_key",
  "product_unknown",
  "zip_not_covered",
  "delivery_date_unavailable",
  "idempotency_conflict",
  "order_not_found",
  "florist_unavailable",
]);

const FloristErrorBase = defineError<FloristErrorCode>("FloristError");

/** The error of the florist port. `code` is a stable wire contract; `message` is for people. */
export class FloristError extends FloristErrorBase {
  /** The argument or order field at fault, e.g. `delivery_date` or `recipient.phone`. */
  readonly field: string | undefined;

  constructor(code: FloristErrorCode, message: string, options?: ErrorOptions & { field?: string }) {
    super(code, message, options);
    this.field = options?.field;
  }

  /** True for any FloristError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is FloristError {
    return FloristErrorBase.isInstance(value);
  }
}

/** True when a failed `submit` certainly placed no order; false when the outcome is unknown. */
export function isDefiniteFloristRefusal(error: unknown): boolean {
  return FloristError.isInstance(error) && error.code !== "florist_unavailable";
}

/** Why an order is malformed: the field at fault and a sentence for people. */
export interface FloristOrderProblem {
  field: string;
  message: string;
}

const COUNTRY = /^[A-Z]{2}$/;
const PRODUCT_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** True when `value` is a calendar date written `YYYY-MM-DD` (years 1000 to 9999). */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1000 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The first thing malformed in `order`, or undefined when it is well-formed. */
export function findFloristOrderProblem(order: FloristOrder): FloristOrderProblem | undefined {
  if (typeof order !== "object" || order === null)
    return { field: "", message: "an order must be an object" };
  if (typeof order.product_code !== "string" || !PRODUCT_CODE.test(order.product_code)) {
    return { field: "product_code", message: "product_code must be 1 to 64 letters, digits, '-' or '_'" };
  }
  if (!isIsoDate(order.delivery_date)) {
    return { field: "delivery_date", message: "delivery_date must be a calendar date, YYYY-MM-DD" };
  }
  if (typeof order.card_note !== "string" || codePoints(order.card_note) > FLORIST_CARD_NOTE_MAX_CHARS) {
    return {
      field: "card_note",
      message: `card_note must be a string of at most ${FLORIST_CARD_NOTE_MAX_CHARS} characters`,
    };
  }
  if (typeof order.allow_substitutions !== "boolean") {
    return { field: "allow_substitutions", message: "allow_substitutions must be a boolean" };
  }
  if (!Number.isSafeInteger(order.total_cents) || order.total_cents < 0) {
    return { field: "total_cents", message: "total_cents must be a non-negative integer" };
  }
  return (
    partyProblem(
      order.recipient,
      "recipient",
      ["name", "phone", "address1", "city", "state", "zipcode"],
      [],
    ) ??
    partyProblem(
      order.customer,
      "customer",
      ["name", "email"],
      ["phone", "address1", "city", "state", "zipcode"],
    )
  );
}

function partyProblem(
  party: object | undefined,
  at: string,
  required: readonly string[],
  optional: readonly string[],
): FloristOrderProblem | undefined {
  if (typeof party !== "object" || party === null) return { field: at, message: `${at} must be an object` };
  const values = party as Record<string, unknown>;
  for (const key of [...required, ...optional]) {
    const value = values[key];
    if (value === undefined && optional.includes(key)) continue;
    if (typeof value !== "string" || value.trim().length === 0 || value.length > 256) {
      return { field: `${at}.${key}`, message: `${at}.${key} must be 1 to 256 characters` };
    }
  }
  if (typeof values.country !== "string" || !COUNTRY.test(values.country)) {
    return { field: `${at}.country`, message: `${at}.country must be an upper-case ISO 3166-1 alpha-2 code` };
  }
  return undefined;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

import {
  type Clock,
  FLORIST_IDEMPOTENCY_KEY_PATTERN,
  FloristError,
  type FloristProvider,
  type FloristQuote,
  type FloristSubmitResult,
  findFloristOrderProblem,
  type IdGenerator,
  isIsoDate,
  randomIds,
  type Store,
  type StoredRecord,
} from "@mailpiece/ports";
import { publicProduct, resolveCatalogue, SIMULATED_CATALOGUE, type SimulatedProduct } from "./catalogue.ts";
import { coverageOf } from "./coverage.ts";
import { deliveryDatesAt, todayAt } from "./delivery-dates.ts";
import { type FloristPace, resolvePace } from "./pace.ts";
import { priceOf } from "./price-rules.ts";
import { type FloristRules, resolveRules } from "./rules.ts";
import { keptOrder, orderFingerprint, type SimulatedFloristRecord, viewAt } from "./simulated-order.ts";
import { losesFirstAnswer, outcomeFor } from "./test-phrases.ts";

export interface SimulatedFloristOptions {
  /** Where orders live; a shared Store (Redis) lets several processes serve one simulated florist. */
  store: Store;
  clock: Clock;
  /** Makes order references; default random UUIDs. */
  ids?: IdGenerator;
  /** Default `SIMULATED_CATALOGUE`: seven arrangements from 29.99 to 229.99. */
  catalogue?: readonly SimulatedProduct[];
  /** Default: out for delivery at 09:00 and delivered at 14:00 local time on the delivery date. */
  pace?: Partial<FloristPace>;
  /** Time zone, cutoff, closed days, fees and coverage; default `DEFAULT_RULES`. */
  rules?: Partial<FloristRules>;
  /** Lower-case letters, digits and `-`; names the Store keys (`florist:<name>:...`). Default `simulated`. */
  name?: string;
}

export interface SimulatedFlorist extends FloristProvider {
  readonly pace: Readonly<FloristPace>;
  readonly rules: Readonly<FloristRules>;
}

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

interface ReferenceIndex {
  idempotency_key: string;
}

/**
 * A FloristProvider that delivers nothing: orders are kept in the Store, dates and prices follow the rules and
 * the injected clock, and each order's story (accepted, out for delivery, delivered) is read from the clock
 * whenever `status` is asked. Phrases in the recipient's `address1` script other endings (`FLORIST_TEST_PHRASES`).
 */
export function createSimulatedFlorist(options: SimulatedFloristOptions): SimulatedFlorist {
  const { store, clock } = options;
  const ids = options.ids ?? randomIds;
  const name = options.name ?? "simulated";
  if (!NAME.test(name)) {
    throw new TypeError(
      `name must be lower-case letters, digits and "-" (at most 64), got ${JSON.stringify(name)}`,
    );
  }
  const products = resolveCatalogue(options.catalogue ?? SIMULATED_CATALOGUE);
  const pace = Object.freeze(resolvePace(options.pace));
  const rules = Object.freeze(resolveRules(options.rules));
  const keyKey = (idempotencyKey: string) => `florist:${name}:key:${idempotencyKey}`;
  const refKey = (reference: string) => `florist:${name}:ref:${reference}`;

  function productOf(code: string): SimulatedProduct {
    const product = typeof code === "string" ? products.find((p) => p.code === code) : undefined;
    if (!product) {
      throw new FloristError(
        "product_unknown",
        `no product of the catalogue has the code ${JSON.stringify(code)}`,
        {
          field: "product_code",
        },
      );
    }
    return product;
  }

  function coveredZip(zip: string, country: string | undefined): { zip: string; country: string } {
    const coverage = coverageOf(zip, country ?? "US", rules);
    if (!coverage.covered) {
      throw new FloristError("zip_not_covered", `no delivery to ${coverage.zip}: ${coverage.reason}`, {
        field: "zip",
      });
    }
    return { zip: coverage.zip, country: coverage.country };
  }

  function checkDate(value: unknown, field: string): string {
    if (!isIsoDate(value)) {
      throw new FloristError("invalid_request", `${field} must be a calendar date, YYYY-MM-DD`, { field });
    }
    return value;
  }

  /** Refuses a date the product cannot be delivered on, naming the next dates that work. */
  function bookableDate(product: SimulatedProduct, date: string): void {
    const dates = deliveryDatesAt(clock.now(), product.lead_days ?? 0, rules);
    if (dates.includes(date)) return;
    const later = dates.filter((d) => d > date).slice(0, 3);
    const next = later.length > 0 ? later : dates.slice(0, 3);
    throw new FloristError(
      "delivery_date_unavailable",
      `${product.name} cannot be delivered on ${date}${next.length > 0 ? `; next available: ${next.join(", ")}` : ""}`,
      { field: "delivery_date" },
    );
  }

  async function loadByReference(reference: string): Promise<StoredRecord<SimulatedFloristRecord>> {
    if (typeof reference !== "string" || !REFERENCE.test(reference)) {
      throw new FloristError("order_not_found", `no order has the reference ${JSON.stringify(reference)}`);
    }
    const index = await store.get<ReferenceIndex>(refKey(reference));
    const record = index && (await store.get<SimulatedFloristRecord>(keyKey(index.value.idempotency_key)));
    if (!record || record.value.reference !== reference) {
      throw new FloristError("order_not_found", `no order has the reference ${reference}`);
    }
    return record;
  }

  function answer(record: SimulatedFloristRecord, replay: boolean, fingerprint: string): FloristSubmitResult {
    if (record.fingerprint !== fingerprint) {
      throw new FloristError(
        "idempotency_conflict",
        `the idempotency key ${record.idempotency_key} was used for a different order (${record.reference})`,
      );
    }
    return { ...viewAt(record, clock.now()), idempotent_replay: replay };
  }

  return {
    name,
    simulated: true,
    pace,
    rules,

    catalogue: () => guard(async () => products.map(publicProduct)),

    coverage: (zip, country) => guard(async () => coverageOf(zip, country, rules)),

    deliveryDates: (productCode, zip, dateOptions) =>
      guard(async () => {
        const product = productOf(productCode);
        coveredZip(zip, dateOptions?.country);
        const from = dateOptions?.from === undefined ? undefined : checkDate(dateOptions.from, "from");
        return deliveryDatesAt(clock.now(), product.lead_days ?? 0, rules, from);
      }),

    quote: (request) =>
      guard(async (): Promise<FloristQuote> => {
        const product = productOf(request.product_code);
        const place = coveredZip(request.zip, request.country);
        const date = checkDate(request.delivery_date, "delivery_date");
        bookableDate(product, date);
        const { today } = todayAt(clock.now(), rules);
        return priceOf({ product, ...place, delivery_date: date, today, rules });
      }),

    submit: (order, submitOptions) =>
      guard(async (): Promise<FloristSubmitResult> => {
        const idempotencyKey = submitOptions?.idempotencyKey;
        if (typeof idempotencyKey !== "string" || !FLORIST_IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
          throw new FloristError(
            "invalid_idempotency_key",
            "an idempotency key is 1 to 255 letters, digits, '.', '_', '-' or ':', starting with a letter or digit",
          );
        }
        const problem = findFloristOrderProblem(order);
        if (problem) throw new FloristError("invalid_order", problem.message, { field: problem.field });
        const kept = keptOrder(order);
        const fingerprint = orderFingerprint(kept);
        // A key already accepted answers with its order, even once the date could no longer be booked.
        const existing = await store.get<SimulatedFloristRecord>(keyKey(idempotencyKey));
        let record: SimulatedFloristRecord;
        let created = false;
        if (existing) {
          record = existing.value;
        } else {
          const product = productOf(kept.product_code);
          try {
            coveredZip(kept.recipient.zipcode, kept.recipient.country);
          } catch (error) {
            throw FloristError.isInstance(error)
              ? new FloristError(error.code, error.message, { field: "recipient.zipcode" })
              : error;
          }
          bookableDate(product, kept.delivery_date);
          const claim = await store.create<SimulatedFloristRecord>(keyKey(idempotencyKey), {
            reference: `flo_${ids.uuid().replaceAll("-", "")}`,
            idempotency_key: idempotencyKey,
            fingerprint,
            submitted_at: clock.now(),
            pace: { ...pace },
            time_zone: rules.timeZone,
            outcome: outcomeFor(kept.recipient),
            order: kept,
          });
          record = claim.record.value;
          created = claim.created;
        }
        // Repeated on every replay: the index may be missing if a process stopped between the two writes.
        await store.create<ReferenceIndex>(refKey(record.reference), { idempotency_key: idempotencyKey });
        const result = answer(record, !created, fingerprint);
        if (created && losesFirstAnswer(kept.recipient)) {
          throw new FloristError(
            "florist_unavailable",
            "the florist did not answer in time (scripted test address SUBMIT TIMEOUT); submit again with the same key",
          );
        }
        return result;
      }),

    status: (reference) => guard(async () => viewAt((await loadByReference(reference)).value, clock.now())),
  };
}

/** Every failure leaves as a FloristError: Store trouble means the outcome is unknown (`florist_unavailable`). */
async function guard<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (FloristError.isInstance(error)) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new FloristError(
      "florist_unavailable",
      `the simulated florist could not reach its store: ${detail}`,
      {
        cause: error,
      },
    );
  }
}

import {
  type Clock,
  FLORIST_IDEMPOTENCY_KEY_PATTERN,
  FloristError,
  type FloristErrorCode,
  type FloristEvent,
  type FloristOrder,
  type FloristOrderStatus,
  type FloristOrderView,
  type FloristProduct,
  type FloristProvider,
  type FloristQuote,
  findFloristOrderProblem,
  isIsoDate,
} from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite } from "../kit.ts";
import {
  FLORIST_PROVIDER_CONTRACT_NAMES,
  type FloristProviderContractName,
  type FloristProviderContractOptions,
  floristProviderContract,
  floristStatusMayFollow,
} from "./florist-provider-contract.ts";

/** Ways to break the small reference florist below, each of which a contract test must catch. */
type Fault =
  | "fractional prices"
  | "unknown product falls back"
  | "coverage throws on strangers"
  | "submit skips coverage"
  | "from reaches before today"
  | "quote takes closed days"
  | "lax dates"
  | "tax outside the total"
  | "price must match now"
  | "no order check"
  | "date checked before key"
  | "racy submit"
  | "ignores order changes"
  | "one order per content"
  | "refusal claims its key"
  | "lost answer retried as a new order"
  | "newest first"
  | "future events"
  | "plain error for unknown reference"
  | "status backwards"
  | "silent refusals";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Product extends FloristProduct {
  lead_days: number;
}

const PRODUCTS: readonly Product[] = [
  {
    code: "roses",
    name: "Roses",
    description: "Twelve red roses.",
    price_cents: 5000,
    currency: "usd",
    lead_days: 0,
  },
  {
    code: "orchid",
    name: "Orchid",
    description: "An orchid in a pot.",
    price_cents: 6000,
    currency: "usd",
    lead_days: 1,
  },
];

interface Order {
  reference: string;
  fingerprint: string;
  submittedAt: number;
  order: FloristOrder;
}

const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (date: string, days: number) => utcDate(Date.parse(`${date}T00:00:00Z`) + days * DAY);
const at = (date: string, hour: number) => Date.parse(`${date}T00:00:00Z`) + hour * HOUR;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * A deliberately plain florist on UTC time: same day until 12:00, closed on Sundays, ten days ahead, US ZIP codes
 * not starting with 99. Correct with no faults, so every contract test passes on it. `LOST` in `address1` loses
 * the first answer to a submit; `FAILS` makes the delivery fail.
 */
function referenceFlorist(clock: Clock, faults: ReadonlySet<Fault>): FloristProvider {
  const byKey = new Map<string, Order>();
  const byReference = new Map<string, Order>();
  const claims = new Map<string, string>();
  let sequence = 0;
  const fail = (code: FloristErrorCode, message: string, field?: string) =>
    new FloristError(
      code,
      faults.has("silent refusals") ? "" : message,
      field === undefined ? {} : { field },
    );

  const productOf = (code: string): Product => {
    const product = PRODUCTS.find((p) => p.code === code);
    if (product) return product;
    if (faults.has("unknown product falls back")) return PRODUCTS[0] as Product;
    throw fail("product_unknown", `no product ${code}`, "product_code");
  };
  const covers = (zip: string, country: string) =>
    country === "US" && /^\d{5}$/.test(zip) && !zip.startsWith("99");
  const coveredOrFail = (zip: string, country: string | undefined) => {
    if (!covers(zip, country ?? "US")) throw fail("zip_not_covered", `no delivery to ${zip}`, "zip");
  };
  const checkDate = (value: unknown, field: string): string => {
    const ok = faults.has("lax dates")
      ? typeof value === "string" && /^\d{4}-\d\d-\d\d$/.test(value)
      : isIsoDate(value);
    if (!ok) throw fail("invalid_request", `${field} must be YYYY-MM-DD`, field);
    return value as string;
  };
  const range = (product: Product) => {
    const now = clock.now();
    const today = utcDate(now);
    const pastCutoff = new Date(now).getUTCHours() >= 12;
    return {
      today,
      first: addDays(today, product.lead_days + (pastCutoff ? 1 : 0)),
      last: addDays(today, 10),
    };
  };
  const datesOf = (product: Product, from?: string): string[] => {
    const { first, last } = range(product);
    const start =
      from === undefined ? first : faults.has("from reaches before today") || from > first ? from : first;
    const dates: string[] = [];
    for (let date = start; date <= last; date = addDays(date, 1)) {
      if (new Date(`${date}T00:00:00Z`).getUTCDay() !== 0) dates.push(date);
    }
    return dates;
  };
  const bookable = (product: Product, date: string, forQuote: boolean) => {
    const { first, last } = range(product);
    const inRange = date >= first && date <= last;
    if (forQuote && faults.has("quote takes closed days") ? inRange : datesOf(product).includes(date)) return;
    throw fail(
      "delivery_date_unavailable",
      `${product.code} cannot be delivered on ${date}`,
      "delivery_date",
    );
  };
  const priceOf = (product: Product, date: string): FloristQuote => {
    const { today } = range(product);
    const surge = faults.has("price must match now") ? new Date(clock.now()).getUTCHours() : 0;
    const sameDay = date === today ? 500 : 0;
    const delivery = 1000 + sameDay + surge;
    const tax = Math.floor((product.price_cents + delivery) / 10);
    const total = product.price_cents + delivery + 200 + (faults.has("tax outside the total") ? 0 : tax);
    return {
      product_code: product.code,
      zip: "",
      country: "US",
      delivery_date: date,
      product_cents: product.price_cents,
      delivery_cents: delivery,
      service_fee_cents: 200,
      tax_cents: tax,
      total_cents: total,
      currency: "usd",
      lines: [
        { code: "product", label: product.name, amount_cents: product.price_cents },
        { code: "delivery", label: "Delivery", amount_cents: delivery },
        { code: "service_fee", label: "Service fee", amount_cents: 200 },
        { code: "tax", label: "Tax", amount_cents: tax },
      ],
    };
  };
  const view = (order: Order): FloristOrderView => {
    const now = clock.now();
    const date = order.order.delivery_date;
    const outAt = Math.max(order.submittedAt + HOUR, at(date, 8));
    const doorAt = Math.max(outAt + HOUR, at(date, 12));
    const fails = order.order.recipient.address1.includes("FAILS");
    const story: FloristEvent[] = [
      { status: "accepted", at: new Date(order.submittedAt).toISOString(), description: "Received" },
      {
        status: "out_for_delivery",
        at: new Date(outAt).toISOString(),
        description: "On its way",
        location: "Shop",
      },
      {
        status: fails ? "failed" : "delivered",
        at: new Date(doorAt).toISOString(),
        description: fails ? "Nobody home" : "Delivered",
      },
    ];
    let events = faults.has("future events")
      ? story
      : story.filter((e, i) => i === 0 || Date.parse(e.at) <= now);
    if (faults.has("status backwards") && now >= doorAt + 2 * DAY) events = events.slice(0, 2);
    if (faults.has("newest first")) events = [...events].reverse();
    const status: FloristOrderStatus =
      (faults.has("newest first") ? events[0] : events.at(-1))?.status ?? "accepted";
    return {
      reference: order.reference,
      status,
      product_code: order.order.product_code,
      delivery_date: date,
      submitted_at: new Date(order.submittedAt).toISOString(),
      events,
    };
  };
  const validate = (order: FloristOrder) => {
    const product = productOf(order.product_code);
    if (!faults.has("submit skips coverage")) coveredOrFail(order.recipient.zipcode, order.recipient.country);
    bookable(product, order.delivery_date, false);
    if (
      faults.has("price must match now") &&
      order.total_cents !== priceOf(product, order.delivery_date).total_cents
    ) {
      throw fail("invalid_order", "the price has changed", "total_cents");
    }
  };

  return {
    name: "reference",
    simulated: true,
    async catalogue() {
      return PRODUCTS.map(({ lead_days: _, ...p }) => ({
        ...p,
        price_cents: faults.has("fractional prices") ? p.price_cents + 0.5 : p.price_cents,
      }));
    },
    async coverage(zip, country) {
      if (faults.has("coverage throws on strangers") && !/^\d+$/.test(zip)) throw new TypeError("not a ZIP");
      return covers(zip, country)
        ? { covered: true, zip, country }
        : { covered: false, zip, country, reason: "not a US ZIP code we deliver to" };
    },
    async deliveryDates(productCode, zip, options) {
      const product = productOf(productCode);
      coveredOrFail(zip, options?.country);
      const from = options?.from === undefined ? undefined : checkDate(options.from, "from");
      return datesOf(product, from);
    },
    async quote(request) {
      const product = productOf(request.product_code);
      coveredOrFail(request.zip, request.country);
      const date = checkDate(request.delivery_date, "delivery_date");
      bookable(product, date, true);
      return { ...priceOf(product, date), zip: request.zip, country: request.country ?? "US" };
    },
    async submit(order, options) {
      const key = options?.idempotencyKey;
      if (typeof key !== "string" || !FLORIST_IDEMPOTENCY_KEY_PATTERN.test(key)) {
        throw fail("invalid_idempotency_key", "bad key");
      }
      const problem = faults.has("no order check") ? undefined : findFloristOrderProblem(order);
      if (problem) throw fail("invalid_order", problem.message, problem.field);
      const fingerprint = canonical(order);
      if (faults.has("refusal claims its key")) {
        const claimed = claims.get(key) ?? fingerprint;
        claims.set(key, claimed);
        if (claimed !== fingerprint) throw fail("idempotency_conflict", "key used");
      }
      if (faults.has("date checked before key")) validate(order);
      let existing = byKey.get(key);
      if (faults.has("one order per content")) {
        existing ??= [...byKey.values()].find((o) => o.fingerprint === fingerprint);
      }
      if (faults.has("racy submit")) await new Promise<void>((resolve) => setImmediate(resolve));
      if (existing) {
        if (existing.fingerprint !== fingerprint && !faults.has("ignores order changes")) {
          throw fail("idempotency_conflict", "key used for another order");
        }
        return { ...view(existing), idempotent_replay: true };
      }
      validate(order);
      const created: Order = {
        reference: `ord-${++sequence}`,
        fingerprint,
        submittedAt: clock.now(),
        order: structuredClone(order),
      };
      byReference.set(created.reference, created);
      const lost = order.recipient.address1.includes("LOST");
      if (!(lost && faults.has("lost answer retried as a new order"))) byKey.set(key, created);
      if (lost && !claims.has(`lost:${key}`)) {
        claims.set(`lost:${key}`, created.reference);
        throw new FloristError("florist_unavailable", "the answer was lost");
      }
      return { ...view(created), idempotent_replay: false };
    },
    async status(reference) {
      const order = byReference.get(reference);
      if (order) return view(order);
      if (faults.has("plain error for unknown reference")) throw new Error("no such order");
      throw fail("order_not_found", `no order ${reference}`);
    },
  };
}

const scripts: NonNullable<FloristProviderContractOptions["scripts"]> = {
  lostAnswer: (order) => ({ ...order, recipient: { ...order.recipient, address1: "1 LOST Lane" } }),
  deliveryFails: (order) => ({ ...order, recipient: { ...order.recipient, address1: "1 FAILS Road" } }),
};

async function failuresWith(
  faults: Fault[],
  options: Partial<FloristProviderContractOptions> = { scripts },
): Promise<Map<string, string>> {
  const set = new Set(faults);
  const report = await runSuite(
    floristProviderContract({ create: async ({ clock }) => referenceFlorist(clock, set), ...options }),
  );
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

describe("floristProviderContract", () => {
  it("has one test per name, in the order of FLORIST_PROVIDER_CONTRACT_NAMES", () => {
    const suite = floristProviderContract({
      create: async ({ clock }) => referenceFlorist(clock, new Set()),
    });
    expect(suite.tests.map((t) => t.name)).toEqual([...FLORIST_PROVIDER_CONTRACT_NAMES]);
    expect(new Set(FLORIST_PROVIDER_CONTRACT_NAMES).size).toBe(FLORIST_PROVIDER_CONTRACT_NAMES.length);
    expect(suite.name).toBe("florist provider contract");
  });

  it("passes a correct provider, with scripted orders and without", async () => {
    expect(await failuresWith([])).toEqual(new Map());
    expect(await failuresWith([], {})).toEqual(new Map());
  });

  it("answers not applicable, saying why, for the lost-answer test without scripts.lostAnswer, and runs it with it", async () => {
    const notApplicable = async (options: Partial<FloristProviderContractOptions>) => {
      const report = await runSuite(
        floristProviderContract({
          create: async ({ clock }) => referenceFlorist(clock, new Set()),
          ...options,
        }),
      );
      return report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);
    };
    expect(await notApplicable({ scripts })).toEqual([]);
    expect(await notApplicable({ scripts: { deliveryFails: scripts.deliveryFails } })).toEqual([
      [
        "a retry after florist_unavailable under the same key places no second order",
        "no lostAnswer script given (options.scripts.lostAnswer)",
      ],
    ]);
  });

  const caught: Array<[Fault, FloristProviderContractName]> = [
    [
      "fractional prices",
      "catalogue lists distinct, well-formed products, each accepted by quote and submit",
    ],
    [
      "unknown product falls back",
      "a product code absent from the catalogue is refused with product_unknown",
    ],
    [
      "coverage throws on strangers",
      "coverage is true only for a covered place, false with a reason for any other string, and never throws",
    ],
    [
      "submit skips coverage",
      "deliveryDates, quote and submit refuse a place coverage does not cover with zip_not_covered",
    ],
    [
      "from reaches before today",
      "deliveryDates returns ascending distinct YYYY-MM-DD dates, none before from or the provider's today",
    ],
    [
      "quote takes closed days",
      "every date deliveryDates returns is accepted by quote and submit, every other refused with delivery_date_unavailable",
    ],
    [
      "lax dates",
      "a from or delivery_date that is not a YYYY-MM-DD calendar date is refused with invalid_request naming it",
    ],
    [
      "tax outside the total",
      "quote returns non-negative integer cents whose parts and lines add up to total_cents",
    ],
    ["price must match now", "submit accepts the price of a quote shown earlier"],
    [
      "no order check",
      "submit refuses a malformed order with invalid_order and a malformed key with invalid_idempotency_key",
    ],
    [
      "date checked before key",
      "submit is idempotent by key: a repeat returns the same reference as a replay, also once the date has passed",
    ],
    ["racy submit", "submit is idempotent under concurrent callers: one order, one reference, one original"],
    [
      "ignores order changes",
      "submit refuses a different order under a used key with idempotency_conflict, changing nothing",
    ],
    ["one order per content", "different keys give different orders with different references"],
    ["refusal claims its key", "a definite refusal places no order and leaves its key free"],
    [
      "lost answer retried as a new order",
      "a retry after florist_unavailable under the same key places no second order",
    ],
    ["newest first", "status reports the current status and every event so far, oldest first"],
    ["future events", "status reports the current status and every event so far, oldest first"],
    ["plain error for unknown reference", "status refuses an unknown reference with order_not_found"],
    [
      "status backwards",
      "status only moves forward, final statuses stay, and an event once reported never changes",
    ],
    ["silent refusals", "every failure is a FloristError with a code of FloristErrorCode"],
  ];
  for (const [fault, test] of caught) {
    it(`catches a provider with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("covers every contract test with a fault", () => {
    expect(new Set(caught.map(([, test]) => test))).toEqual(new Set(FLORIST_PROVIDER_CONTRACT_NAMES));
  });
});

describe("floristStatusMayFollow", () => {
  it("allows forward moves, skipped steps included, and nothing out of a final status", () => {
    const allowed = [
      "accepted>out_for_delivery",
      "accepted>delivered",
      "accepted>failed",
      "out_for_delivery>delivered",
      "out_for_delivery>failed",
    ];
    const statuses: FloristOrderStatus[] = ["accepted", "out_for_delivery", "delivered", "failed"];
    for (const before of statuses) {
      for (const after of statuses) {
        const expected = before === after || allowed.includes(`${before}>${after}`);
        expect(floristStatusMayFollow(before, after), `${before} -> ${after}`).toBe(expected);
      }
    }
  });
});

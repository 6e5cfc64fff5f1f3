import { strict as assert } from "node:assert";
import {
  type Clock,
  FINAL_FLORIST_ORDER_STATUSES,
  FLORIST_ERROR_CODES,
  FLORIST_ORDER_STATUSES,
  FloristError,
  type FloristErrorCode,
  type FloristOrder,
  type FloristOrderStatus,
  type FloristOrderView,
  type FloristProduct,
  type FloristProvider,
  type FloristQuote,
  type FloristRecipient,
  type FloristSubmitResult,
  findFloristOrderProblem,
  isDefiniteFloristRefusal,
  isIsoDate,
  manualClock,
} from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { refusalAssertion } from "../refused-with.ts";
import { FLORIST_PROVIDER_REQUIREMENTS } from "./florist-provider-requirements.ts";

const refusedWith = refusalAssertion(FloristError);

/** The names of the FloristProvider contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const FLORIST_PROVIDER_CONTRACT_NAMES = [
  "catalogue lists distinct, well-formed products, each accepted by quote and submit",
  "a product code absent from the catalogue is refused with product_unknown",
  "coverage is true only for a covered place, false with a reason for any other string, and never throws",
  "deliveryDates, quote and submit refuse a place coverage does not cover with zip_not_covered",
  "deliveryDates returns ascending distinct YYYY-MM-DD dates, none before from or the provider's today",
  "every date deliveryDates returns is accepted by quote and submit, every other refused with delivery_date_unavailable",
  "a from or delivery_date that is not a YYYY-MM-DD calendar date is refused with invalid_request naming it",
  "quote returns non-negative integer cents whose parts and lines add up to total_cents",
  "submit accepts the price of a quote shown earlier",
  "submit refuses a malformed order with invalid_order and a malformed key with invalid_idempotency_key",
  "submit is idempotent by key: a repeat returns the same reference as a replay, also once the date has passed",
  "submit is idempotent under concurrent callers: one order, one reference, one original",
  "submit refuses a different order under a used key with idempotency_conflict, changing nothing",
  "different keys give different orders with different references",
  "a definite refusal places no order and leaves its key free",
  "a retry after florist_unavailable under the same key places no second order",
  "status reports the current status and every event so far, oldest first",
  "status refuses an unknown reference with order_not_found",
  "status only moves forward, final statuses stay, and an event once reported never changes",
  "every failure is a FloristError with a code of FloristErrorCode",
] as const;

export type FloristProviderContractName = (typeof FLORIST_PROVIDER_CONTRACT_NAMES)[number];

export interface FloristProviderContractContext {
  /** A manual clock starting at `startAt`; a simulated provider MUST read time from it. */
  clock: Clock & { advance(ms: number): void };
}

/** A postal code and an upper-case ISO 3166-1 alpha-2 country. */
export interface FloristPlace {
  zip: string;
  country: string;
}

export interface FloristProviderContractOptions {
  /** Shown in reports, e.g. `simulated florist`. */
  name?: string;
  /** Makes a fresh provider with no orders, on `ctx.clock`. Called once per test. */
  create(ctx: FloristProviderContractContext): Promise<FloristProvider>;
  /**
   * Moves the provider's time forward by `ms`. Default: `ctx.clock.advance(ms)`. The suite never sleeps; it moves
   * time to try several moments of the day (cutoffs), to let dates pass and to follow orders to their end.
   */
  advance?(ms: number, ctx: FloristProviderContractContext): void | Promise<void>;
  /** Releases what `create` opened. */
  dispose?(provider: FloristProvider): void | Promise<void>;
  /** Where `ctx.clock` starts, in milliseconds since the epoch. Default Monday 4 May 2026, 14:00 UTC. */
  startAt?: number;
  /** A recipient at a place the provider covers. Default an address in New York, ZIP 10118, US. */
  recipient?: FloristRecipient;
  /** Places the provider does not cover, tried on top of strings that are no postal code at all. */
  uncovered?: readonly FloristPlace[];
  /**
   * Scripted orders of a test-mode provider. The status tests follow an order scripted to fail too when
   * `deliveryFails` is given; without `lostAnswer`, the test of a retry after `florist_unavailable` answers not
   * applicable.
   */
  scripts?: {
    /** The order changed so that its first submit places it but answers `florist_unavailable`. */
    lostAnswer?(order: FloristOrder): FloristOrder;
    /** The order changed so that its delivery ends `failed`. */
    deliveryFails?(order: FloristOrder): FloristOrder;
  };
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly FloristProviderContractName[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Monday 4 May 2026, 14:00 UTC: morning in the Americas, evening in Asia. */
const DEFAULT_START = Date.UTC(2026, 4, 4, 14);
/** The moments the date tests look at: every 5 hours over three days, so each hour of the day comes up. */
const MOMENTS = Array.from({ length: 15 }, (_, i) => (i === 0 ? 0 : 5 * HOUR));
/** Steps to poll an order at: hours first, then days, then weeks, well past its delivery date. */
const POLL_STEPS = [0, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, DAY, DAY, 2 * DAY, 7 * DAY, 30 * DAY];
/** The largest time-zone offset behind UTC: no place's today is earlier than the UTC date this much ago. */
const WESTMOST_OFFSET = 12 * HOUR;
const PRODUCT_CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const QUOTE_LINE_CODE = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;
const RANK: Partial<Record<string, number>> = {
  accepted: 0,
  out_for_delivery: 1,
  delivered: 2,
  failed: 2,
};

const DEFAULT_RECIPIENT: FloristRecipient = {
  name: "Ada Lovelace",
  phone: "+1 212 555 0100",
  address1: "350 Fifth Avenue",
  city: "New York",
  state: "NY",
  zipcode: "10118",
  country: "US",
};

/** Strings that are no calendar date in `YYYY-MM-DD` form. */
const NOT_DATES: readonly unknown[] = [
  "2026-02-29",
  "2026-02-30",
  "2026-13-01",
  "2026-00-10",
  "2026-5-06",
  "06/05/2026",
  "tomorrow",
  "",
  "2026-05-06T00:00:00Z",
  " 2026-05-06",
  20260506,
  null,
];

const newKey = () => `contract-${crypto.randomUUID()}`;

/** True when an order may go from `before` to `after` (equal statuses included): forward only, finals stay. */
export function floristStatusMayFollow(before: FloristOrderStatus, after: FloristOrderStatus): boolean {
  if (before === after) return true;
  if (FINAL_FLORIST_ORDER_STATUSES.includes(before)) return false;
  return (RANK[after] ?? -1) > (RANK[before] ?? Number.POSITIVE_INFINITY);
}

const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const addDays = (date: string, days: number): string => utcDate(Date.parse(`${date}T00:00:00Z`) + days * DAY);
const isIso = (value: unknown): boolean =>
  typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) && !Number.isNaN(Date.parse(value));
const isCents = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** Asserts the shape of an order's view: its order, a time of submission, events oldest first ending in `status`. */
function checkView<V extends FloristOrderView>(
  view: V,
  order: FloristOrder,
  what: string,
  now: number | undefined,
): V {
  assert.equal(typeof view?.reference, "string", `${what}: reference is a string`);
  assert.ok(view.reference.length > 0, `${what}: reference is not empty`);
  assert.ok(FLORIST_ORDER_STATUSES.includes(view.status), `${what}: ${view.status} is an order status`);
  assert.equal(view.product_code, order.product_code, `${what}: product_code is the order's`);
  assert.equal(view.delivery_date, order.delivery_date, `${what}: delivery_date is the order's`);
  assert.ok(isIso(view.submitted_at), `${what}: submitted_at ${view.submitted_at} is an ISO 8601 time`);
  assert.ok(Array.isArray(view.events) && view.events.length > 0, `${what}: there is at least one event`);
  let previous: (typeof view.events)[number] | undefined;
  for (const [index, event] of view.events.entries()) {
    const where = `${what}: events[${index}]`;
    assert.ok(FLORIST_ORDER_STATUSES.includes(event.status), `${where}.status ${event.status} is a status`);
    assert.ok(isIso(event.at), `${where}.at ${event.at} is an ISO 8601 time`);
    assert.ok(
      typeof event.description === "string" && event.description.trim().length > 0,
      `${where} has a description`,
    );
    assert.ok(
      event.location === undefined || (typeof event.location === "string" && event.location.length > 0),
      `${where}.location is absent or a non-empty string`,
    );
    if (now !== undefined) {
      assert.ok(
        Date.parse(event.at) <= now,
        `${where} at ${event.at} has not happened yet at ${new Date(now).toISOString()}: only events so far`,
      );
    }
    if (previous) {
      assert.ok(Date.parse(event.at) >= Date.parse(previous.at), `${where} is not older than the one before`);
      assert.ok(
        floristStatusMayFollow(previous.status, event.status),
        `${where}: ${event.status} cannot follow ${previous.status}`,
      );
    }
    previous = event;
  }
  assert.equal(previous?.status, view.status, `${what}: the last event carries the current status`);
  return view;
}

/** Asserts a quote's arithmetic and that it answers the request. */
function checkQuote(quote: FloristQuote, productCode: string, date: string, what: string): void {
  assert.equal(quote.product_code, productCode, `${what}: product_code is the one asked for`);
  assert.equal(quote.delivery_date, date, `${what}: delivery_date is the one asked for`);
  assert.equal(quote.currency, "usd", `${what}: currency is usd`);
  for (const part of [
    "product_cents",
    "delivery_cents",
    "service_fee_cents",
    "tax_cents",
    "total_cents",
  ] as const) {
    assert.ok(isCents(quote[part]), `${what}: ${part} ${show(quote[part])} is a non-negative integer`);
  }
  assert.equal(
    quote.total_cents,
    quote.product_cents + quote.delivery_cents + quote.service_fee_cents + quote.tax_cents,
    `${what}: total_cents is product + delivery + service fee + tax`,
  );
  assert.ok(Array.isArray(quote.lines) && quote.lines.length > 0, `${what}: the quote has lines`);
  for (const line of quote.lines) {
    assert.ok(QUOTE_LINE_CODE.test(line.code), `${what}: line code ${show(line.code)} is snake_case`);
    assert.ok(
      typeof line.label === "string" && line.label.length > 0,
      `${what}: line ${line.code} has a label`,
    );
    assert.ok(Number.isSafeInteger(line.amount_cents), `${what}: line ${line.code} is in integer cents`);
  }
  assert.equal(
    quote.lines.reduce((sum, line) => sum + line.amount_cents, 0),
    quote.total_cents,
    `${what}: the lines add up to total_cents`,
  );
}

/** Asserts that a list of delivery dates is well-formed and none is before any place's today at `now`. */
function checkDates(dates: string[], now: number, what: string): void {
  assert.ok(Array.isArray(dates), `${what}: deliveryDates returns a list`);
  const earliest = utcDate(now - WESTMOST_OFFSET);
  for (const [index, date] of dates.entries()) {
    assert.ok(isIsoDate(date), `${what}: ${show(date)} is a YYYY-MM-DD calendar date`);
    assert.ok(
      date >= earliest,
      `${what}: ${date} is before the provider's today at ${new Date(now).toISOString()}`,
    );
    const before = dates[index - 1];
    if (before !== undefined) {
      assert.ok(before < date, `${what}: dates ascend without repeats, but ${date} follows ${before}`);
    }
  }
}

/**
 * The FloristProvider contract (adapters/ports/src/florist-provider.ts) as a suite: one named test per MUST
 * sentence. Orders are built from the provider's own catalogue and dates, so one suite fits every provider; the
 * date tests look at many moments of the day on the provider's clock.
 */
export function floristProviderContract(
  options: FloristProviderContractOptions,
): Suite<FloristProviderContractName> {
  const recipient = options.recipient ?? DEFAULT_RECIPIENT;
  const place: FloristPlace = { zip: recipient.zipcode, country: recipient.country };

  interface Ctx {
    provider: FloristProvider;
    clock: FloristProviderContractContext["clock"];
    advance(ms: number): Promise<void>;
    /** The provider's time when it reads `ctx.clock`; undefined when `advance` moves some other clock. */
    providerNow(): number | undefined;
    products: FloristProduct[];
    /** The first product with delivery dates, on its first date, at its quoted price. */
    base: FloristOrder;
    datesOf(productCode: string, from?: string): Promise<string[]>;
    quoteOf(productCode: string, date: string, at?: FloristPlace): Promise<FloristQuote>;
    orderOf(productCode: string, date: string, totalCents: number): FloristOrder;
  }

  const orderOf = (productCode: string, date: string, totalCents: number): FloristOrder => ({
    product_code: productCode,
    delivery_date: date,
    card_note: "Happy birthday, Ada! With love from Grace.",
    allow_substitutions: true,
    recipient: { ...recipient },
    customer: { name: "Grace Hopper", email: "grace@example.com", country: recipient.country },
    total_cents: totalCents,
  });

  const run = (body: (ctx: Ctx) => ReturnType<TestBody>) => async (): ReturnType<TestBody> => {
    const context: FloristProviderContractContext = {
      clock: manualClock(options.startAt ?? DEFAULT_START),
    };
    const provider = await options.create(context);
    try {
      const datesOf = (productCode: string, from?: string) =>
        provider.deliveryDates(
          productCode,
          place.zip,
          from === undefined ? { country: place.country } : { country: place.country, from },
        );
      const quoteOf = (productCode: string, date: string, at: FloristPlace = place) =>
        provider.quote({
          product_code: productCode,
          zip: at.zip,
          country: at.country,
          delivery_date: date,
        });
      const products = await provider.catalogue();
      assert.ok(Array.isArray(products) && products.length > 0, "the catalogue lists no product");
      let base: FloristOrder | undefined;
      for (const product of products) {
        const [first] = await datesOf(product.code);
        if (first === undefined) continue;
        base = orderOf(product.code, first, (await quoteOf(product.code, first)).total_cents);
        break;
      }
      assert.ok(
        base,
        `no product of the catalogue can be delivered to ${show(place)}: pass a covered recipient`,
      );
      return await body({
        provider,
        clock: context.clock,
        products,
        base,
        datesOf,
        quoteOf,
        orderOf,
        async advance(ms) {
          if (options.advance) await options.advance(ms, context);
          else context.clock.advance(ms);
        },
        providerNow: () => (options.advance ? undefined : context.clock.now()),
      });
    } finally {
      await options.dispose?.(provider);
    }
  };

  /** Strings that are no postal code of the recipient's country, and places no provider can cover. */
  const uncoveredPlaces = (): FloristPlace[] => [
    { zip: "", country: place.country },
    { zip: "not a postal code", country: place.country },
    { zip: "ZZZZZ-ZZZ", country: place.country },
    { zip: "0", country: place.country },
    { zip: "💐", country: place.country },
    { zip: "\n", country: place.country },
    { zip: "9".repeat(300), country: place.country },
    { zip: place.zip, country: "ZZ" },
    { zip: place.zip, country: "" },
    { zip: place.zip, country: "not a country" },
    ...(options.uncovered ?? []),
  ];

  /** Moves time to 3 days after `date` (UTC), when `date` is in the past in every time zone. */
  async function pastDate(ctx: Ctx, date: string): Promise<void> {
    const target = Date.parse(`${date}T00:00:00Z`) + 3 * DAY;
    await ctx.advance(Math.max(0, target - ctx.clock.now()));
  }

  const tests: Record<FloristProviderContractName, TestBody> = {
    "catalogue lists distinct, well-formed products, each accepted by quote and submit": run(async (ctx) => {
      const { provider, products } = ctx;
      assert.equal(typeof provider.name, "string");
      assert.ok(provider.name.length > 0, "the provider has a name");
      assert.equal(typeof provider.simulated, "boolean", "the provider says whether it is simulated");
      const codes = new Set<string>();
      for (const [index, product] of products.entries()) {
        const what = `catalogue()[${index}]`;
        assert.ok(typeof product.code === "string" && product.code.length > 0, `${what}: code is not empty`);
        assert.ok(!codes.has(product.code), `${what}: code ${product.code} is listed twice`);
        codes.add(product.code);
        for (const text of ["name", "description"] as const) {
          assert.ok(
            typeof product[text] === "string" && product[text].trim().length > 0,
            `${what}: ${text} is a non-empty string`,
          );
        }
        assert.ok(
          isCents(product.price_cents),
          `${what}: price_cents ${show(product.price_cents)} is integer cents`,
        );
        assert.equal(product.currency, "usd", `${what}: currency is usd`);
      }
      for (const product of products) {
        const dates = await ctx.datesOf(product.code);
        const [first] = dates;
        assert.ok(first, `${product.code}: listed, so it can be delivered to ${show(place)} on some date`);
        const quote = await ctx.quoteOf(product.code, first);
        checkQuote(quote, product.code, first, `quote(${product.code}, ${first})`);
        const order = ctx.orderOf(product.code, first, quote.total_cents);
        const submitted = await provider.submit(order, { idempotencyKey: newKey() });
        checkView(submitted, order, `submit(${product.code}, ${first})`, ctx.providerNow());
        assert.equal(submitted.idempotent_replay, false, `submit(${product.code}) is a new order`);
      }
    }),

    "a product code absent from the catalogue is refused with product_unknown": run(async (ctx) => {
      const { provider, products, base } = ctx;
      const listed = new Set(products.map((p) => p.code));
      const first = products[0]?.code ?? "product";
      const candidates = [
        "no-such-product-0",
        `${first}-x`,
        first.toUpperCase(),
        first.toLowerCase(),
        `${first} `,
        "",
      ];
      const unknown = [...new Set(candidates)].filter((code) => !listed.has(code));
      for (const code of unknown) {
        const label = show(code);
        await refusedWith(() => ctx.datesOf(code), "product_unknown", `deliveryDates(${label})`);
        await refusedWith(() => ctx.quoteOf(code, base.delivery_date), "product_unknown", `quote(${label})`);
        if (!PRODUCT_CODE.test(code)) continue; // a malformed code is a malformed order: invalid_order
        await refusedWith(
          () => provider.submit({ ...base, product_code: code }, { idempotencyKey: newKey() }),
          "product_unknown",
          `submit(${label})`,
        );
      }
    }),

    "coverage is true only for a covered place, false with a reason for any other string, and never throws":
      run(async ({ provider }) => {
        const covered = await provider.coverage(place.zip, place.country);
        assert.equal(covered.covered, true, `coverage(${show(place)}): the recipient's place is covered`);
        assert.equal(typeof covered.zip, "string", "coverage answers with the zip");
        assert.equal(typeof covered.country, "string", "coverage answers with the country");
        for (const { zip, country } of uncoveredPlaces()) {
          const what = `coverage(${show(zip)}, ${show(country)})`;
          let answer: Awaited<ReturnType<FloristProvider["coverage"]>>;
          try {
            answer = await provider.coverage(zip, country);
          } catch (error) {
            assert.fail(`${what} threw ${String(error)}; it must answer covered: false`);
          }
          assert.equal(answer.covered, false, `${what} is not a place the provider covers`);
          assert.ok(
            !answer.covered && typeof answer.reason === "string" && answer.reason.trim().length > 0,
            `${what} says why it is not covered`,
          );
        }
      }),

    "deliveryDates, quote and submit refuse a place coverage does not cover with zip_not_covered": run(
      async (ctx) => {
        const { provider, base } = ctx;
        for (const at of uncoveredPlaces()) {
          const label = `${show(at.zip)}, ${show(at.country)}`;
          const coverage = await provider.coverage(at.zip, at.country);
          if (coverage.covered) continue; // the coverage test reports this place
          await refusedWith(
            () => provider.deliveryDates(base.product_code, at.zip, { country: at.country }),
            "zip_not_covered",
            `deliveryDates(${label})`,
          );
          await refusedWith(
            () => ctx.quoteOf(base.product_code, base.delivery_date, at),
            "zip_not_covered",
            `quote(${label})`,
          );
          const order: FloristOrder = {
            ...base,
            recipient: { ...base.recipient, zipcode: at.zip, country: at.country },
          };
          if (findFloristOrderProblem(order)) continue; // a malformed order is refused with invalid_order
          await refusedWith(
            () => provider.submit(order, { idempotencyKey: newKey() }),
            "zip_not_covered",
            `submit(${label})`,
          );
        }
      },
    ),

    "deliveryDates returns ascending distinct YYYY-MM-DD dates, none before from or the provider's today":
      run(async (ctx) => {
        for (const step of MOMENTS.slice(0, 8)) {
          await ctx.advance(step);
          const now = ctx.clock.now();
          const at = new Date(now).toISOString();
          for (const product of ctx.products) {
            const what = `deliveryDates(${product.code}) at ${at}`;
            const dates = await ctx.datesOf(product.code);
            checkDates(dates, now, what);
            const longAgo = addDays(utcDate(now), -30);
            assert.deepEqual(
              await ctx.datesOf(product.code, longAgo),
              dates,
              `${what}, from ${longAgo}: a from in the past offers nothing before the provider's today`,
            );
            const first = dates[0];
            const last = dates.at(-1);
            if (first === undefined || last === undefined) continue;
            const froms = [dates[1], addDays(first, 3), last, addDays(last, 1), addDays(last, 40)];
            for (const from of froms) {
              if (from === undefined) continue;
              const fromDates = await ctx.datesOf(product.code, from);
              checkDates(fromDates, now, `${what}, from ${from}`);
              assert.deepEqual(
                fromDates,
                dates.filter((date) => date >= from),
                `${what}, from ${from}: the same dates, none before ${from}`,
              );
            }
          }
        }
      }),

    "every date deliveryDates returns is accepted by quote and submit, every other refused with delivery_date_unavailable":
      run(async (ctx) => {
        const { provider, products } = ctx;
        for (const [moment, step] of MOMENTS.entries()) {
          await ctx.advance(step);
          const now = ctx.clock.now();
          const at = new Date(now).toISOString();
          for (const [index, product] of products.entries()) {
            const dates = await ctx.datesOf(product.code);
            const offered = new Set(dates);
            const first = dates[0] ?? utcDate(now);
            const last = dates.at(-1) ?? utcDate(now);
            // The dates near today and near the furthest day, where cutoffs, lead times and limits fall.
            const near = new Set<string>();
            for (let date = addDays(utcDate(now), -2); date <= addDays(first, 9); date = addDays(date, 1)) {
              near.add(date);
            }
            for (let date = addDays(last, -3); date <= addDays(last, 3); date = addDays(date, 1))
              near.add(date);
            const window = [...near].sort();
            const quotes = new Map<string, FloristQuote>();
            for (const date of window) {
              const what = `quote(${product.code}, ${date}) at ${at}`;
              if (offered.has(date)) {
                const quote = await ctx.quoteOf(product.code, date);
                assert.equal(quote.delivery_date, date, `${what}: an offered date is accepted`);
                quotes.set(date, quote);
              } else {
                await refusedWith(() => ctx.quoteOf(product.code, date), "delivery_date_unavailable", what);
              }
            }
            // Submitting places orders: one product per moment, a few dates each.
            if (index !== moment % products.length) continue;
            const accepted = [...new Set([first, dates[Math.floor(dates.length / 2)], last])];
            for (const date of accepted) {
              const quote = date === undefined ? undefined : quotes.get(date);
              if (date === undefined || quote === undefined) continue;
              const order = ctx.orderOf(product.code, date, quote.total_cents);
              const submitted = await provider.submit(order, { idempotencyKey: newKey() });
              assert.equal(
                submitted.delivery_date,
                date,
                `submit(${product.code}, ${date}) at ${at} is accepted`,
              );
              assert.equal(submitted.idempotent_replay, false);
            }
            const gap = window.find((date) => date > first && date < last && !offered.has(date));
            const refused = [addDays(first, -1), addDays(last, 1), gap].filter((d) => d !== undefined);
            for (const date of refused) {
              if (offered.has(date)) continue;
              await refusedWith(
                () =>
                  provider.submit(ctx.orderOf(product.code, date, ctx.base.total_cents), {
                    idempotencyKey: newKey(),
                  }),
                "delivery_date_unavailable",
                `submit(${product.code}, ${date}) at ${at}`,
              );
            }
          }
        }
      }),

    "a from or delivery_date that is not a YYYY-MM-DD calendar date is refused with invalid_request naming it":
      run(async (ctx) => {
        const { provider, base } = ctx;
        for (const bad of NOT_DATES) {
          const label = show(bad);
          await refusedWith(
            () =>
              provider.deliveryDates(base.product_code, place.zip, {
                country: place.country,
                from: bad as string,
              }),
            "invalid_request",
            `deliveryDates(from: ${label})`,
            "from",
          );
        }
        for (const bad of [...NOT_DATES, undefined]) {
          await refusedWith(
            () => ctx.quoteOf(base.product_code, bad as string),
            "invalid_request",
            `quote(delivery_date: ${show(bad)})`,
            "delivery_date",
          );
        }
      }),

    "quote returns non-negative integer cents whose parts and lines add up to total_cents": run(
      async (ctx) => {
        for (const step of [0, 7 * HOUR, 9 * HOUR]) {
          await ctx.advance(step);
          for (const product of ctx.products) {
            const dates = await ctx.datesOf(product.code);
            const some = [
              ...new Set([...dates.slice(0, 3), dates[Math.floor(dates.length / 2)], dates.at(-1)]),
            ];
            for (const date of some) {
              if (date === undefined) continue;
              checkQuote(
                await ctx.quoteOf(product.code, date),
                product.code,
                date,
                `quote(${product.code}, ${date})`,
              );
            }
          }
        }
      },
    ),

    "submit accepts the price of a quote shown earlier": run(async (ctx) => {
      const { provider, products } = ctx;
      const shown: Array<{ code: string; date: string; total: number }> = [];
      for (const product of products) {
        for (const date of (await ctx.datesOf(product.code)).slice(0, 3)) {
          shown.push({
            code: product.code,
            date,
            total: (await ctx.quoteOf(product.code, date)).total_cents,
          });
        }
      }
      const [now] = shown;
      assert.ok(now, "the provider quotes at least one date");
      const atOnce = await provider.submit(ctx.orderOf(now.code, now.date, now.total), {
        idempotencyKey: newKey(),
      });
      assert.equal(atOnce.idempotent_replay, false, "a submit at the price just quoted is accepted");
      // Later the price may have changed (same-day fees, a new day's rates); the quote shown still holds.
      let submitted = 0;
      for (const later of [6 * HOUR, 14 * HOUR]) {
        await ctx.advance(later);
        for (const { code, date, total } of shown) {
          if (!(await ctx.datesOf(code)).includes(date)) continue;
          const order = ctx.orderOf(code, date, total);
          const result = await provider.submit(order, { idempotencyKey: newKey() });
          assert.equal(
            result.idempotent_replay,
            false,
            `submit(${code}, ${date}) at the earlier price ${total}`,
          );
          submitted += 1;
        }
      }
      assert.ok(submitted > 0, "no date quoted earlier could still be booked 6 and 20 hours later");
    }),

    "submit refuses a malformed order with invalid_order and a malformed key with invalid_idempotency_key":
      run(async ({ provider, base }) => {
        const r = base.recipient;
        const c = base.customer;
        const malformed: Array<[string, unknown]> = [
          ["no order", null],
          ["a product code with a space", { ...base, product_code: "red roses" }],
          ["30 February", { ...base, delivery_date: "2026-02-30" }],
          ["a date in another form", { ...base, delivery_date: "06/05/2026" }],
          ["a card note of 201 characters", { ...base, card_note: "x".repeat(201) }],
          ["allow_substitutions as a string", { ...base, allow_substitutions: "yes" }],
          ["a negative total", { ...base, total_cents: -1 }],
          ["a total in fractions of a cent", { ...base, total_cents: 12.5 }],
          ["no recipient", { ...base, recipient: undefined }],
          ["a recipient without a phone", { ...base, recipient: { ...r, phone: "" } }],
          ["a recipient without a ZIP", { ...base, recipient: { ...r, zipcode: undefined } }],
          [
            "a lower-case recipient country",
            { ...base, recipient: { ...r, country: r.country.toLowerCase() } },
          ],
          ["a customer with a blank email", { ...base, customer: { ...c, email: "   " } }],
          ["a customer country of three letters", { ...base, customer: { ...c, country: "USA" } }],
          ["a customer phone that is blank", { ...base, customer: { ...c, phone: " " } }],
        ];
        for (const [label, order] of malformed) {
          const problem = findFloristOrderProblem(order as FloristOrder);
          assert.ok(problem, `the suite's order with ${label} is malformed`);
          await refusedWith(
            () => provider.submit(order as FloristOrder, { idempotencyKey: newKey() }),
            "invalid_order",
            `submit(${label})`,
            problem.field,
          );
        }
        const keys: unknown[] = [
          "",
          "-leading-dash",
          ".dot",
          "has space",
          "a/b",
          "é",
          `k${"x".repeat(255)}`,
          undefined,
          42,
          null,
        ];
        for (const key of keys) {
          await refusedWith(
            () => provider.submit(base, { idempotencyKey: key as string }),
            "invalid_idempotency_key",
            `submit with key ${show(key)}`,
          );
        }
        const longest = `k${"x".repeat(254)}`;
        const accepted = await provider.submit(base, { idempotencyKey: longest });
        assert.equal(accepted.idempotent_replay, false, "a 255-character key is accepted");
        const colons = await provider.submit(base, { idempotencyKey: "order:01.A_b-c" });
        assert.equal(colons.idempotent_replay, false, "a key with '.', '_', '-' and ':' is accepted");
      }),

    "submit is idempotent by key: a repeat returns the same reference as a replay, also once the date has passed":
      run(async (ctx) => {
        const { provider, base } = ctx;
        const key = newKey();
        const first = checkView(
          await provider.submit(base, { idempotencyKey: key }),
          base,
          "first submit",
          ctx.providerNow(),
        );
        assert.equal(first.idempotent_replay, false, "the first submit is not a replay");
        await ctx.advance(HOUR);
        const again = checkView(
          await provider.submit(structuredClone(base), { idempotencyKey: key }),
          base,
          "repeat",
          ctx.providerNow(),
        );
        assert.equal(again.reference, first.reference, "a repeat returns the same reference");
        assert.equal(again.idempotent_replay, true, "a repeat says it is a replay");
        assert.equal(again.submitted_at, first.submitted_at, "a repeat is the original order");
        await pastDate(ctx, base.delivery_date);
        assert.ok(
          !(await ctx.datesOf(base.product_code)).includes(base.delivery_date),
          `${base.delivery_date} has passed and is no longer offered`,
        );
        const late = await provider.submit(structuredClone(base), { idempotencyKey: key });
        assert.equal(late.reference, first.reference, "a repeat after the date has passed is the same order");
        assert.equal(late.idempotent_replay, true, "a repeat after the date has passed is a replay");
      }),

    "submit is idempotent under concurrent callers: one order, one reference, one original": run(
      async ({ provider, base }) => {
        for (let round = 0; round < 3; round++) {
          const key = newKey();
          const results = await Promise.all(
            Array.from({ length: 8 }, () => provider.submit(structuredClone(base), { idempotencyKey: key })),
          );
          const references = new Set(results.map((r) => r.reference));
          assert.equal(references.size, 1, `eight concurrent submits gave ${references.size} references`);
          assert.equal(
            results.filter((r) => !r.idempotent_replay).length,
            1,
            "exactly one concurrent submit is the original; every other is a replay",
          );
          const again = await provider.submit(base, { idempotencyKey: key });
          assert.equal(again.reference, results[0]?.reference, "a later repeat returns that one order");
          assert.equal(again.idempotent_replay, true);
        }
      },
    ),

    "submit refuses a different order under a used key with idempotency_conflict, changing nothing": run(
      async (ctx) => {
        const { provider, base } = ctx;
        const key = newKey();
        const first = await provider.submit(base, { idempotencyKey: key });
        const before = await provider.status(first.reference);
        const otherDate = (await ctx.datesOf(base.product_code)).find((d) => d !== base.delivery_date);
        const others: Array<[string, FloristOrder]> = [
          ["another card note", { ...base, card_note: `${base.card_note} P.S.` }],
          [
            "another recipient",
            { ...base, recipient: { ...base.recipient, name: `${base.recipient.name} Junior` } },
          ],
          ["no substitutions", { ...base, allow_substitutions: !base.allow_substitutions }],
          ["another total", { ...base, total_cents: base.total_cents + 100 }],
          ["another customer", { ...base, customer: { ...base.customer, email: "other@example.com" } }],
        ];
        if (otherDate) others.push(["another date", { ...base, delivery_date: otherDate }]);
        for (const [label, other] of others) {
          await refusedWith(
            () => provider.submit(other, { idempotencyKey: key }),
            "idempotency_conflict",
            `submit of ${label} under a used key`,
          );
        }
        assert.deepEqual(await provider.status(first.reference), before, "the original order is unchanged");
        const again = await provider.submit(base, { idempotencyKey: key });
        assert.equal(again.reference, first.reference, "the key still names its order");
        assert.equal(again.idempotent_replay, true);
      },
    ),

    "different keys give different orders with different references": run(async ({ provider, base }) => {
      const results: FloristSubmitResult[] = [];
      for (let i = 0; i < 3; i++) results.push(await provider.submit(base, { idempotencyKey: newKey() }));
      const references = new Set(results.map((r) => r.reference));
      assert.equal(references.size, results.length, "three keys give three references");
      for (const result of results) {
        assert.equal(result.idempotent_replay, false, "a new key is never a replay");
        assert.equal(
          (await provider.status(result.reference)).reference,
          result.reference,
          "each is its own order",
        );
      }
    }),

    "a definite refusal places no order and leaves its key free": run(async (ctx) => {
      const { provider, base, products } = ctx;
      const listed = new Set(products.map((p) => p.code));
      const unknownProduct = ["no-such-product-0", "no-such-product-1"].find((code) => !listed.has(code));
      const refusals: Array<[string, FloristOrder, FloristErrorCode]> = [
        ["a malformed order", { ...base, card_note: "x".repeat(201) }, "invalid_order"],
        [
          "an uncovered place",
          { ...base, recipient: { ...base.recipient, zipcode: "not a postal code" } },
          "zip_not_covered",
        ],
        [
          "a date that has passed",
          { ...base, delivery_date: addDays(utcDate(ctx.clock.now()), -3) },
          "delivery_date_unavailable",
        ],
      ];
      if (unknownProduct)
        refusals.push(["an unknown product", { ...base, product_code: unknownProduct }, "product_unknown"]);
      for (const [label, order, code] of refusals) {
        const key = newKey();
        const error = await refusedWith(
          () => provider.submit(order, { idempotencyKey: key }),
          code,
          `submit(${label})`,
        );
        assert.ok(isDefiniteFloristRefusal(error), `${code} is a definite refusal`);
        await refusedWith(
          () => provider.submit(order, { idempotencyKey: key }),
          code,
          `submit(${label}) again`,
        );
        const placed = await provider.submit(base, { idempotencyKey: key });
        assert.equal(
          placed.idempotent_replay,
          false,
          `after refusing ${label}, the key holds no order: a valid order under it is new`,
        );
      }
    }),

    "a retry after florist_unavailable under the same key places no second order": run(async (ctx) => {
      const { provider, base } = ctx;
      const lostAnswer = options.scripts?.lostAnswer;
      if (!lostAnswer) return notApplicable("no lostAnswer script given (options.scripts.lostAnswer)");
      const order = lostAnswer(structuredClone(base));
      const key = newKey();
      const lost = await refusedWith(
        () => provider.submit(order, { idempotencyKey: key }),
        "florist_unavailable",
        "the first submit of an order scripted to lose its answer",
      );
      assert.ok(!isDefiniteFloristRefusal(lost), "florist_unavailable leaves the outcome unknown");
      const retry = checkView(
        await provider.submit(order, { idempotencyKey: key }),
        order,
        "retry",
        ctx.providerNow(),
      );
      const [again, concurrent] = await Promise.all([
        provider.submit(order, { idempotencyKey: key }),
        provider.submit(structuredClone(order), { idempotencyKey: key }),
      ]);
      for (const result of [again, concurrent]) {
        assert.equal(result.reference, retry.reference, "every retry after florist_unavailable is one order");
        assert.equal(result.idempotent_replay, true, "a retry after the first accepted one is a replay");
      }
      assert.equal((await provider.status(retry.reference)).reference, retry.reference);
    }),

    "status reports the current status and every event so far, oldest first": run(async (ctx) => {
      const { provider, base } = ctx;
      const orders = [base];
      if (options.scripts?.deliveryFails) orders.push(options.scripts.deliveryFails(structuredClone(base)));
      const placed: Array<{ order: FloristOrder; submitted: FloristOrderView }> = [];
      for (const order of orders) {
        const submitted = checkView(
          await provider.submit(order, { idempotencyKey: newKey() }),
          order,
          "submit",
          ctx.providerNow(),
        );
        placed.push({ order, submitted });
      }
      let waited = 0;
      for (const step of POLL_STEPS) {
        await ctx.advance(step);
        waited += step;
        for (const { order, submitted } of placed) {
          const what = `status after ${waited} ms`;
          const view = checkView(await provider.status(submitted.reference), order, what, ctx.providerNow());
          assert.equal(
            view.reference,
            submitted.reference,
            `${what}: status answers for the order asked about`,
          );
          assert.equal(view.submitted_at, submitted.submitted_at, `${what}: submitted_at does not change`);
        }
      }
    }),

    "status refuses an unknown reference with order_not_found": run(async ({ provider, base }) => {
      const { reference } = await provider.submit(base, { idempotencyKey: newKey() });
      const unknown = [
        "contract-reference-that-does-not-exist-0",
        crypto.randomUUID(),
        `${reference}0`,
        reference.slice(0, -1),
        "",
        "../etc/passwd",
      ];
      for (const other of unknown) {
        if (other === reference) continue;
        await refusedWith(() => provider.status(other), "order_not_found", `status(${show(other)})`);
      }
    }),

    "status only moves forward, final statuses stay, and an event once reported never changes": run(
      async (ctx) => {
        const { provider, base } = ctx;
        const orders = [base];
        if (options.scripts?.deliveryFails) orders.push(options.scripts.deliveryFails(structuredClone(base)));
        const followed: Array<{ reference: string; last: FloristOrderView }> = [];
        for (const order of orders) {
          const { idempotent_replay: _, ...view } = await provider.submit(order, {
            idempotencyKey: newKey(),
          });
          followed.push({ reference: view.reference, last: view });
        }
        let waited = 0;
        for (const step of POLL_STEPS) {
          await ctx.advance(step);
          waited += step;
          for (const entry of followed) {
            const what = `after ${waited} ms`;
            const view = await provider.status(entry.reference);
            assert.deepEqual(
              await provider.status(entry.reference),
              view,
              `${what}: two polls at one moment agree`,
            );
            const previous = entry.last;
            assert.ok(
              floristStatusMayFollow(previous.status, view.status),
              `${what}: ${view.status} cannot follow ${previous.status}`,
            );
            assert.deepEqual(
              view.events.slice(0, previous.events.length),
              previous.events,
              `${what}: every event reported before is reported again, unchanged and in its place`,
            );
            entry.last = view;
          }
        }
      },
    ),

    "every failure is a FloristError with a code of FloristErrorCode": run(async (ctx) => {
      const { provider, base } = ctx;
      const key = newKey();
      await provider.submit(base, { idempotencyKey: key });
      const past = addDays(utcDate(ctx.clock.now()), -3);
      const failures: FloristError[] = [
        await refusedWith(
          () => ctx.datesOf("no-such-product-0"),
          "product_unknown",
          "deliveryDates(unknown)",
        ),
        await refusedWith(
          () => provider.deliveryDates(base.product_code, "not a postal code", { country: place.country }),
          "zip_not_covered",
          "deliveryDates(uncovered)",
        ),
        await refusedWith(
          () => ctx.datesOf(base.product_code, "someday"),
          "invalid_request",
          "deliveryDates(from)",
        ),
        await refusedWith(
          () => ctx.quoteOf("no-such-product-0", base.delivery_date),
          "product_unknown",
          "quote",
        ),
        await refusedWith(
          () => ctx.quoteOf(base.product_code, past),
          "delivery_date_unavailable",
          "quote(past)",
        ),
        await refusedWith(
          () => ctx.quoteOf(base.product_code, "someday"),
          "invalid_request",
          "quote(someday)",
        ),
        await refusedWith(
          () => ctx.quoteOf(base.product_code, base.delivery_date, { zip: place.zip, country: "ZZ" }),
          "zip_not_covered",
          "quote(ZZ)",
        ),
        await refusedWith(
          () => provider.submit(base, { idempotencyKey: "" }),
          "invalid_idempotency_key",
          "bad key",
        ),
        await refusedWith(
          () => provider.submit({ ...base, total_cents: -1 }, { idempotencyKey: newKey() }),
          "invalid_order",
          "malformed order",
        ),
        await refusedWith(
          () => provider.submit({ ...base, card_note: "other" }, { idempotencyKey: key }),
          "idempotency_conflict",
          "conflict",
        ),
        await refusedWith(
          () => provider.submit({ ...base, delivery_date: past }, { idempotencyKey: newKey() }),
          "delivery_date_unavailable",
          "submit(past)",
        ),
        await refusedWith(
          () => provider.status("contract-reference-that-does-not-exist-0"),
          "order_not_found",
          "status",
        ),
      ];
      for (const error of failures) {
        assert.ok(FloristError.isInstance(error), "the failure is a FloristError");
        assert.ok(FLORIST_ERROR_CODES.includes(error.code), `${error.code} is one of the port's codes`);
        assert.ok(
          typeof error.message === "string" && error.message.trim().length > 0,
          `${error.code} says why`,
        );
        assert.ok(
          error.field === undefined || (typeof error.field === "string" && error.field.length > 0),
          `${error.code}: field is absent or names something`,
        );
      }
    }),
  };

  return {
    name: options.name ? `florist provider contract (${options.name})` : "florist provider contract",
    tests: kitTests(FLORIST_PROVIDER_CONTRACT_NAMES, tests, FLORIST_PROVIDER_REQUIREMENTS, options.disable),
  };
}

import {
  FloristError,
  type FloristErrorCode,
  type FloristOrder,
  findFloristOrderProblem,
  isDefiniteFloristRefusal,
  isIsoDate,
  manualClock,
  type Store,
} from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { SIMULATED_CATALOGUE } from "./catalogue.ts";
import { createSimulatedFlorist } from "./simulated-florist.ts";
import { FLORIST_TEST_PHRASES } from "./test-phrases.ts";

/** Monday 4 May 2026, 10:00 in New York (14:00 UTC). */
const T0 = Date.parse("2026-05-04T10:00:00-04:00");
const HOUR = 3_600_000;

function setup(options: Partial<Parameters<typeof createSimulatedFlorist>[0]> = {}) {
  const clock = manualClock(T0);
  const store = options.store ?? createMemoryStore({ clock });
  let n = 0;
  const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` };
  const florist = createSimulatedFlorist({ store, clock, ids, ...options });
  return { clock, store, florist };
}

function order(patch: Partial<FloristOrder> = {}, address1 = "350 Fifth Avenue"): FloristOrder {
  return {
    product_code: "red-roses-dozen",
    delivery_date: "2026-05-06",
    card_note: "Happy birthday, Ada! With love from Grace.",
    allow_substitutions: true,
    recipient: {
      name: "Ada Lovelace",
      phone: "+1 212 555 0100",
      address1,
      city: "New York",
      state: "NY",
      zipcode: "10118",
      country: "US",
    },
    customer: { name: "Grace Hopper", email: "grace@example.com", country: "US" },
    total_cents: 8977,
    ...patch,
  };
}

async function codeOf(action: () => Promise<unknown>): Promise<FloristErrorCode | undefined> {
  try {
    await action();
  } catch (error) {
    if (FloristError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

async function refusal(action: () => Promise<unknown>): Promise<FloristError> {
  try {
    await action();
  } catch (error) {
    if (FloristError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a FloristError");
}

describe("catalogue", () => {
  it("lists every product with a code, a name, a description and a price in US cents", async () => {
    const { florist } = setup();
    const products = await florist.catalogue();
    expect(products.map((p) => p.code)).toEqual(SIMULATED_CATALOGUE.map((p) => p.code));
    expect(new Set(products.map((p) => p.code)).size).toBe(products.length);
    for (const p of products) {
      expect(Object.keys(p).sort()).toEqual(["code", "currency", "description", "name", "price_cents"]);
      expect(Number.isSafeInteger(p.price_cents) && p.price_cents >= 0).toBe(true);
      expect(p.currency).toBe("usd");
    }
  });

  it("sells a configured catalogue instead, and refuses a malformed one", async () => {
    const { florist } = setup({
      catalogue: [
        { code: "tulips", name: "Tulips", description: "Ten tulips.", price_cents: 1999, currency: "usd" },
      ],
    });
    expect(await florist.catalogue()).toEqual([
      { code: "tulips", name: "Tulips", description: "Ten tulips.", price_cents: 1999, currency: "usd" },
    ]);
    const tulip = {
      code: "tulips",
      name: "Tulips",
      description: "Ten.",
      price_cents: 1999,
      currency: "usd" as const,
    };
    expect(() => setup({ catalogue: [] })).toThrow(TypeError);
    expect(() => setup({ catalogue: [tulip, tulip] })).toThrow(/twice/);
    expect(() => setup({ catalogue: [{ ...tulip, price_cents: 19.99 }] })).toThrow(RangeError);
    expect(() => setup({ catalogue: [{ ...tulip, code: "two words" }] })).toThrow(TypeError);
    expect(() => setup({ catalogue: [{ ...tulip, lead_days: -1 }] })).toThrow(RangeError);
  });

  it("refuses a product code it does not sell in deliveryDates, quote and submit", async () => {
    const { florist } = setup();
    expect(await codeOf(() => florist.deliveryDates("blue-roses", "10118"))).toBe("product_unknown");
    expect(
      await codeOf(() =>
        florist.quote({ product_code: "blue-roses", zip: "10118", delivery_date: "2026-05-06" }),
      ),
    ).toBe("product_unknown");
    const refused = await refusal(() =>
      florist.submit(order({ product_code: "blue-roses" }), { idempotencyKey: "k1" }),
    );
    expect(refused).toMatchObject({ code: "product_unknown", field: "product_code" });
  });
});

describe("coverage", () => {
  it("covers US ZIPs outside the excluded prefixes and refuses others everywhere", async () => {
    const { florist } = setup();
    expect(await florist.coverage("10118", "US")).toEqual({ covered: true, zip: "10118", country: "US" });
    expect((await florist.coverage("99501", "US")).covered).toBe(false);
    expect((await florist.coverage("SW1A 1AA", "GB")).covered).toBe(false);
    expect(await codeOf(() => florist.deliveryDates("red-roses-dozen", "99501"))).toBe("zip_not_covered");
    expect(
      await codeOf(() =>
        florist.quote({ product_code: "red-roses-dozen", zip: "96813", delivery_date: "2026-05-06" }),
      ),
    ).toBe("zip_not_covered");
    const refused = await refusal(() =>
      florist.submit(order({ recipient: { ...order().recipient, zipcode: "99501" } }), {
        idempotencyKey: "k1",
      }),
    );
    expect(refused).toMatchObject({ code: "zip_not_covered", field: "recipient.zipcode" });
  });
});

describe("delivery dates", () => {
  it("offers dates from today on the injected clock, in order, without Sundays", async () => {
    const { florist, clock } = setup();
    const dates = await florist.deliveryDates("red-roses-dozen", "10118");
    expect(dates.slice(0, 3)).toEqual(["2026-05-04", "2026-05-05", "2026-05-06"]);
    expect(dates).not.toContain("2026-05-10");
    clock.set(Date.parse("2026-05-04T13:00:00-04:00"));
    expect((await florist.deliveryDates("red-roses-dozen", "10118"))[0]).toBe("2026-05-05");
    expect((await florist.deliveryDates("grand-luxe", "10118"))[0]).toBe("2026-05-07");
    expect(await florist.deliveryDates("red-roses-dozen", "10118", { from: "2026-05-10" })).toContain(
      "2026-05-11",
    );
    expect((await florist.deliveryDates("red-roses-dozen", "10118", { from: "2026-05-10" }))[0]).toBe(
      "2026-05-11",
    );
  });

  it("quotes and takes every date it offers, and refuses every other date in both", async () => {
    const { florist } = setup({ rules: { maxDaysAhead: 14, blackoutDates: ["2026-05-12"] } });
    const offered = await florist.deliveryDates("spring-garden", "10118");
    let key = 0;
    for (let day = 0; day <= 20; day++) {
      const date = new Date(Date.UTC(2026, 4, 2 + day)).toISOString().slice(0, 10);
      const quoted = await codeOf(() =>
        florist.quote({ product_code: "spring-garden", zip: "10118", delivery_date: date }),
      );
      const submitted = await codeOf(() =>
        florist.submit(order({ product_code: "spring-garden", delivery_date: date }), {
          idempotencyKey: `k${++key}`,
        }),
      );
      const expected = offered.includes(date) ? undefined : "delivery_date_unavailable";
      expect([date, quoted, submitted]).toEqual([date, expected, expected]);
    }
  });

  it("names the next available dates when it refuses one", async () => {
    const { florist } = setup();
    const refused = await refusal(() =>
      florist.quote({ product_code: "red-roses-dozen", zip: "10118", delivery_date: "2026-05-10" }),
    );
    expect(refused).toMatchObject({ code: "delivery_date_unavailable", field: "delivery_date" });
    expect(refused.message).toContain("next available: 2026-05-11, 2026-05-12, 2026-05-13");
  });

  it("refuses a date that is not a calendar date as invalid_request, naming the argument", async () => {
    const { florist } = setup();
    expect(
      await refusal(() =>
        florist.quote({ product_code: "red-roses-dozen", zip: "10118", delivery_date: "2026-02-30" }),
      ),
    ).toMatchObject({ code: "invalid_request", field: "delivery_date" });
    expect(
      await refusal(() => florist.deliveryDates("red-roses-dozen", "10118", { from: "5/6/2026" })),
    ).toMatchObject({ code: "invalid_request", field: "from" });
  });
});

describe("quote", () => {
  it("prices by date and place: a peak day and a rural ZIP cost more than an ordinary delivery", async () => {
    const { florist } = setup();
    const at = (zip: string, delivery_date: string) =>
      florist.quote({ product_code: "red-roses-dozen", zip, delivery_date });
    const ordinary = await at("10118", "2026-05-06");
    expect(ordinary).toMatchObject({
      product_cents: 6499,
      delivery_cents: 1499,
      service_fee_cents: 399,
      tax_cents: 580,
    });
    expect(ordinary.total_cents).toBe(8977);
    expect((await at("10118", "2026-05-09")).delivery_cents).toBe(2499);
    expect((await at("59801", "2026-05-06")).delivery_cents).toBe(2298);
    expect((await at("10118", "2026-05-04")).delivery_cents).toBe(1999);
  });

  it("totals the grand arrangement above 250.00", async () => {
    const { florist } = setup();
    const q = await florist.quote({ product_code: "grand-luxe", zip: "10118", delivery_date: "2026-05-07" });
    expect(q.total_cents).toBeGreaterThan(25_000);
  });
});

describe("submit", () => {
  it("is idempotent by key: the same order under the same key is one order with one reference", async () => {
    const { florist, store } = setup();
    const first = await florist.submit(order(), { idempotencyKey: "flower-1" });
    expect(first).toMatchObject({
      reference: "flo_00000000000040008000000000000001",
      status: "accepted",
      product_code: "red-roses-dozen",
      delivery_date: "2026-05-06",
      submitted_at: "2026-05-04T14:00:00.000Z",
      idempotent_replay: false,
    });
    const again = await florist.submit(order(), { idempotencyKey: "flower-1" });
    expect(again).toMatchObject({ reference: first.reference, idempotent_replay: true });
    expect((await store.list("florist:simulated:key:")).records).toHaveLength(1);
  });

  it("has exactly one first answer among 20 concurrent submits of one key", async () => {
    const { florist, store } = setup();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => florist.submit(order(), { idempotencyKey: "flower-2" })),
    );
    expect(answers.filter((a) => !a.idempotent_replay)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.reference)).size).toBe(1);
    expect((await store.list("florist:simulated:key:")).records).toHaveLength(1);
  });

  it("gives different keys different orders, and refuses another order under a used key", async () => {
    const { florist } = setup();
    const a = await florist.submit(order(), { idempotencyKey: "a" });
    const b = await florist.submit(order(), { idempotencyKey: "b" });
    expect(a.reference).not.toBe(b.reference);
    expect(
      await codeOf(() => florist.submit(order({ card_note: "Another note" }), { idempotencyKey: "a" })),
    ).toBe("idempotency_conflict");
    expect((await florist.status(a.reference)).events).toHaveLength(1);
  });

  it("answers a replay with the original order even once its date can no longer be booked", async () => {
    const { florist, clock } = setup();
    const first = await florist.submit(order(), { idempotencyKey: "late" });
    clock.set(Date.parse("2026-05-07T12:00:00-04:00"));
    expect(await codeOf(() => florist.submit(order(), { idempotencyKey: "fresh" }))).toBe(
      "delivery_date_unavailable",
    );
    expect(await florist.submit(order(), { idempotencyKey: "late" })).toMatchObject({
      reference: first.reference,
      idempotent_replay: true,
    });
  });

  it("refuses a malformed order and a malformed key, placing nothing", async () => {
    const { florist, store } = setup();
    const bad = await refusal(() =>
      florist.submit(order({ recipient: { ...order().recipient, phone: "" } }), { idempotencyKey: "k" }),
    );
    expect(bad).toMatchObject({ code: "invalid_order", field: "recipient.phone" });
    expect(await codeOf(() => florist.submit(order(), { idempotencyKey: "-bad key" }))).toBe(
      "invalid_idempotency_key",
    );
    expect((await store.list("florist:")).records).toHaveLength(0);
  });

  it("ignores properties the port does not know when comparing orders", async () => {
    const { florist } = setup();
    const first = await florist.submit(order(), { idempotencyKey: "k" });
    const extra = { ...order(), gift_wrap: true } as FloristOrder;
    expect((await florist.submit(extra, { idempotencyKey: "k" })).reference).toBe(first.reference);
  });

  it("shares orders with another florist on the same store", async () => {
    const { florist, store, clock } = setup();
    const first = await florist.submit(order(), { idempotencyKey: "shared" });
    const other = createSimulatedFlorist({ store, clock });
    expect((await other.status(first.reference)).reference).toBe(first.reference);
    expect((await other.submit(order(), { idempotencyKey: "shared" })).idempotent_replay).toBe(true);
  });
});

describe("status: the clock-driven timeline", () => {
  it("is accepted at once, out for delivery at 09:00 and delivered at 14:00 on the delivery date", async () => {
    const { florist, clock } = setup();
    const { reference } = await florist.submit(order(), { idempotencyKey: "k" });
    const seen: Array<[string, string]> = [];
    for (const at of [
      "2026-05-05T23:00",
      "2026-05-06T08:59",
      "2026-05-06T09:00",
      "2026-05-06T13:59",
      "2026-05-06T14:00",
    ]) {
      clock.set(Date.parse(`${at}:00-04:00`));
      seen.push([at, (await florist.status(reference)).status]);
    }
    expect(seen).toEqual([
      ["2026-05-05T23:00", "accepted"],
      ["2026-05-06T08:59", "accepted"],
      ["2026-05-06T09:00", "out_for_delivery"],
      ["2026-05-06T13:59", "out_for_delivery"],
      ["2026-05-06T14:00", "delivered"],
    ]);
    const view = await florist.status(reference);
    expect(view.events).toEqual([
      {
        status: "accepted",
        at: "2026-05-04T14:00:00.000Z",
        description: "Order received for delivery on 2026-05-06",
        location: "Mailpiece simulated florist",
      },
      {
        status: "out_for_delivery",
        at: "2026-05-06T13:00:00.000Z",
        description: "Arranged and out for delivery with the florist's driver",
        location: "New York, NY 10118",
      },
      {
        status: "delivered",
        at: "2026-05-06T18:00:00.000Z",
        description: "Delivered to the recipient",
        location: "New York, NY 10118",
      },
    ]);
    clock.advance(30 * 24 * HOUR);
    expect((await florist.status(reference)).events).toEqual(view.events);
  });

  it("gives a same-day order time to be made: each step at least an hour after the last", async () => {
    const { florist, clock } = setup();
    clock.set(Date.parse("2026-05-04T12:30:00-04:00"));
    const { reference } = await florist.submit(order({ delivery_date: "2026-05-04" }), {
      idempotencyKey: "k",
    });
    clock.advance(24 * HOUR);
    const at = (await florist.status(reference)).events.map((e) => [e.status, e.at]);
    expect(at).toEqual([
      ["accepted", "2026-05-04T16:30:00.000Z"],
      ["out_for_delivery", "2026-05-04T17:30:00.000Z"],
      ["delivered", "2026-05-04T18:30:00.000Z"],
    ]);
  });

  it("moves on fixed delays after submission when the pace says so", async () => {
    const { florist, clock } = setup({ pace: { outForDeliveryAfterMs: 10_000, deliverAfterMs: 30_000 } });
    const { reference } = await florist.submit(order(), { idempotencyKey: "k" });
    clock.advance(9_999);
    expect((await florist.status(reference)).status).toBe("accepted");
    clock.advance(1);
    expect((await florist.status(reference)).status).toBe("out_for_delivery");
    clock.advance(20_000);
    expect((await florist.status(reference)).status).toBe("delivered");
  });

  it("refuses an unknown reference with order_not_found", async () => {
    const { florist } = setup();
    expect(await codeOf(() => florist.status("flo_nothing"))).toBe("order_not_found");
    expect(await codeOf(() => florist.status("../etc"))).toBe("order_not_found");
  });
});

describe("scripted test addresses", () => {
  it(`${FLORIST_TEST_PHRASES.deliveryFails}: out for delivery, then failed at delivery time`, async () => {
    const { florist, clock } = setup();
    const { reference } = await florist.submit(order({}, "1 Main St, DELIVERY FAILS"), {
      idempotencyKey: "k",
    });
    clock.set(Date.parse("2026-05-06T15:00:00-04:00"));
    const view = await florist.status(reference);
    expect(view.events.map((e) => e.status)).toEqual(["accepted", "out_for_delivery", "failed"]);
  });

  it(`${FLORIST_TEST_PHRASES.submitTimeout}: the first answer is lost, a retry under the key finds the order`, async () => {
    const { florist, store } = setup();
    const scripted = order({}, "1 Main St, submit timeout");
    expect(await codeOf(() => florist.submit(scripted, { idempotencyKey: "k" }))).toBe("florist_unavailable");
    const retry = await florist.submit(scripted, { idempotencyKey: "k" });
    expect(retry.idempotent_replay).toBe(true);
    expect((await store.list("florist:simulated:key:")).records).toHaveLength(1);
  });
});

describe("errors and options", () => {
  it("reports Store trouble as florist_unavailable, an unknown outcome", async () => {
    const broken = new Proxy(createMemoryStore(), {
      get(target, prop, receiver) {
        if (prop === "get" || prop === "create") return () => Promise.reject(new Error("disk on fire"));
        return Reflect.get(target, prop, receiver);
      },
    }) as Store;
    const { florist } = setup({ store: broken });
    const refused = await refusal(() => florist.submit(order(), { idempotencyKey: "k" }));
    expect(refused.code).toBe("florist_unavailable");
    expect(isDefiniteFloristRefusal(refused)).toBe(false);
    expect(isDefiniteFloristRefusal(new FloristError("delivery_date_unavailable", "x"))).toBe(true);
    expect(isDefiniteFloristRefusal(new Error("x"))).toBe(false);
  });

  it("refuses a bad name, pace or rules when it is made", () => {
    expect(() => setup({ name: "Not OK" })).toThrow(TypeError);
    expect(() => setup({ pace: { outForDeliveryHour: 15, deliveredHour: 14 } })).toThrow(RangeError);
    expect(() => setup({ pace: { outForDeliveryAfterMs: 10 } })).toThrow(/together/);
    expect(() => setup({ pace: { outForDeliveryAfterMs: 20, deliverAfterMs: 10 } })).toThrow(RangeError);
    expect(() => setup({ rules: { timeZone: "Nowhere/Special" } })).toThrow(RangeError);
    expect(() => setup({ rules: { sameDayCutoffHour: 0 } })).toThrow(RangeError);
    expect(() => setup({ rules: { taxRateBasisPoints: 7.25 } })).toThrow(RangeError);
    expect(() => setup({ rules: { closedWeekdays: [7] } })).toThrow(RangeError);
    expect(() => setup({ rules: { blackoutDates: ["tomorrow"] } })).toThrow(RangeError);
    expect(() => setup({ rules: { ruralZipPrefixes: ["59x"] } })).toThrow(RangeError);
  });

  it("recognises a FloristError from another copy of the package by its marker", () => {
    const lookalike = Object.assign(new Error("x"), { [Symbol.for("mailpiece.error.FloristError")]: true });
    expect(FloristError.isInstance(lookalike)).toBe(true);
    expect(FloristError.isInstance(new Error("x"))).toBe(false);
  });
});

describe("port helpers", () => {
  it("isIsoDate accepts calendar dates only", () => {
    for (const ok of ["2026-05-06", "2028-02-29"]) expect(isIsoDate(ok)).toBe(true);
    for (const bad of ["2026-02-29", "2026-13-01", "2026-5-6", "06/05/2026", "0999-01-01", 20260506]) {
      expect(isIsoDate(bad)).toBe(false);
    }
  });

  it("findFloristOrderProblem names the first field at fault", () => {
    expect(findFloristOrderProblem(order())).toBeUndefined();
    const cases: Array<[Partial<FloristOrder>, string]> = [
      [{ product_code: "" }, "product_code"],
      [{ delivery_date: "2026-05-32" }, "delivery_date"],
      [{ card_note: "x".repeat(201) }, "card_note"],
      [{ allow_substitutions: "yes" as unknown as boolean }, "allow_substitutions"],
      [{ total_cents: 12.5 }, "total_cents"],
      [{ recipient: { ...order().recipient, address1: " " } }, "recipient.address1"],
      [{ recipient: { ...order().recipient, country: "usa" } }, "recipient.country"],
      [{ customer: { name: "Grace", email: "", country: "US" } }, "customer.email"],
      [{ customer: { name: "Grace", email: "g@example.com", country: "US", phone: "" } }, "customer.phone"],
    ];
    for (const [patch, field] of cases) expect(findFloristOrderProblem(order(patch))?.field).toBe(field);
    expect(findFloristOrderProblem(order({ card_note: "🌹".repeat(200) }))).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { SIMULATED_CATALOGUE, type SimulatedProduct } from "./catalogue.ts";
import { priceOf } from "./price-rules.ts";
import { resolveRules } from "./rules.ts";

const roses = SIMULATED_CATALOGUE.find((p) => p.code === "red-roses-dozen") as SimulatedProduct;
const price = (patch: Partial<Parameters<typeof priceOf>[0]> = {}) =>
  priceOf({
    product: roses,
    zip: "10001",
    country: "US",
    delivery_date: "2026-05-05",
    today: "2026-05-04",
    rules: resolveRules(),
    ...patch,
  });

describe("priceOf: dynamic florist pricing", () => {
  it("prices an ordinary delivery: product, delivery, service fee and tax on product and delivery", () => {
    const q = price();
    expect(q).toMatchObject({
      product_cents: 6499,
      delivery_cents: 1499,
      service_fee_cents: 399,
      // 7.25 % of 79.98 = 5.79855, rounded to 5.80
      tax_cents: 580,
      total_cents: 6499 + 1499 + 399 + 580,
      currency: "usd",
    });
    expect(q.lines.map((l) => l.code)).toEqual(["product", "delivery", "service_fee", "tax"]);
  });

  it("adds a same-day fee, a peak-day surcharge and a rural surcharge to delivery", () => {
    expect(price({ delivery_date: "2026-05-04" }).delivery_cents).toBe(1499 + 500);
    expect(price({ delivery_date: "2026-05-09" }).delivery_cents).toBe(1499 + 1000);
    expect(price({ zip: "59801" }).delivery_cents).toBe(1499 + 799);
    const all = price({ delivery_date: "2026-05-09", today: "2026-05-09", zip: "82001" });
    expect(all.lines.map((l) => l.code)).toEqual([
      "product",
      "delivery",
      "same_day_fee",
      "holiday_surcharge",
      "rural_surcharge",
      "service_fee",
      "tax",
    ]);
    expect(all.delivery_cents).toBe(1499 + 500 + 1000 + 799);
  });

  it("rounds tax half up in integer cents", () => {
    // 100 cents of product and 0 delivery at 0.5 %: 0.5 cents rounds up to 1.
    const product = { ...roses, price_cents: 100 };
    const rules = resolveRules({ deliveryFeeCents: 0, taxRateBasisPoints: 50 });
    expect(price({ product, rules }).tax_cents).toBe(1);
    expect(
      price({ product, rules: resolveRules({ deliveryFeeCents: 0, taxRateBasisPoints: 49 }) }).tax_cents,
    ).toBe(0);
  });

  it("keeps the parts and the lines adding up to the total", () => {
    for (const patch of [
      {},
      { delivery_date: "2026-05-04" },
      { zip: "58102", delivery_date: "2026-12-23" },
    ]) {
      const q = price(patch);
      expect(q.product_cents + q.delivery_cents + q.service_fee_cents + q.tax_cents).toBe(q.total_cents);
      expect(q.lines.reduce((sum, l) => sum + l.amount_cents, 0)).toBe(q.total_cents);
      expect(q.lines.every((l) => Number.isSafeInteger(l.amount_cents) && l.amount_cents >= 0)).toBe(true);
    }
  });

  it("leaves out a surcharge that is set to zero", () => {
    const q = price({ zip: "59801", rules: resolveRules({ ruralSurchargeCents: 0 }) });
    expect(q.lines.map((l) => l.code)).not.toContain("rural_surcharge");
  });
});

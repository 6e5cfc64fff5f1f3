import type { FloristQuote, FloristQuoteLine } from "@mailpiece/ports";
import type { SimulatedProduct } from "./catalogue.ts";
import { isRural } from "./coverage.ts";
import { isPeakDay } from "./delivery-dates.ts";
import type { FloristRules } from "./rules.ts";

/**
 * Prices one product delivered to a covered ZIP on an available date. Dynamic: the delivery fee grows with a
 * same-day delivery, a peak day and a rural ZIP; tax is charged on product and delivery, rounded half up.
 */
export function priceOf(input: {
  product: SimulatedProduct;
  zip: string;
  country: string;
  delivery_date: string;
  today: string;
  rules: FloristRules;
}): FloristQuote {
  const { product, zip, delivery_date, rules } = input;
  const delivery: FloristQuoteLine[] = [
    { code: "delivery", label: "Local florist delivery", amount_cents: rules.deliveryFeeCents },
  ];
  if (delivery_date === input.today && rules.sameDayFeeCents > 0) {
    delivery.push({ code: "same_day_fee", label: "Same-day delivery", amount_cents: rules.sameDayFeeCents });
  }
  if (isPeakDay(delivery_date) && rules.holidaySurchargeCents > 0) {
    delivery.push({
      code: "holiday_surcharge",
      label: "Peak-day surcharge",
      amount_cents: rules.holidaySurchargeCents,
    });
  }
  if (isRural(zip, rules) && rules.ruralSurchargeCents > 0) {
    delivery.push({
      code: "rural_surcharge",
      label: "Rural delivery surcharge",
      amount_cents: rules.ruralSurchargeCents,
    });
  }
  const product_cents = product.price_cents;
  const delivery_cents = delivery.reduce((sum, line) => sum + line.amount_cents, 0);
  const service_fee_cents = rules.serviceFeeCents;
  // Integer arithmetic: the taxable amount times the rate in basis points, halves rounded up.
  const tax_cents = Math.floor(
    ((product_cents + delivery_cents) * rules.taxRateBasisPoints + 5_000) / 10_000,
  );
  const lines: FloristQuoteLine[] = [
    { code: "product", label: product.name, amount_cents: product_cents },
    ...delivery,
    { code: "service_fee", label: "Service fee", amount_cents: service_fee_cents },
    { code: "tax", label: "Sales tax", amount_cents: tax_cents },
  ];
  return {
    product_code: product.code,
    zip,
    country: input.country,
    delivery_date,
    product_cents,
    delivery_cents,
    service_fee_cents,
    tax_cents,
    total_cents: product_cents + delivery_cents + service_fee_cents + tax_cents,
    currency: "usd",
    lines,
  };
}

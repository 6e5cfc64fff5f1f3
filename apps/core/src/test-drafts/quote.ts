/** The mail class a test piece is quoted for, and whether it goes by proof mail. */
export interface TestMailService {
  mail_class: "standard" | "priority" | "express";
  certified: boolean;
}

/** One line of a test quote: what a live quote would bill for, at no cost. */
export interface TestLineItem {
  code: string;
  description: string;
  quantity: number;
  unit_cents: 0;
  amount_cents: 0;
}

/** A zero-dollar quote: the line items a live letter of the same pages and service carries, each at 0. */
export interface TestQuote {
  mode: "test";
  price_cents: 0;
  currency: "usd";
  line_items: TestLineItem[];
  note: string;
}

const free = (code: string, description: string, quantity = 1): TestLineItem => ({
  code,
  description,
  quantity,
  unit_cents: 0,
  amount_cents: 0,
});

/**
 * The quote of a test letter of `pageCount` pages: the line items carry the codes of the pricing engine's letter
 * items (letter_base, bw_pages, priority_mail, express_mail, certified_mail), so an integration can read them as it
 * will read a live quote, and every amount is 0.
 */
export function testQuote(pageCount: number, service: TestMailService): TestQuote {
  const items = [
    free("letter_base", "Letter: printing, folding, envelope and first-class postage"),
    free("bw_pages", "Black-and-white pages", pageCount),
  ];
  if (service.mail_class === "priority") items.push(free("priority_mail", "Priority Mail"));
  if (service.mail_class === "express") items.push(free("express_mail", "Priority Mail Express"));
  if (service.certified) items.push(free("certified_mail", "US Certified Mail"));
  return {
    mode: "test",
    price_cents: 0,
    currency: "usd",
    line_items: items,
    note: "Test mode: nothing is charged, printed or mailed.",
  };
}

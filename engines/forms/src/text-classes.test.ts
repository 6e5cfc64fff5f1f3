import { describe, expect, it } from "vitest";
import { formatCurrency, isEmail, parseCurrency } from "./text-classes.ts";

describe("isEmail", () => {
  it.each(["a@example.com", "first.last+tag@mail.example.co.uk"])("accepts %s", (text) =>
    expect(isEmail(text)).toBe(true),
  );
  it.each([
    "a@example",
    "a example.com",
    "@example.com",
    "a@@example.com",
    ".a@example.com",
    "a..b@example.com",
    "a@-x.com",
  ])("refuses %s", (text) => expect(isEmail(text)).toBe(false));
});

describe("parseCurrency", () => {
  it.each([
    ["1234.56", 123456],
    ["$1,234.56", 123456],
    ["$ 74", 7400],
    ["0.5", 50],
    ["1,000,000", 100000000],
  ])("%s is %i cents", (text, cents) => expect(parseCurrency(text)).toBe(cents));
  it.each(["0", "0.00", "-1", "+1", "1.234", "1,23", "12,3456", "USD 12", "€12", "1e3", "", "$"])(
    "refuses %s",
    (text) => expect(parseCurrency(text)).toBeUndefined(),
  );
  it("formats cents as dollars", () => {
    expect(formatCurrency(123456)).toBe("$1,234.56");
    expect(formatCurrency(7)).toBe("$0.07");
  });
});

/**
 * The value classes of text fields: email and currency (phone numbers are read in phone.ts). Each check takes
 * the trimmed answer.
 */

const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** An email address: local part, "@", a domain of at least two labels; at most 254 characters, no spaces. */
export function isEmail(text: string): boolean {
  if (text.length > 254 || !EMAIL.test(text)) return false;
  const local = text.slice(0, text.lastIndexOf("@"));
  return local.length <= 64 && !local.startsWith(".") && !local.endsWith(".") && !local.includes("..");
}

/** "$1,234.56", "1234.56", "$ 1234", "1,234.5": an optional dollar sign, thousands grouped by commas or not. */
const CURRENCY = /^\$?\s?((?:[0-9]{1,3}(?:,[0-9]{3})+)|[0-9]+)(?:\.([0-9]{1,2}))?$/;

/** The most a currency answer may state: $999,999,999,999.99 (chosen, to keep amounts in safe integers). */
export const MAX_CURRENCY_CENTS = 99_999_999_999_999;

/**
 * Parses a positive US dollar amount ("1234.56", "$1,234.56") to integer cents. Returns undefined for anything
 * else: zero, negative or signed amounts, more than two decimals, misplaced commas, other currencies.
 */
export function parseCurrency(text: string): number | undefined {
  const match = CURRENCY.exec(text);
  if (!match) return undefined;
  const whole = (match[1] ?? "").replace(/,/g, "");
  if (whole.length > 12) return undefined;
  const cents = Number(whole) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  if (!(cents > 0) || cents > MAX_CURRENCY_CENTS) return undefined;
  return cents;
}

/** Integer cents as "$1,234.56". */
export function formatCurrency(cents: number): string {
  const whole = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `$${whole}.${(cents % 100).toString().padStart(2, "0")}`;
}

/**
 * Every code a flower-letter issue can carry. The codes are a stable wire contract: clients branch on them, so a
 * code is never renamed or reused for another meaning. Messages are for people and may change.
 */
export const FLOWER_ISSUE_CODES = [
  // Shape of the request (JSON Schema), as for machine orders.
  "unknown_property",
  "required",
  "invalid_type",
  "too_short",
  "too_long",
  "invalid_enum",
  "invalid_format",
  "out_of_range",
  // Rules across fields.
  "zipcode_mismatch",
  // Checked with the florist before the 402 (added by whoever asks the florist).
  "product_unknown",
  "zip_not_covered",
  "delivery_date_unavailable",
  // The final quote is outside FLOWER_LETTER_BOUNDS.
  "quote_out_of_bounds",
] as const;

export type FlowerIssueCode = (typeof FLOWER_ISSUE_CODES)[number];

/** True when `code` is one of the codes of a flower-letter issue. */
export function isFlowerIssueCode(code: string): code is FlowerIssueCode {
  return (FLOWER_ISSUE_CODES as readonly string[]).includes(code);
}

import type { Charges } from "./charges.ts";
import type { Block } from "./layout.ts";

/** The notice above a test-mode receipt. */
export const TEST_RECEIPT_NOTICE =
  "Test mode: this is a test receipt. Nothing was charged and nothing will be mailed.";

/** The charges of a receipt: each line item, then the total paid. */
export function chargesBlock(charges: Charges): Block {
  return {
    kind: "amounts",
    title: "Charges",
    rows: charges.rows,
    total: { label: "Total paid (USD)", cents: charges.total_cents },
  };
}

/** The last paragraph of a receipt. */
export const KEEP_RECEIPT: Block = { kind: "paragraph", text: "Keep this email as your receipt." };

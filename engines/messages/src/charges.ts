import { formatUsd } from "./format-usd.ts";
import type { Amount } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import { type Fields, type InputReader, pathOf } from "./read-input.ts";

/** One charge of a receipt, in integer cents. */
export interface LineItem {
  /** 1 to 200 characters, e.g. "Letter, 3 pages" or "Certified mail". */
  label: string;
  amount_cents: number;
}

export interface Charges {
  rows: Amount[];
  total_cents: number;
}

/**
 * The `line_items`, `total_cents` and `currency` of a receipt: 1 to 100 line items of whole, non-negative cents
 * that add up to the total exactly (`total_mismatch` at `total_cents` otherwise), in "usd".
 */
export function readCharges(reader: InputReader, fields: Fields): Charges | undefined {
  const items = reader.list(fields, "line_items", "", 1, MESSAGE_LIMITS.line_items);
  const rows = items?.map((value, index): Amount | undefined => {
    const path = pathOf("line_items", index);
    const item = reader.object(value, path, ["label", "amount_cents"]);
    if (item === undefined) return undefined;
    const label = reader.text(item, "label", path, { max: MESSAGE_LIMITS.line_item_label_chars });
    const cents = reader.cents(item, "amount_cents", path);
    return label === undefined || cents === undefined ? undefined : { label, cents };
  });
  const total = reader.cents(fields, "total_cents", "");
  reader.oneOf(fields, "currency", "", ["usd"]);
  if (rows === undefined || total === undefined || rows.some((row) => row === undefined)) return undefined;
  const amounts = rows as Amount[];
  const sum = amounts.reduce((all, row) => all + row.cents, 0);
  if (!Number.isSafeInteger(sum) || sum !== total) {
    reader.add(
      "total_cents",
      "total_mismatch",
      `The line items add up to ${formatUsd(sum)}, but total_cents is ${formatUsd(total)}.`,
    );
    return undefined;
  }
  return { rows: amounts, total_cents: total };
}

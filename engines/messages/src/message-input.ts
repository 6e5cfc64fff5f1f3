import { type Brand, readBrand } from "./brand.ts";
import type { BrandView } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import type { MailedItem } from "./mailed-item.ts";
import type { Fields, InputReader } from "./read-input.ts";

/** The fields every message takes. */
export interface MessageInput {
  /** Who sends the message; default "Mailpiece". */
  brand?: Brand;
  /** A test-mode order or campaign: "[TEST] " before the subject and a notice on top. */
  test_mode?: boolean;
}

/** The fields every message about one order takes. */
export interface OrderMessageInput extends MessageInput {
  /** The order's id: 1 to 200 characters, no spaces or control characters. */
  order_id: string;
  /** What is (or was) mailed. */
  item: MailedItem;
}

/** The rule of an order or campaign id. */
export const ID_RULE = { max: MESSAGE_LIMITS.id_chars, token: true } as const;

/**
 * Opens a message's input: an object of the shared fields and `own` ones (`unknown_field` for any other), with the
 * brand (or the default) and the test-mode flag read.
 */
export function openInput(
  reader: InputReader,
  input: unknown,
  own: readonly string[],
): { fields: Fields; brand: BrandView; test: boolean } {
  const fields = reader.object(input, "", ["brand", "test_mode", ...own]) ?? {};
  return { fields, brand: readBrand(reader, fields.brand), test: reader.flag(fields, "test_mode", "") };
}

/** `[TEST] ` in test mode, nothing otherwise: what goes before a subject. */
export function testPrefix(test: boolean): string {
  return test ? "[TEST] " : "";
}

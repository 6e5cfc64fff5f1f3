import type { BrandView } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import type { InputReader } from "./read-input.ts";

/** Who sends the message: the name shown on top and in subjects, its site and support address in the footer. */
export interface Brand {
  /** 1 to 100 characters; default "Mailpiece". */
  name: string;
  /** Linked when http(s); shown as text otherwise. */
  url?: string;
  /** Written as a mailto: link when it is a plain address. */
  support_email?: string;
}

export const DEFAULT_BRAND: Readonly<Brand> = Object.freeze({ name: "Mailpiece" });

/** The brand of an input (`brand`), or the default one when it is absent. */
export function readBrand(reader: InputReader, value: unknown): BrandView {
  if (value === undefined) return { name: DEFAULT_BRAND.name, url: null, support_email: null };
  const fields = reader.object(value, "brand", ["name", "url", "support_email"]);
  if (fields === undefined) return { name: DEFAULT_BRAND.name, url: null, support_email: null };
  return {
    name:
      reader.text(fields, "name", "brand", { max: MESSAGE_LIMITS.brand_name_chars }) ?? DEFAULT_BRAND.name,
    url: reader.optionalText(fields, "url", "brand", { max: MESSAGE_LIMITS.url_chars }) ?? null,
    support_email:
      reader.optionalText(fields, "support_email", "brand", { max: MESSAGE_LIMITS.support_email_chars }) ??
      null,
  };
}

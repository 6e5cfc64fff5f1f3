import type { PriceBook } from "./price-book.ts";

/**
 * The default Mailpiece price book, all amounts in US cents.
 *
 * Published prices (Projects API, "Pricing constants"): letter base fee 180, 20 per black-and-white page, 40 per
 * color page; US Certified Mail 800; Canada registered mail 3200; electronic return receipt 300.
 *
 * Prices chosen here where the published list is silent, each covering the postal fee plus handling:
 * - registered mail to BE, CH, ES and FR: 3200, the same as Canada;
 * - physical (green card) return receipt 500: the USPS card fee of 4.40 plus scanning and mailing it back;
 * - restricted delivery 750: the USPS fee plus handling;
 * - signature required on priority and express letters 450: USPS Signature Confirmation plus handling;
 * - priority 1200 and express 3400: flat-rate envelope postage of Priority Mail and Priority Mail Express plus
 *   handling, added to the letter price (domestic only);
 * - postcards by size, printing in color on both sides and postage: 4x6 190, 6x9 260, 11x6 380;
 * - a handwritten piece 325 (written with a pen by a handwriting machine on one sheet, folded and enveloped), plus
 *   78 of first-class postage (the USPS first-class stamp), whatever the length of the message;
 * - international postage surcharge per destination, once per mailpiece: CA 150, IN 250, every European
 *   destination 200.
 * Proof of mailing: US Certified Mail to the US; registered mail to CA, BE, CH, ES and FR; none elsewhere.
 *
 * Versions: 2026-11-01 letters and postcards; 2026-12-01 adds handwritten mail, every other price unchanged.
 */
export const DEFAULT_PRICE_BOOK: PriceBook = deepFreeze({
  pricing_version: "2026-12-01",
  currency: "usd",
  origin_country: "US",
  letter: { base_cents: 180, bw_page_cents: 20, color_page_cents: 40 },
  postcard: { "4x6": 190, "6x9": 260, "11x6": 380 },
  handwritten: { piece_cents: 325, postage_cents: 78 },
  mail_class: { priority_cents: 1200, express_cents: 3400 },
  add_ons: {
    signature_required_cents: 450,
    return_receipt_electronic_cents: 300,
    return_receipt_physical_cents: 500,
    restricted_delivery_cents: 750,
  },
  destinations: {
    US: { route_cents: 0, proof: { kind: "certified", cents: 800 } },
    CA: { route_cents: 150, proof: { kind: "registered", cents: 3200 } },
    AT: { route_cents: 200, proof: null },
    BE: { route_cents: 200, proof: { kind: "registered", cents: 3200 } },
    CH: { route_cents: 200, proof: { kind: "registered", cents: 3200 } },
    DE: { route_cents: 200, proof: null },
    ES: { route_cents: 200, proof: { kind: "registered", cents: 3200 } },
    FR: { route_cents: 200, proof: { kind: "registered", cents: 3200 } },
    GB: { route_cents: 200, proof: null },
    IN: { route_cents: 250, proof: null },
    LU: { route_cents: 200, proof: null },
    NL: { route_cents: 200, proof: null },
  },
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

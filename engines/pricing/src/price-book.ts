import { PricingError } from "./errors.ts";

export type PostcardSize = "4x6" | "6x9" | "11x6";
export const POSTCARD_SIZES: readonly PostcardSize[] = ["4x6", "6x9", "11x6"];

/**
 * How proof of mailing is bought to a destination: `certified` is US Certified Mail (it alone takes a return receipt
 * and restricted delivery); `registered` is international registered mail.
 */
export type ProofKind = "certified" | "registered";

/** What one destination costs on top of the mailpiece itself, and which proof of mailing it offers. */
export interface DestinationPrices {
  /** Postage surcharge of the route, once per mailpiece (letters and postcards); 0 for the home country. */
  readonly route_cents: number;
  /** The proof of mailing sold to this destination, or null where none is offered. */
  readonly proof: { readonly kind: ProofKind; readonly cents: number } | null;
}

/**
 * A versioned price book: every price Mailpiece charges, in integer cents. A book is data; `quote()` reads it and
 * `validatePriceBook()` refuses one that is incomplete.
 */
export interface PriceBook {
  /** Names this book in every quote it produced, e.g. "2026-11-01". */
  readonly pricing_version: string;
  readonly currency: "usd";
  /** The only origin this book carries mail from (ISO 3166 alpha-2). Mail to the same country is domestic. */
  readonly origin_country: string;
  readonly letter: {
    /** Printing, folding, envelope and first-class postage of one letter. */
    readonly base_cents: number;
    readonly bw_page_cents: number;
    readonly color_page_cents: number;
  };
  /** One postcard by size: printing (color, both sides) and postage. */
  readonly postcard: { readonly [size in PostcardSize]: number };
  /**
   * One handwritten piece (a single sheet written with a pen by a handwriting machine), whatever its length: the
   * writing, the sheet and its envelope; and the first-class stamp it is posted with. Standard mail only.
   */
  readonly handwritten: { readonly piece_cents: number; readonly postage_cents: number };
  /** Faster domestic mail classes, added to a letter instead of first-class postage. Domestic only. */
  readonly mail_class: { readonly priority_cents: number; readonly express_cents: number };
  readonly add_ons: {
    /** Signature on delivery; only priority and express letters take it. */
    readonly signature_required_cents: number;
    /** Return receipts and restricted delivery are sold with US Certified Mail only. */
    readonly return_receipt_electronic_cents: number;
    readonly return_receipt_physical_cents: number;
    readonly restricted_delivery_cents: number;
  };
  /** Every destination the book carries mail to, keyed by ISO 3166 alpha-2 code; the origin is one of them. */
  readonly destinations: { readonly [country: string]: DestinationPrices };
}

const COUNTRY = /^[A-Z]{2}$/;

/**
 * Checks that `book` is a complete price book: every price present as a non-negative integer number of cents, every
 * destination keyed by an upper-case alpha-2 code, the origin among the destinations, no unknown keys.
 * Returns the book typed; throws PricingError `invalid_price_book` with `field` set to the path at fault.
 */
export function validatePriceBook(book: unknown): PriceBook {
  const root = record(book, "");
  exactKeys(root, "", [
    "pricing_version",
    "currency",
    "origin_country",
    "letter",
    "postcard",
    "handwritten",
    "mail_class",
    "add_ons",
    "destinations",
  ]);
  if (typeof root.pricing_version !== "string" || root.pricing_version.trim() === "") {
    fail("pricing_version", "must be a non-empty string");
  }
  if (root.currency !== "usd") fail("currency", 'must be "usd"');
  if (typeof root.origin_country !== "string" || !COUNTRY.test(root.origin_country)) {
    fail("origin_country", "must be an upper-case ISO 3166 alpha-2 code");
  }

  const letter = record(root.letter, "letter");
  exactKeys(letter, "letter", ["base_cents", "bw_page_cents", "color_page_cents"]);
  for (const key of ["base_cents", "bw_page_cents", "color_page_cents"]) cents(letter[key], `letter.${key}`);

  const postcard = record(root.postcard, "postcard");
  exactKeys(postcard, "postcard", POSTCARD_SIZES);
  for (const size of POSTCARD_SIZES) cents(postcard[size], `postcard.${size}`);

  const handwritten = record(root.handwritten, "handwritten");
  exactKeys(handwritten, "handwritten", ["piece_cents", "postage_cents"]);
  for (const key of ["piece_cents", "postage_cents"]) cents(handwritten[key], `handwritten.${key}`);

  const mailClass = record(root.mail_class, "mail_class");
  exactKeys(mailClass, "mail_class", ["priority_cents", "express_cents"]);
  for (const key of ["priority_cents", "express_cents"]) cents(mailClass[key], `mail_class.${key}`);

  const addOnKeys = [
    "signature_required_cents",
    "return_receipt_electronic_cents",
    "return_receipt_physical_cents",
    "restricted_delivery_cents",
  ];
  const addOns = record(root.add_ons, "add_ons");
  exactKeys(addOns, "add_ons", addOnKeys);
  for (const key of addOnKeys) cents(addOns[key], `add_ons.${key}`);

  const destinations = record(root.destinations, "destinations");
  const countries = Object.keys(destinations);
  if (countries.length === 0) fail("destinations", "must name at least one destination");
  for (const country of countries) {
    const path = `destinations.${country}`;
    if (!COUNTRY.test(country)) fail(path, "must be keyed by an upper-case ISO 3166 alpha-2 code");
    const destination = record(destinations[country], path);
    exactKeys(destination, path, ["route_cents", "proof"]);
    cents(destination.route_cents, `${path}.route_cents`);
    if (destination.proof !== null) {
      const proof = record(destination.proof, `${path}.proof`);
      exactKeys(proof, `${path}.proof`, ["kind", "cents"]);
      if (proof.kind !== "certified" && proof.kind !== "registered") {
        fail(`${path}.proof.kind`, 'must be "certified" or "registered"');
      }
      cents(proof.cents, `${path}.proof.cents`);
    }
  }
  if (!Object.hasOwn(destinations, root.origin_country as string)) {
    fail("destinations", `must include the origin country ${String(root.origin_country)}`);
  }
  return book as PriceBook;
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(path, value === undefined ? "is missing" : "must be an object");
  }
  return value as Record<string, unknown>;
}

function exactKeys(value: Record<string, unknown>, path: string, keys: readonly string[]): void {
  for (const key of keys) {
    if (!Object.hasOwn(value, key)) fail(join(path, key), "is missing");
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) fail(join(path, key), "is not a known key of a price book");
  }
}

function cents(value: unknown, path: string): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(path, value === undefined ? "is missing" : "must be a non-negative integer number of cents");
  }
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function fail(path: string, reason: string): never {
  const where = path === "" ? "The price book" : `Price book field ${path}`;
  throw new PricingError("invalid_price_book", `${where} ${reason}.`, path === "" ? {} : { field: path });
}

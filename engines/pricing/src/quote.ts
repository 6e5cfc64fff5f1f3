import { DEFAULT_PRICE_BOOK } from "./default-price-book.ts";
import { PricingError } from "./errors.ts";
import { formatUsd } from "./format-usd.ts";
import type { PostcardSize, PriceBook, ProofKind } from "./price-book.ts";
import { POSTCARD_SIZES, validatePriceBook } from "./price-book.ts";

export type MailClass = "standard" | "priority" | "express";

/** Everything that moves the price of one mailpiece to one recipient. */
export interface QuoteInput {
  /** `handwritten`: one sheet written with a pen by a handwriting machine, posted with a first-class stamp. */
  mailpiece_type: "letter" | "postcard" | "handwritten";
  /** Required for postcards; ignored for letters and handwritten pieces. */
  postcard_size?: PostcardSize;
  /**
   * Integer >= 1: pages of the printed document. Postcards are priced by size and handwritten pieces by the piece,
   * not pages.
   */
  page_count: number;
  /** Letters only; postcards always print in color. */
  color: boolean;
  /** Letters only; does not change the price (every printed page is billed). */
  double_sided: boolean;
  mail_class: MailClass;
  certified: boolean;
  certified_return_receipt: boolean;
  return_receipt_format: "electronic" | "physical";
  restricted_delivery: boolean;
  signature_required: boolean;
  /** ISO 3166 alpha-2, upper case. */
  destination_country: string;
  /** ISO 3166 alpha-2, upper case. */
  origin_country: string;
}

export interface LineItem {
  code: string;
  description: string;
  quantity: number;
  unit_cents: number;
  amount_cents: number;
}

export interface Quote {
  pricing_version: string;
  currency: "usd";
  /** Every charge, plus an adjustment line (code "minimum_charge") when the floor applies. */
  line_items: LineItem[];
  /** Sum of the charges before the floor. */
  subtotal_cents: number;
  /** What the buyer pays. */
  total_cents: number;
  /** `proof` is the proof of mailing this mailpiece travels with: "none" unless certified was asked for. */
  route: {
    origin_country: string;
    destination_country: string;
    zone: "domestic" | "international";
    proof: "none" | ProofKind;
  };
}

/** The price range of one order: below `min_cents` the floor applies, above `max_cents` no quote is given. */
export interface QuoteBounds {
  min_cents: number;
  max_cents: number;
}

/** Machine orders cost 3.40 to 200.00 USD. */
export const MACHINE_ORDER_BOUNDS: QuoteBounds = Object.freeze({ min_cents: 340, max_cents: 20000 });

/**
 * Projects API pieces cost what the published constants add up to, with no floor (a one-page letter is 2.00), and
 * no more than 200.00 USD a piece, the machine orders' ceiling.
 */
export const PROJECT_ORDER_BOUNDS: QuoteBounds = Object.freeze({ min_cents: 0, max_cents: 20000 });

const COUNTRY = /^[A-Z]{2}$/;
const MAILPIECE_TYPES: readonly QuoteInput["mailpiece_type"][] = ["letter", "postcard", "handwritten"];
const BOOLEAN_FIELDS = [
  "color",
  "double_sided",
  "certified",
  "certified_return_receipt",
  "restricted_delivery",
  "signature_required",
] as const;

/**
 * Prices one mailpiece. Pure: the same input, book and bounds give a deep-equal quote.
 * Throws PricingError: `invalid_quote_input`, `route_unavailable`, `option_unavailable`, `quote_above_ceiling`, and
 * `invalid_price_book` / `invalid_bounds` for a malformed book or bounds.
 */
export function quote(input: QuoteInput, options: { book?: PriceBook; bounds?: QuoteBounds } = {}): Quote {
  return priced(
    input,
    validatePriceBook(options.book ?? DEFAULT_PRICE_BOOK),
    checkBounds(options.bounds ?? MACHINE_ORDER_BOUNDS),
  );
}

/** Prices one mailpiece with the book and bounds a quoter was made with. Throws as `quote` does. */
export type Quoter = (input: QuoteInput) => Quote;

/**
 * `quote` for one book and bounds, checked once here instead of on every call (a server quotes on every request).
 * Both are copied, so later changes to the objects passed do not reach the quoter. Throws PricingError
 * `invalid_price_book` / `invalid_bounds` at once for a malformed book or bounds.
 */
export function createQuoter(options: { book?: PriceBook; bounds?: QuoteBounds } = {}): Quoter {
  const book = deepFreeze(structuredClone(validatePriceBook(options.book ?? DEFAULT_PRICE_BOOK)));
  const bounds = Object.freeze({ ...checkBounds(options.bounds ?? MACHINE_ORDER_BOUNDS) });
  return (input) => priced(input, book, bounds);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function priced(input: QuoteInput, book: PriceBook, bounds: QuoteBounds): Quote {
  checkInput(input);

  if (input.origin_country !== book.origin_country) {
    throw new PricingError(
      "route_unavailable",
      `Mail is sent only from ${book.origin_country}; an origin of ${input.origin_country} cannot be carried.`,
      { field: "origin_country" },
    );
  }
  const destination = Object.hasOwn(book.destinations, input.destination_country)
    ? book.destinations[input.destination_country]
    : undefined;
  if (destination === undefined) {
    throw new PricingError(
      "route_unavailable",
      `Mail cannot be sent to ${input.destination_country}. Destinations: ${Object.keys(book.destinations).join(", ")}.`,
      { field: "destination_country" },
    );
  }
  const zone = input.destination_country === book.origin_country ? "domestic" : "international";
  const items =
    input.mailpiece_type === "postcard"
      ? postcardItems(input, book)
      : input.mailpiece_type === "handwritten"
        ? handwrittenItems(input, book)
        : letterItems(input, book, zone, destination.proof?.kind);
  if (destination.route_cents > 0) {
    items.push(
      item(
        "route_postage",
        zone === "international"
          ? `International postage to ${input.destination_country}`
          : `Postage surcharge within ${input.destination_country}`,
        1,
        destination.route_cents,
      ),
    );
  }
  const proofItem = input.mailpiece_type === "letter" ? proofItems(input, book, destination.proof) : [];
  items.push(...proofItem);

  const subtotal = items.reduce((sum, line) => sum + line.amount_cents, 0);
  let total = subtotal;
  if (subtotal < bounds.min_cents) {
    const adjustment = bounds.min_cents - subtotal;
    items.push(item("minimum_charge", `Minimum charge of ${formatUsd(bounds.min_cents)} USD`, 1, adjustment));
    total = bounds.min_cents;
  }
  if (total > bounds.max_cents) {
    throw new PricingError(
      "quote_above_ceiling",
      `This mailpiece would cost ${formatUsd(total)} USD, above the ceiling of ${formatUsd(bounds.max_cents)} USD for one order.`,
    );
  }
  return {
    pricing_version: book.pricing_version,
    currency: "usd",
    line_items: items,
    subtotal_cents: subtotal,
    total_cents: total,
    route: {
      origin_country: input.origin_country,
      destination_country: input.destination_country,
      zone,
      proof:
        input.mailpiece_type === "letter" && input.certified && destination.proof
          ? destination.proof.kind
          : "none",
    },
  };
}

/**
 * Refuses what a piece that travels as plain standard mail cannot take (postcards, handwritten pieces): proof of
 * mailing, its receipts and a faster mail class. `pieces` names them in the message ("Postcards").
 */
function refuseMailOptions(input: QuoteInput, pieces: string): void {
  for (const field of ["certified", "certified_return_receipt", "restricted_delivery"] as const) {
    if (input[field]) {
      throw new PricingError("option_unavailable", `${pieces} cannot be sent with ${label(field)}.`, {
        field,
      });
    }
  }
  if (input.mail_class !== "standard") {
    throw new PricingError(
      "option_unavailable",
      `${pieces} travel as standard mail, not ${input.mail_class}.`,
      {
        field: "mail_class",
      },
    );
  }
}

function postcardItems(input: QuoteInput, book: PriceBook): LineItem[] {
  refuseMailOptions(input, "Postcards");
  const size = input.postcard_size as PostcardSize;
  return [
    item(
      `postcard_${size}`,
      `Postcard ${size} in, color on both sides, with postage`,
      1,
      book.postcard[size],
    ),
  ];
}

/** One handwritten piece and its stamp, whatever its pages, color or sides; no proof of mailing, no faster class. */
function handwrittenItems(input: QuoteInput, book: PriceBook): LineItem[] {
  refuseMailOptions(input, "Handwritten pieces");
  return [
    item(
      "handwritten_piece",
      "Handwritten piece: written with a pen by a handwriting machine, folded and enveloped",
      1,
      book.handwritten.piece_cents,
    ),
    item("first_class_postage", "First-class postage (stamp)", 1, book.handwritten.postage_cents),
  ];
}

function letterItems(
  input: QuoteInput,
  book: PriceBook,
  zone: "domestic" | "international",
  proof: ProofKind | undefined,
): LineItem[] {
  if (input.certified_return_receipt && !input.certified) {
    throw new PricingError(
      "invalid_quote_input",
      "A return receipt is sold with certified mail; set certified to true or drop the return receipt.",
      { field: "certified_return_receipt" },
    );
  }
  if (input.restricted_delivery && !input.certified_return_receipt) {
    throw new PricingError(
      "invalid_quote_input",
      "Restricted delivery requires a certified return receipt (certified_return_receipt true).",
      { field: "restricted_delivery" },
    );
  }
  if (input.return_receipt_format === "physical" && !input.certified_return_receipt) {
    throw new PricingError(
      "invalid_quote_input",
      "A physical return receipt requires certified_return_receipt true.",
      { field: "return_receipt_format" },
    );
  }
  if (input.mail_class !== "standard") {
    if (zone !== "domestic") {
      throw new PricingError(
        "option_unavailable",
        `${capitalise(input.mail_class)} mail is domestic only; mail to ${input.destination_country} travels standard.`,
        { field: "mail_class" },
      );
    }
    if (input.certified) {
      throw new PricingError(
        "option_unavailable",
        `Certified mail travels as standard mail; it cannot be combined with ${input.mail_class}.`,
        { field: "certified" },
      );
    }
  }
  if (input.certified && proof === undefined) {
    throw new PricingError(
      "option_unavailable",
      `Neither certified nor registered mail is offered to ${input.destination_country}.`,
      { field: "certified" },
    );
  }
  if (input.certified && proof === "registered" && input.restricted_delivery) {
    throw new PricingError(
      "option_unavailable",
      `Restricted delivery is sold with US Certified Mail only; mail to ${input.destination_country} goes registered.`,
      { field: "restricted_delivery" },
    );
  }

  const pages = input.page_count;
  const items = [
    item(
      "letter_base",
      "Letter: printing, folding, envelope and first-class postage",
      1,
      book.letter.base_cents,
    ),
    input.color
      ? item("color_pages", "Color pages", pages, book.letter.color_page_cents)
      : item("bw_pages", "Black-and-white pages", pages, book.letter.bw_page_cents),
  ];
  if (input.mail_class === "priority") {
    items.push(item("priority_mail", "Priority Mail", 1, book.mail_class.priority_cents));
  } else if (input.mail_class === "express") {
    items.push(item("express_mail", "Priority Mail Express", 1, book.mail_class.express_cents));
  }
  if (input.mail_class !== "standard" && input.signature_required) {
    items.push(item("signature_required", "Signature on delivery", 1, book.add_ons.signature_required_cents));
  }
  return items;
}

function proofItems(
  input: QuoteInput,
  book: PriceBook,
  proof: PriceBook["destinations"][string]["proof"],
): LineItem[] {
  if (!input.certified || proof === null) return [];
  if (proof.kind === "registered") {
    return [item("registered_mail", `Registered mail to ${input.destination_country}`, 1, proof.cents)];
  }
  const items = [item("certified_mail", "US Certified Mail", 1, proof.cents)];
  if (input.certified_return_receipt) {
    items.push(
      input.return_receipt_format === "physical"
        ? item(
            "return_receipt_physical",
            "Return receipt (mailed green card)",
            1,
            book.add_ons.return_receipt_physical_cents,
          )
        : item(
            "return_receipt_electronic",
            "Electronic return receipt",
            1,
            book.add_ons.return_receipt_electronic_cents,
          ),
    );
  }
  if (input.restricted_delivery) {
    items.push(
      item(
        "restricted_delivery",
        "Restricted delivery (addressee only)",
        1,
        book.add_ons.restricted_delivery_cents,
      ),
    );
  }
  return items;
}

function item(code: string, description: string, quantity: number, unit_cents: number): LineItem {
  return { code, description, quantity, unit_cents, amount_cents: quantity * unit_cents };
}

function checkInput(input: QuoteInput): void {
  const value = input as unknown as Record<string, unknown>;
  if (typeof input !== "object" || input === null) {
    throw new PricingError("invalid_quote_input", "The quote input must be an object.");
  }
  if (!MAILPIECE_TYPES.includes(value.mailpiece_type as QuoteInput["mailpiece_type"])) {
    invalid("mailpiece_type", 'must be "letter", "postcard" or "handwritten"');
  }
  if (value.postcard_size !== undefined && !POSTCARD_SIZES.includes(value.postcard_size as PostcardSize)) {
    invalid("postcard_size", `must be one of ${POSTCARD_SIZES.join(", ")}`);
  }
  if (value.mailpiece_type === "postcard" && value.postcard_size === undefined) {
    invalid("postcard_size", "is required for postcards");
  }
  if (
    typeof value.page_count !== "number" ||
    !Number.isSafeInteger(value.page_count) ||
    value.page_count < 1
  ) {
    invalid("page_count", "must be an integer of at least 1");
  }
  for (const field of BOOLEAN_FIELDS) {
    if (typeof value[field] !== "boolean") invalid(field, "must be true or false");
  }
  if (value.mail_class !== "standard" && value.mail_class !== "priority" && value.mail_class !== "express") {
    invalid("mail_class", 'must be "standard", "priority" or "express"');
  }
  if (value.return_receipt_format !== "electronic" && value.return_receipt_format !== "physical") {
    invalid("return_receipt_format", 'must be "electronic" or "physical"');
  }
  for (const field of ["destination_country", "origin_country"] as const) {
    if (typeof value[field] !== "string" || !COUNTRY.test(value[field])) {
      invalid(field, "must be an upper-case ISO 3166 alpha-2 country code");
    }
  }
}

function checkBounds(bounds: QuoteBounds): QuoteBounds {
  for (const field of ["min_cents", "max_cents"] as const) {
    const value = bounds[field];
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new PricingError(
        "invalid_bounds",
        `Quote bound ${field} must be a non-negative integer number of cents.`,
        {
          field,
        },
      );
    }
  }
  if (bounds.min_cents > bounds.max_cents) {
    throw new PricingError("invalid_bounds", "Quote bound min_cents must not exceed max_cents.", {
      field: "min_cents",
    });
  }
  return bounds;
}

function invalid(field: string, reason: string): never {
  throw new PricingError("invalid_quote_input", `${field} ${reason}.`, { field });
}

function label(field: "certified" | "certified_return_receipt" | "restricted_delivery"): string {
  switch (field) {
    case "certified":
      return "certified or registered mail";
    case "certified_return_receipt":
      return "a return receipt";
    case "restricted_delivery":
      return "restricted delivery";
  }
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

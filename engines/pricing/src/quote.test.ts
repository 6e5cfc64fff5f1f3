import { describe, expect, it } from "vitest";
import { DEFAULT_PRICE_BOOK } from "./default-price-book.ts";
import type { PricingErrorCode } from "./errors.ts";
import { PricingError } from "./errors.ts";
import type { PriceBook } from "./price-book.ts";
import type { Quote, QuoteInput } from "./quote.ts";
import { createQuoter, MACHINE_ORDER_BOUNDS, PROJECT_ORDER_BOUNDS, quote } from "./quote.ts";

function letter(overrides: Partial<QuoteInput> = {}): QuoteInput {
  return {
    mailpiece_type: "letter",
    page_count: 3,
    color: false,
    double_sided: true,
    mail_class: "standard",
    certified: false,
    certified_return_receipt: false,
    return_receipt_format: "electronic",
    restricted_delivery: false,
    signature_required: false,
    destination_country: "US",
    origin_country: "US",
    ...overrides,
  };
}

function postcard(overrides: Partial<QuoteInput> = {}): QuoteInput {
  return letter({
    mailpiece_type: "postcard",
    postcard_size: "4x6",
    page_count: 2,
    color: true,
    ...overrides,
  });
}

function handwritten(overrides: Partial<QuoteInput> = {}): QuoteInput {
  return letter({ mailpiece_type: "handwritten", page_count: 1, double_sided: false, ...overrides });
}

const NO_FLOOR = { min_cents: 0, max_cents: 1_000_000 };

function codes(q: Quote): [string, number, number, number][] {
  return q.line_items.map((line) => [line.code, line.quantity, line.unit_cents, line.amount_cents]);
}

function failure(fn: () => unknown): PricingError {
  try {
    fn();
  } catch (error) {
    if (PricingError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a PricingError");
}

function expectFailure(fn: () => unknown, code: PricingErrorCode, field: string | undefined): PricingError {
  const error = failure(fn);
  expect({ code: error.code, field: error.field }).toEqual({ code, field });
  return error;
}

describe("published constants", () => {
  it("the default book carries the published letter prices and add-ons", () => {
    expect(DEFAULT_PRICE_BOOK.letter).toEqual({ base_cents: 180, bw_page_cents: 20, color_page_cents: 40 });
    expect(DEFAULT_PRICE_BOOK.destinations.US?.proof).toEqual({ kind: "certified", cents: 800 });
    expect(DEFAULT_PRICE_BOOK.destinations.CA?.proof).toEqual({ kind: "registered", cents: 3200 });
    expect(DEFAULT_PRICE_BOOK.add_ons.return_receipt_electronic_cents).toBe(300);
    for (const country of ["BE", "CH", "ES", "FR"]) {
      expect(DEFAULT_PRICE_BOOK.destinations[country]?.proof).toEqual({ kind: "registered", cents: 3200 });
    }
    for (const country of ["AT", "DE", "GB", "IN", "LU", "NL"]) {
      expect(DEFAULT_PRICE_BOOK.destinations[country]?.proof).toBeNull();
    }
  });

  it("supports exactly the published destinations from the US", () => {
    expect(DEFAULT_PRICE_BOOK.origin_country).toBe("US");
    expect(Object.keys(DEFAULT_PRICE_BOOK.destinations).sort()).toEqual(
      ["AT", "BE", "CA", "CH", "DE", "ES", "FR", "GB", "IN", "LU", "NL", "US"].sort(),
    );
  });

  it("machine orders are bounded to 3.40 .. 200.00", () => {
    expect(MACHINE_ORDER_BOUNDS).toEqual({ min_cents: 340, max_cents: 20000 });
  });

  it("Projects API pieces cost their published constants with no floor, at most 200.00", () => {
    expect(PROJECT_ORDER_BOUNDS).toEqual({ min_cents: 0, max_cents: 20000 });
    const plain = quote(letter({ page_count: 1 }), { bounds: PROJECT_ORDER_BOUNDS });
    expect(plain.total_cents).toBe(180 + 20);
    expect(plain.line_items.map((line) => line.code)).not.toContain("minimum_charge");
    expect(quote(postcard(), { bounds: PROJECT_ORDER_BOUNDS }).total_cents).toBe(190);
    // The same letter as a machine order is raised to the machine floor.
    expect(quote(letter({ page_count: 1 })).total_cents).toBe(340);
  });

  it("the default book is frozen so no caller can change prices for everyone", () => {
    expect(Object.isFrozen(DEFAULT_PRICE_BOOK)).toBe(true);
    expect(Object.isFrozen(DEFAULT_PRICE_BOOK.letter)).toBe(true);
    expect(Object.isFrozen(DEFAULT_PRICE_BOOK.destinations.US)).toBe(true);
  });
});

describe("letters", () => {
  it("charges the base fee and 20 cents per black-and-white page", () => {
    const q = quote(letter({ page_count: 10 }));
    expect(codes(q)).toEqual([
      ["letter_base", 1, 180, 180],
      ["bw_pages", 10, 20, 200],
    ]);
    expect(q.subtotal_cents).toBe(380);
    expect(q.total_cents).toBe(380);
    expect(q.pricing_version).toBe(DEFAULT_PRICE_BOOK.pricing_version);
    expect(q.currency).toBe("usd");
    expect(q.route).toEqual({
      origin_country: "US",
      destination_country: "US",
      zone: "domestic",
      proof: "none",
    });
  });

  it("charges 40 cents per color page", () => {
    const q = quote(letter({ page_count: 5, color: true }));
    expect(codes(q)).toEqual([
      ["letter_base", 1, 180, 180],
      ["color_pages", 5, 40, 200],
    ]);
    expect(q.total_cents).toBe(380);
  });

  it("bills every printed page whether or not both sides of a sheet are used", () => {
    expect(quote(letter({ page_count: 8, double_sided: true }))).toEqual(
      quote(letter({ page_count: 8, double_sided: false })),
    );
  });

  it("adds US Certified Mail for 8.00 with an electronic return receipt for 3.00", () => {
    const q = quote(letter({ certified: true, certified_return_receipt: true }));
    expect(codes(q)).toEqual([
      ["letter_base", 1, 180, 180],
      ["bw_pages", 3, 20, 60],
      ["certified_mail", 1, 800, 800],
      ["return_receipt_electronic", 1, 300, 300],
    ]);
    expect(q.total_cents).toBe(1340);
    expect(q.route.proof).toBe("certified");
  });

  it("adds a physical green-card return receipt and restricted delivery from the book", () => {
    const q = quote(
      letter({
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
        restricted_delivery: true,
      }),
    );
    expect(codes(q).slice(2)).toEqual([
      ["certified_mail", 1, 800, 800],
      ["return_receipt_physical", 1, 500, 500],
      ["restricted_delivery", 1, 750, 750],
    ]);
    expect(q.total_cents).toBe(180 + 60 + 800 + 500 + 750);
  });

  it("certified mail without a return receipt has no receipt line", () => {
    const q = quote(letter({ certified: true }));
    expect(q.line_items.map((line) => line.code)).toEqual(["letter_base", "bw_pages", "certified_mail"]);
  });

  it("sends certified mail to Canada as registered mail for 32.00 plus the route surcharge", () => {
    const q = quote(letter({ destination_country: "CA", certified: true }));
    expect(codes(q)).toEqual([
      ["letter_base", 1, 180, 180],
      ["bw_pages", 3, 20, 60],
      ["route_postage", 1, 150, 150],
      ["registered_mail", 1, 3200, 3200],
    ]);
    expect(q.route).toEqual({
      origin_country: "US",
      destination_country: "CA",
      zone: "international",
      proof: "registered",
    });
  });

  it.each(["BE", "CH", "ES", "FR"])("sends certified mail to %s as registered mail for 32.00", (country) => {
    const q = quote(letter({ destination_country: country, certified: true }));
    expect(q.line_items.find((line) => line.code === "registered_mail")?.amount_cents).toBe(3200);
    expect(q.route.proof).toBe("registered");
  });

  it("ignores the certified return receipt on registered routes", () => {
    const plain = quote(letter({ destination_country: "FR", certified: true }));
    const withReceipt = quote(
      letter({
        destination_country: "FR",
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
      }),
    );
    expect(withReceipt).toEqual(plain);
  });

  it("adds the international postage surcharge of each destination", () => {
    for (const [country, destination] of Object.entries(DEFAULT_PRICE_BOOK.destinations)) {
      const q = quote(letter({ destination_country: country, page_count: 20 }));
      const route = q.line_items.filter((line) => line.code === "route_postage");
      if (country === "US") {
        expect(route).toEqual([]);
      } else {
        expect(route.map((line) => line.amount_cents)).toEqual([destination.route_cents]);
        expect(route[0]?.description).toContain(country);
        expect(q.route.zone).toBe("international");
      }
    }
  });

  it("adds priority and express surcharges on domestic letters", () => {
    expect(codes(quote(letter({ mail_class: "priority" }))).at(-1)).toEqual(["priority_mail", 1, 1200, 1200]);
    expect(codes(quote(letter({ mail_class: "express" }))).at(-1)).toEqual(["express_mail", 1, 3400, 3400]);
  });

  it("charges signature on delivery with priority and express, and ignores it on standard mail", () => {
    const priority = quote(letter({ mail_class: "priority", signature_required: true }));
    expect(codes(priority).slice(2)).toEqual([
      ["priority_mail", 1, 1200, 1200],
      ["signature_required", 1, 450, 450],
    ]);
    const express = quote(letter({ mail_class: "express", signature_required: true }));
    expect(express.total_cents).toBe(180 + 60 + 3400 + 450);
    expect(quote(letter({ signature_required: true }))).toEqual(quote(letter()));
  });
});

describe("postcards", () => {
  it("prices each size from the book, in color on both sides", () => {
    expect(codes(quote(postcard({ postcard_size: "4x6" }), { bounds: NO_FLOOR }))).toEqual([
      ["postcard_4x6", 1, 190, 190],
    ]);
    expect(codes(quote(postcard({ postcard_size: "6x9" }), { bounds: NO_FLOOR }))).toEqual([
      ["postcard_6x9", 1, 260, 260],
    ]);
    expect(codes(quote(postcard({ postcard_size: "11x6" }), { bounds: NO_FLOOR }))).toEqual([
      ["postcard_11x6", 1, 380, 380],
    ]);
  });

  it("ignores color, sides, pages and signature: a postcard is always the same product", () => {
    const base = quote(postcard());
    expect(
      quote(postcard({ color: false, double_sided: false, page_count: 7, signature_required: true })),
    ).toEqual(base);
  });

  it("adds the route surcharge abroad", () => {
    const q = quote(postcard({ postcard_size: "11x6", destination_country: "GB" }));
    expect(codes(q)).toEqual([
      ["postcard_11x6", 1, 380, 380],
      ["route_postage", 1, 200, 200],
    ]);
    expect(q.total_cents).toBe(580);
  });

  it("requires a postcard size", () => {
    const input = postcard();
    delete input.postcard_size;
    expectFailure(() => quote(input), "invalid_quote_input", "postcard_size");
  });
});

describe("handwritten pieces", () => {
  it("charges the piece and its first-class stamp from the book", () => {
    const q = quote(handwritten());
    expect(codes(q)).toEqual([
      ["handwritten_piece", 1, 325, 325],
      ["first_class_postage", 1, 78, 78],
    ]);
    expect(q.total_cents).toBe(403);
    expect(q.route).toMatchObject({ zone: "domestic", proof: "none" });
  });

  it("ignores pages, color, sides and signature: a handwritten piece is priced by the piece", () => {
    expect(
      quote(handwritten({ page_count: 4, color: true, double_sided: true, signature_required: true })),
    ).toEqual(quote(handwritten()));
  });

  it("adds the route surcharge abroad", () => {
    const q = quote(handwritten({ destination_country: "CA" }));
    expect(codes(q).map(([code, , , amount]) => [code, amount])).toEqual([
      ["handwritten_piece", 325],
      ["first_class_postage", 78],
      ["route_postage", 150],
    ]);
    expect(q.route.zone).toBe("international");
  });

  it("takes its prices from the book it is given", () => {
    const book = structuredClone(DEFAULT_PRICE_BOOK) as PriceBook;
    (book.handwritten as { piece_cents: number }).piece_cents = 500;
    expect(quote(handwritten(), { book }).total_cents).toBe(578);
  });
});

describe.each([
  ["postcards", postcard, "Postcards"],
  ["handwritten pieces", handwritten, "Handwritten pieces"],
] as const)("%s travel as plain standard mail", (_kind, piece, pieces) => {
  it.each([
    ["certified", { certified: true }],
    ["certified_return_receipt", { certified: false, certified_return_receipt: true }],
    ["restricted_delivery", { restricted_delivery: true }],
    ["mail_class", { mail_class: "priority" as const }],
    ["mail_class", { mail_class: "express" as const }],
  ])("refuses %s", (field, overrides) => {
    const error = expectFailure(() => quote(piece(overrides)), "option_unavailable", field);
    expect(error.message.startsWith(`${pieces} `)).toBe(true);
  });
});

describe("floor and ceiling", () => {
  it("raises a total below the minimum to the minimum with an adjustment line", () => {
    const q = quote(letter({ page_count: 1 }));
    expect(codes(q)).toEqual([
      ["letter_base", 1, 180, 180],
      ["bw_pages", 1, 20, 20],
      ["minimum_charge", 1, 140, 140],
    ]);
    expect(q.subtotal_cents).toBe(200);
    expect(q.total_cents).toBe(340);
  });

  it("adds no adjustment at exactly the minimum", () => {
    const q = quote(letter({ page_count: 8 }));
    expect(q.subtotal_cents).toBe(340);
    expect(q.total_cents).toBe(340);
    expect(q.line_items.some((line) => line.code === "minimum_charge")).toBe(false);
  });

  it("uses the bounds it is given", () => {
    const q = quote(letter({ page_count: 1 }), { bounds: { min_cents: 500, max_cents: 1000 } });
    expect(q.total_cents).toBe(500);
    expect(q.line_items.at(-1)).toEqual({
      code: "minimum_charge",
      description: "Minimum charge of 5.00 USD",
      quantity: 1,
      unit_cents: 300,
      amount_cents: 300,
    });
  });

  it("refuses a total above the ceiling, naming the amount and the ceiling", () => {
    const error = expectFailure(
      () => quote(letter({ page_count: 600, color: true })),
      "quote_above_ceiling",
      undefined,
    );
    expect(error.message).toContain("241.80");
    expect(error.message).toContain("200.00");
  });

  it("accepts a total exactly at the ceiling", () => {
    const q = quote(letter({ page_count: 100 }), { bounds: { min_cents: 340, max_cents: 2180 } });
    expect(q.total_cents).toBe(2180);
  });

  it.each([
    [{ min_cents: -1, max_cents: 100 }, "min_cents"],
    [{ min_cents: 10, max_cents: 10.5 }, "max_cents"],
    [{ min_cents: 500, max_cents: 400 }, "min_cents"],
  ])("refuses malformed bounds %j", (bounds, field) => {
    expectFailure(() => quote(letter(), { bounds }), "invalid_bounds", field);
  });
});

describe("unavailable routes and options", () => {
  it("carries mail only from the US", () => {
    expectFailure(() => quote(letter({ origin_country: "CA" })), "route_unavailable", "origin_country");
  });

  it("refuses destinations the book does not carry", () => {
    const error = expectFailure(
      () => quote(letter({ destination_country: "JP" })),
      "route_unavailable",
      "destination_country",
    );
    expect(error.message).toContain("JP");
  });

  it.each(["AT", "DE", "GB", "IN", "LU", "NL"])("offers no proof of mailing to %s", (country) => {
    expectFailure(
      () => quote(letter({ destination_country: country, certified: true })),
      "option_unavailable",
      "certified",
    );
  });

  it.each(["priority", "express"] as const)("sends %s mail within the US only", (mailClass) => {
    expectFailure(
      () => quote(letter({ destination_country: "CA", mail_class: mailClass })),
      "option_unavailable",
      "mail_class",
    );
  });

  it.each(["priority", "express"] as const)("never combines %s with certified mail", (mailClass) => {
    expectFailure(
      () => quote(letter({ mail_class: mailClass, certified: true })),
      "option_unavailable",
      "certified",
    );
  });

  it("sells restricted delivery with US Certified Mail only", () => {
    expectFailure(
      () =>
        quote(
          letter({
            destination_country: "FR",
            certified: true,
            certified_return_receipt: true,
            restricted_delivery: true,
          }),
        ),
      "option_unavailable",
      "restricted_delivery",
    );
  });
});

describe("input validation", () => {
  it.each([
    [
      "a return receipt without certified mail",
      { certified_return_receipt: true },
      "certified_return_receipt",
    ],
    [
      "restricted delivery without a return receipt",
      { certified: true, restricted_delivery: true },
      "restricted_delivery",
    ],
    [
      "a physical receipt without a return receipt",
      { certified: true, return_receipt_format: "physical" as const },
      "return_receipt_format",
    ],
  ])("refuses %s", (_name, overrides, field) => {
    expectFailure(() => quote(letter(overrides)), "invalid_quote_input", field);
  });

  it.each([
    ["page_count", 0],
    ["page_count", 1.5],
    ["page_count", "3"],
    ["mailpiece_type", "parcel"],
    ["postcard_size", "5x7"],
    ["mail_class", "overnight"],
    ["return_receipt_format", "fax"],
    ["color", "yes"],
    ["certified", undefined],
    ["destination_country", "us"],
    ["origin_country", "USA"],
  ])("refuses %s = %j", (field, value) => {
    const input = { ...letter(), [field]: value } as unknown as QuoteInput;
    expectFailure(() => quote(input), "invalid_quote_input", field);
  });

  it("refuses a non-object input", () => {
    expectFailure(() => quote(null as unknown as QuoteInput), "invalid_quote_input", undefined);
  });
});

describe("determinism and books", () => {
  it("gives deep-equal quotes for the same input", () => {
    const input = letter({ certified: true, certified_return_receipt: true, page_count: 12, color: true });
    const first = quote(input);
    first.line_items[0]!.amount_cents = 1;
    expect(quote(input)).toEqual(quote({ ...input }));
    expect(quote(input).line_items[0]!.amount_cents).toBe(180);
  });

  it("prices with the book it is given and names its version", () => {
    const book: PriceBook = structuredClone({
      ...DEFAULT_PRICE_BOOK,
      pricing_version: "2027-01-01",
    }) as PriceBook;
    (book.letter as { base_cents: number }).base_cents = 250;
    const q = quote(letter({ page_count: 10 }), { book });
    expect(q.pricing_version).toBe("2027-01-01");
    expect(q.total_cents).toBe(450);
  });

  it("refuses to quote from an incomplete book", () => {
    const book = structuredClone(DEFAULT_PRICE_BOOK) as unknown as Record<string, unknown>;
    delete book.add_ons;
    expectFailure(
      () => quote(letter(), { book: book as unknown as PriceBook }),
      "invalid_price_book",
      "add_ons",
    );
  });

  it("every letter combination either prices consistently or fails with a pricing code", () => {
    const seen = new Set<string>();
    const classes = ["standard", "priority", "express"] as const;
    for (const country of Object.keys(DEFAULT_PRICE_BOOK.destinations)) {
      for (const mail_class of classes) {
        for (let bits = 0; bits < 64; bits++) {
          const input = letter({
            destination_country: country,
            mail_class,
            color: (bits & 1) !== 0,
            certified: (bits & 2) !== 0,
            certified_return_receipt: (bits & 4) !== 0,
            restricted_delivery: (bits & 8) !== 0,
            signature_required: (bits & 16) !== 0,
            return_receipt_format: (bits & 32) !== 0 ? "physical" : "electronic",
          });
          try {
            const q = quote(input);
            const sum = q.line_items.reduce((total, line) => total + line.amount_cents, 0);
            const charges = q.line_items.filter((line) => line.code !== "minimum_charge");
            expect(sum).toBe(q.total_cents);
            expect(charges.reduce((total, line) => total + line.amount_cents, 0)).toBe(q.subtotal_cents);
            for (const line of q.line_items) {
              expect(line.amount_cents).toBe(line.quantity * line.unit_cents);
              expect(Number.isSafeInteger(line.amount_cents)).toBe(true);
            }
            expect(q.total_cents).toBeGreaterThanOrEqual(MACHINE_ORDER_BOUNDS.min_cents);
            expect(q.total_cents).toBeLessThanOrEqual(MACHINE_ORDER_BOUNDS.max_cents);
            seen.add("ok");
          } catch (error) {
            if (!PricingError.isInstance(error)) throw error;
            expect(["invalid_quote_input", "option_unavailable"]).toContain(error.code);
            expect(error.field).toBeDefined();
            seen.add(error.code);
          }
        }
      }
    }
    expect([...seen].sort()).toEqual(["invalid_quote_input", "ok", "option_unavailable"]);
  });
});

describe("createQuoter", () => {
  it("quotes as quote does with the same book and bounds", () => {
    const quoter = createQuoter({ bounds: NO_FLOOR });
    for (const input of [letter(), letter({ destination_country: "CA", certified: true }), postcard()]) {
      expect(quoter(input)).toEqual(quote(input, { bounds: NO_FLOOR }));
    }
    expect(createQuoter()(letter())).toEqual(quote(letter()));
  });

  it("refuses a malformed book or bounds when it is made, not at the first quote", () => {
    const broken = { ...DEFAULT_PRICE_BOOK, currency: "eur" } as unknown as PriceBook;
    expectFailure(() => createQuoter({ book: broken }), "invalid_price_book", "currency");
    expectFailure(
      () => createQuoter({ bounds: { min_cents: -1, max_cents: 10 } }),
      "invalid_bounds",
      "min_cents",
    );
  });

  it("keeps its own copy: changing the book afterwards changes no price", () => {
    const book = structuredClone(DEFAULT_PRICE_BOOK) as { -readonly [K in keyof PriceBook]: PriceBook[K] };
    const quoter = createQuoter({ book, bounds: NO_FLOOR });
    const before = quoter(letter());
    book.pricing_version = "changed";
    (book.letter as { base_cents: number }).base_cents += 1000;
    expect(quoter(letter())).toEqual(before);
    expect(quote(letter(), { book, bounds: NO_FLOOR })).not.toEqual(before);
  });
});

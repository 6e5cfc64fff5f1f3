import { describe, expect, it } from "vitest";
import { DEFAULT_PRICE_BOOK } from "./default-price-book.ts";
import { PricingError } from "./errors.ts";
import { validatePriceBook } from "./price-book.ts";

type Tree = Record<string, unknown>;

function clone(): Tree {
  return structuredClone(DEFAULT_PRICE_BOOK) as unknown as Tree;
}

/** Dotted paths of every leaf of the default book (a null proof counts as a leaf). */
function leafPaths(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, inner]) =>
    leafPaths(inner, prefix === "" ? key : `${prefix}.${key}`),
  );
}

function at(tree: Tree, path: string): { parent: Tree; key: string } {
  const keys = path.split(".");
  const key = keys.pop()!;
  let parent = tree;
  for (const step of keys) parent = parent[step] as Tree;
  return { parent, key };
}

function refusal(book: unknown): PricingError {
  try {
    validatePriceBook(book);
  } catch (error) {
    if (PricingError.isInstance(error)) {
      expect(error.code).toBe("invalid_price_book");
      return error;
    }
    throw error;
  }
  throw new Error("expected the book to be refused");
}

describe("validatePriceBook", () => {
  it("accepts the default book and returns it", () => {
    expect(validatePriceBook(DEFAULT_PRICE_BOOK)).toBe(DEFAULT_PRICE_BOOK);
  });

  it("refuses a book missing any single price, naming the path", () => {
    const paths = leafPaths(DEFAULT_PRICE_BOOK);
    expect(paths.length).toBeGreaterThan(30);
    for (const path of paths) {
      const book = clone();
      const { parent, key } = at(book, path);
      delete parent[key];
      expect(refusal(book).field).toBe(path);
    }
  });

  it.each([
    ["letter.base_cents", -1],
    ["letter.bw_page_cents", 20.5],
    ["postcard.4x6", "190"],
    ["add_ons.restricted_delivery_cents", Number.NaN],
    ["destinations.CA.proof.cents", 1e20],
    ["destinations.FR.proof.kind", "tracked"],
    ["currency", "eur"],
    ["pricing_version", " "],
    ["origin_country", "us"],
    ["mail_class", null],
  ])("refuses %s = %j", (path, value) => {
    const book = clone();
    const { parent, key } = at(book, path);
    parent[key] = value;
    expect(refusal(book).field).toBe(path);
  });

  it("refuses unknown keys, which are most often typos", () => {
    const book = clone();
    (book.letter as Tree).colour_page_cents = 40;
    expect(refusal(book).field).toBe("letter.colour_page_cents");
  });

  it("refuses destinations not keyed by an alpha-2 code", () => {
    const book = clone();
    (book.destinations as Tree).Fr = { route_cents: 200, proof: null };
    expect(refusal(book).field).toBe("destinations.Fr");
  });

  it("refuses a book whose origin is not a destination", () => {
    const book = clone();
    delete (book.destinations as Tree).US;
    expect(refusal(book).field).toBe("destinations");
  });

  it("refuses something that is not a book at all", () => {
    expect(refusal(undefined).field).toBeUndefined();
    expect(refusal([]).message).toContain("must be an object");
  });
});

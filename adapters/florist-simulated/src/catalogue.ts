import type { FloristProduct } from "@mailpiece/ports";

/** A product of the simulated florist: the port's product plus how many days' notice it needs. */
export interface SimulatedProduct extends FloristProduct {
  /** Whole days between the order and the earliest delivery; 0 allows same-day delivery. Default 0. */
  lead_days?: number;
}

/** What the simulated florist sells by default: seven arrangements from 29.99 to 229.99. */
export const SIMULATED_CATALOGUE: readonly SimulatedProduct[] = Object.freeze([
  {
    code: "petite-posy",
    name: "Petite posy",
    description: "A small hand-tied posy of seasonal blooms, wrapped in kraft paper.",
    price_cents: 2999,
    currency: "usd",
  },
  {
    code: "sunflower-sunshine",
    name: "Sunflower sunshine",
    description: "Five sunflowers with solidago and eucalyptus in a clear glass vase.",
    price_cents: 4499,
    currency: "usd",
  },
  {
    code: "spring-garden",
    name: "Spring garden bouquet",
    description: "Tulips, ranunculus and freesia in pastel shades, hand-tied with greenery.",
    price_cents: 4999,
    currency: "usd",
  },
  {
    code: "orchid-plant",
    name: "Purple orchid plant",
    description: "A double-stem phalaenopsis orchid in a white ceramic pot; blooms for weeks.",
    price_cents: 5999,
    currency: "usd",
    lead_days: 1,
  },
  {
    code: "red-roses-dozen",
    name: "A dozen red roses",
    description: "Twelve long-stemmed red roses with baby's breath in a glass vase.",
    price_cents: 6499,
    currency: "usd",
  },
  {
    code: "white-lilies",
    name: "White lilies and roses",
    description: "Oriental lilies and white roses in a low vase, a calm arrangement for sympathy.",
    price_cents: 7999,
    currency: "usd",
  },
  {
    code: "grand-luxe",
    name: "Grand luxe arrangement",
    description: "Fifty premium roses, peonies and hydrangeas in a large hand-thrown ceramic vessel.",
    price_cents: 22999,
    currency: "usd",
    lead_days: 2,
  },
]);

const CODE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Checks a catalogue (distinct well-formed codes, names, integer prices, lead days) and freezes a copy. */
export function resolveCatalogue(catalogue: readonly SimulatedProduct[]): readonly SimulatedProduct[] {
  if (!Array.isArray(catalogue) || catalogue.length === 0) {
    throw new TypeError("the catalogue needs at least one product");
  }
  const codes = new Set<string>();
  const products = catalogue.map((product, index) => {
    const at = `catalogue[${index}]`;
    if (typeof product.code !== "string" || !CODE.test(product.code)) {
      throw new TypeError(`${at}.code must be 1 to 64 letters, digits, '-' or '_'`);
    }
    if (codes.has(product.code)) throw new TypeError(`${at}.code ${product.code} is listed twice`);
    codes.add(product.code);
    for (const key of ["name", "description"] as const) {
      if (typeof product[key] !== "string" || product[key].trim() === "") {
        throw new TypeError(`${at}.${key} must be a non-empty string`);
      }
    }
    if (!Number.isSafeInteger(product.price_cents) || product.price_cents < 0) {
      throw new RangeError(`${at}.price_cents must be a non-negative integer`);
    }
    if (product.currency !== "usd") throw new TypeError(`${at}.currency must be "usd"`);
    const lead = product.lead_days ?? 0;
    if (!Number.isSafeInteger(lead) || lead < 0 || lead > 30) {
      throw new RangeError(`${at}.lead_days must be an integer from 0 to 30`);
    }
    return Object.freeze({ ...product, lead_days: lead });
  });
  return Object.freeze(products);
}

/** The port's view of a product: without the simulated florist's own fields. */
export function publicProduct(product: SimulatedProduct): FloristProduct {
  return {
    code: product.code,
    name: product.name,
    description: product.description,
    price_cents: product.price_cents,
    currency: product.currency,
  };
}

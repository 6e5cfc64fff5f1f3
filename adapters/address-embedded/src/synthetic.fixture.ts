import type { AddressRow } from "./row.ts";

/**
 * Synthetic US address rows for tests and measurements: cities with several streets each, streets with many house
 * numbers, and some buildings with units. The same count and seed always give the same rows.
 */

const HEADS = [
  "Oak",
  "Maple",
  "Cedar",
  "Pine",
  "Elm",
  "Birch",
  "Willow",
  "Aspen",
  "Spruce",
  "Hickory",
  "Walnut",
  "Chestnut",
  "Laurel",
  "Magnolia",
  "Juniper",
  "Cypress",
  "Sycamore",
  "Poplar",
  "Alder",
  "Holly",
  "Ash",
  "Beech",
  "Hazel",
  "Linden",
  "Mulberry",
  "Orchard",
  "Meadow",
  "River",
  "Lake",
  "Hill",
  "Stone",
  "Brook",
  "Glen",
  "Fair",
  "Green",
  "Spring",
  "Summer",
  "Winter",
  "Sunny",
  "Golden",
  "Silver",
  "Rose",
  "Ivy",
  "Fox",
  "Deer",
  "Eagle",
  "Hawk",
  "Wolf",
  "Bear",
  "Cliff",
  "Rock",
  "Sand",
  "Clear",
  "Bright",
  "Shady",
  "Misty",
  "Quail",
  "Robin",
  "Wren",
  "Lark",
];
const TAILS = [
  "wood",
  "field",
  "view",
  "ridge",
  "dale",
  "crest",
  "brook",
  "ford",
  "mont",
  "haven",
  "side",
  "wick",
  "ton",
  "ville",
  "land",
  "gate",
  "hurst",
  "port",
  "shire",
  "mead",
  "stead",
  "croft",
  "vale",
  "bury",
  "worth",
];
const SUFFIXES = [
  "Street",
  "Avenue",
  "Road",
  "Boulevard",
  "Drive",
  "Lane",
  "Court",
  "Place",
  "Way",
  "Terrace",
];
const DIRECTIONS = ["", "", "", "", "N", "S", "E", "W"];
const STATES = [
  "NY",
  "CA",
  "TX",
  "FL",
  "IL",
  "PA",
  "OH",
  "GA",
  "NC",
  "MI",
  "WA",
  "AZ",
  "MA",
  "TN",
  "CO",
  "OR",
];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` rows (fewer only if count is 0), every one complete and distinct. */
export function generateSyntheticAddresses(count: number, seed: number): AddressRow[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const name = () => `${pick(HEADS)}${pick(TAILS)}`;
  const rows: AddressRow[] = [];
  const cityNames = new Set<string>();
  let serial = 0;
  while (rows.length < count) {
    let city = name();
    while (cityNames.has(city)) city = `${name()} ${pick(["Springs", "Falls", "Heights", "Park", "City"])}`;
    cityNames.add(city);
    const state = pick(STATES);
    const zipBase = 10000 + Math.floor(next() * 89000);
    const streetNames = new Set<string>();
    const streets = 5 + Math.floor(next() * 60);
    for (let s = 0; s < streets && rows.length < count; s++) {
      let street = "";
      while (street === "" || streetNames.has(street)) {
        const direction = pick(DIRECTIONS);
        street = `${direction ? `${direction} ` : ""}${next() < 0.15 ? `${1 + Math.floor(next() * 60)}th` : name()} ${pick(SUFFIXES)}`;
      }
      streetNames.add(street);
      const zip = String(zipBase + Math.floor(next() * 5)).padStart(5, "0");
      const numbers = 1 + Math.floor(next() * 150);
      let number = 1 + Math.floor(next() * 50);
      for (let n = 0; n < numbers && rows.length < count; n++) {
        number += 2 + 2 * Math.floor(next() * 10);
        const units = next() < 0.04 ? 2 + Math.floor(next() * 12) : 0;
        const base = { number: String(number), street, city, region: state, postcode: zip };
        if (units === 0) rows.push({ ...base, hash: (serial++).toString(16).padStart(12, "0") });
        for (let u = 1; u <= units && rows.length < count; u++) {
          rows.push({ ...base, unit: `Apt ${u}`, hash: (serial++).toString(16).padStart(12, "0") });
        }
      }
    }
  }
  return rows;
}

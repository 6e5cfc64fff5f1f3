import { AddressIndex } from "./address-index.ts";
import { hash53, hashHex } from "./hash.ts";
import type { AddressIndexData } from "./index-data.ts";
import { canonicalKey, displayCase, indexTokens, naturalCompare, tidy } from "./normalize.ts";
import { type AddressRow, isIncomplete, sourceKey, unitLine } from "./row.ts";

/** What a build kept and left out. */
export interface AddressBuildStats {
  records: number;
  /** Rows without a number, street, city or postcode (or region in the US and Canada). */
  incomplete: number;
  /** Rows naming an address already added (same number, street, unit and locality). */
  duplicates: number;
}

/** Interns strings: each distinct key gets the next number, and the table keeps the first value seen for it. */
class Table {
  readonly values: string[] = [];
  readonly keys: string[] = [];
  private readonly numbers = new Map<string, number>();
  constructor(initial?: { key: string; value: string }) {
    if (initial) this.intern(initial.key, initial.value);
  }
  intern(key: string, value: string): number {
    let n = this.numbers.get(key);
    if (n === undefined) {
      n = this.values.length;
      this.numbers.set(key, n);
      this.values.push(value);
      this.keys.push(key);
    }
    return n;
  }
}

/** Ranks of table entries under an order: `rank[n]` is the position of entry n once sorted. */
function ranks(count: number, compare: (a: number, b: number) => number): Uint32Array {
  const order = Array.from({ length: count }, (_, i) => i).sort(compare);
  const rank = new Uint32Array(count);
  order.forEach((entry, position) => {
    rank[entry] = position;
  });
  return rank;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Collects address rows of one country and builds the index data: rows that cannot be delivered to and repeats of
 * an address are left out (see `stats`). Keys come from the row's HASH or ID when it has a usable one, else from a
 * hash of the address itself, so the same file always gives the same ids.
 */
export class AddressIndexBuilder {
  readonly country: string;
  readonly stats: AddressBuildStats = { records: 0, incomplete: 0, duplicates: 0 };
  private readonly streets = new Table();
  private readonly numbers = new Table();
  private readonly units = new Table({ key: "", value: "" });
  private readonly localities = new Table();
  private readonly localityParts: Array<[city: string, region: string, postcode: string]> = [];
  private readonly street: number[] = [];
  private readonly number: number[] = [];
  private readonly unit: number[] = [];
  private readonly locality: number[] = [];
  private readonly keys: string[] = [];
  private readonly seenAddresses = new Set<string>();
  private readonly seenKeys = new Set<string>();
  private readonly rawStreets = new Map<string, number>();
  private readonly rawUnits = new Map<string, number>();
  private readonly rawLocalities = new Map<string, number>();

  constructor(country: string) {
    if (!/^[A-Z]{2}$/.test(country))
      throw new TypeError(`country must be two upper-case letters: ${country}`);
    this.country = country;
  }

  /** Adds one row; false when it is left out. */
  add(row: AddressRow): boolean {
    if (isIncomplete(row, this.country)) {
      this.stats.incomplete++;
      return false;
    }
    const street = this.streetOf(row.street);
    const numberText = tidy(row.number).toUpperCase();
    const number = this.numbers.intern(numberText, numberText);
    const unit = row.unit ? this.unitOf(row.unit) : 0;
    const locality = this.localityOf(row.city, row.region ?? "", row.postcode);
    const identity = `${street}|${number}|${unit}|${locality}`;
    if (this.seenAddresses.has(identity)) {
      this.stats.duplicates++;
      return false;
    }
    this.seenAddresses.add(identity);
    let key = sourceKey(row);
    if (key === undefined || this.seenKeys.has(key)) {
      const base = hashHex(
        hash53(
          `${this.streets.keys[street]}|${numberText}|${this.units.keys[unit]}|${this.localities.keys[locality]}`,
        ),
      );
      key = base;
      for (let n = 2; this.seenKeys.has(key); n++) key = `${base}-${n}`;
    }
    this.seenKeys.add(key);
    this.street.push(street);
    this.number.push(number);
    this.unit.push(unit);
    this.locality.push(locality);
    this.keys.push(key);
    this.stats.records++;
    return true;
  }

  /** The street of a name as written; names are normalized once per distinct spelling. */
  private streetOf(raw: string): number {
    let street = this.rawStreets.get(raw);
    if (street === undefined) {
      const name = displayCase(raw);
      street = this.streets.intern(canonicalKey(name), name);
      this.rawStreets.set(raw, street);
    }
    return street;
  }

  private unitOf(raw: string): number {
    let unit = this.rawUnits.get(raw);
    if (unit === undefined) {
      const line2 = unitLine(raw);
      unit = line2 === "" ? 0 : this.units.intern(canonicalKey(line2), line2);
      this.rawUnits.set(raw, unit);
    }
    return unit;
  }

  private localityOf(rawCity: string, rawRegion: string, rawPostcode: string): number {
    const raw = `${rawCity}\u0000${rawRegion}\u0000${rawPostcode}`;
    let locality = this.rawLocalities.get(raw);
    if (locality === undefined) {
      const city = displayCase(rawCity);
      const region = tidy(rawRegion).toUpperCase();
      const postcode = tidy(rawPostcode).toUpperCase();
      const key = `${canonicalKey(city)}|${canonicalKey(region)}|${canonicalKey(postcode)}`;
      locality = this.localities.intern(key, key);
      if (locality === this.localityParts.length) this.localityParts.push([city, region, postcode]);
      this.rawLocalities.set(raw, locality);
    }
    return locality;
  }

  /** The index data of every row added so far. */
  build(): AddressIndexData {
    const n = this.street.length;
    const streetKeys = this.streets.keys;
    const numberValues = this.numbers.values;
    const unitValues = this.units.values;
    const parts = this.localityParts;
    const placeKey = (l: number) =>
      `${canonicalKey(parts[l]?.[0] ?? "")}|${canonicalKey(parts[l]?.[1] ?? "")}`;
    const placeKeys = parts.map((_, l) => placeKey(l));

    const streetRank = ranks(streetKeys.length, (a, b) => compareText(streetKeys[a]!, streetKeys[b]!));
    const placeRank = ranks(parts.length, (a, b) => compareText(placeKeys[a]!, placeKeys[b]!));
    const localityRank = ranks(
      parts.length,
      (a, b) => placeRank[a]! - placeRank[b]! || compareText(parts[a]![2], parts[b]![2]),
    );
    const numberRank = ranks(numberValues.length, (a, b) =>
      naturalCompare(numberValues[a]!, numberValues[b]!),
    );
    const unitRank = ranks(unitValues.length, (a, b) => naturalCompare(unitValues[a]!, unitValues[b]!));

    // Two sort keys per record: street then city and region; house number, unit, then postcode.
    const places = parts.length;
    const primary = new Float64Array(n);
    const secondary = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      const l = this.locality[r]!;
      primary[r] = streetRank[this.street[r]!]! * places + placeRank[l]!;
      secondary[r] =
        (numberRank[this.number[r]!]! * unitValues.length + unitRank[this.unit[r]!]!) * places +
        localityRank[l]!;
    }
    const order = new Uint32Array(n).map((_, i) => i);
    order.sort((a, b) => primary[a]! - primary[b]! || secondary[a]! - secondary[b]!);
    const pick = (values: number[]) => Uint32Array.from(order, (r) => values[r]!);
    const recordStreet = pick(this.street);
    const recordNumber = pick(this.number);
    const recordUnit = pick(this.unit);
    const recordLocality = pick(this.locality);
    const keys = Array.from(order, (r) => this.keys[r]!);

    const groups: number[] = [];
    const groupHashList: number[] = [];
    for (let r = 0; r < n; r++) {
      const street = recordStreet[r]!;
      const place = placeKeys[recordLocality[r]!]!;
      if (r > 0 && street === recordStreet[r - 1] && place === placeKeys[recordLocality[r - 1]!]) continue;
      groups.push(r);
      groupHashList.push(hash53(`${streetKeys[street]}|${place}`));
    }
    groups.push(n);
    const groupOrder = Uint32Array.from(groupHashList.keys()).sort(
      (a, b) => groupHashList[a]! - groupHashList[b]!,
    );

    const entryTokens = {
      street: streetKeys.map((key) => key.split(" ")),
      number: numberValues.map(indexTokens),
      unit: unitValues.map(indexTokens),
      locality: parts.map(([city, region, postcode]) => indexTokens(`${city} ${region} ${postcode}`)),
    };
    const dictionary = [...new Set(Object.values(entryTokens).flatMap((lists) => lists.flat()))].sort(
      compareText,
    );
    const tokenNumber = new Map(dictionary.map((token, id) => [token, id]));
    const flatten = (lists: string[][]) => {
      const start = new Uint32Array(lists.length + 1);
      const ids: number[] = [];
      lists.forEach((list, entry) => {
        for (const id of new Set(list.map((token) => tokenNumber.get(token)!))) ids.push(id);
        start[entry + 1] = ids.length;
      });
      return { start, ids: Uint32Array.from(ids) };
    };
    const streetTokens = flatten(entryTokens.street);
    const numberTokens = flatten(entryTokens.number);
    const unitTokens = flatten(entryTokens.unit);
    const localityTokens = flatten(entryTokens.locality);

    const tokensOfRecord = (r: number, visit: (token: number) => void) => {
      const seen: number[] = [];
      const each = (lists: { start: Uint32Array; ids: Uint32Array }, entry: number) => {
        for (let i = lists.start[entry]!; i < lists.start[entry + 1]!; i++) {
          const token = lists.ids[i]!;
          if (seen.includes(token)) continue;
          seen.push(token);
          visit(token);
        }
      };
      each(streetTokens, recordStreet[r]!);
      each(numberTokens, recordNumber[r]!);
      each(unitTokens, recordUnit[r]!);
      each(localityTokens, recordLocality[r]!);
    };
    const postingStart = new Uint32Array(dictionary.length + 1);
    for (let r = 0; r < n; r++) tokensOfRecord(r, (t) => postingStart[t + 1]!++);
    for (let t = 0; t < dictionary.length; t++) postingStart[t + 1]! += postingStart[t]!;
    const postings = new Uint32Array(postingStart[dictionary.length]!);
    const fill = postingStart.slice(0, dictionary.length);
    for (let r = 0; r < n; r++) tokensOfRecord(r, (t) => (postings[fill[t]!++] = r));

    const keyStart = new Uint32Array(n + 1);
    keys.forEach((key, r) => {
      keyStart[r + 1] = keyStart[r]! + key.length;
    });
    const keyText = new Uint8Array(keyStart[n]!);
    keys.forEach((key, r) => {
      for (let i = 0; i < key.length; i++) keyText[keyStart[r]! + i] = key.charCodeAt(i);
    });
    const hashes = new Float64Array(keys.map(hash53));
    const keyRecords = new Uint32Array(n).map((_, i) => i).sort((a, b) => hashes[a]! - hashes[b]!);

    return {
      country: this.country,
      streets: this.streets.values,
      numbers: numberValues,
      units: unitValues,
      cities: parts.map((p) => p[0]),
      regions: parts.map((p) => p[1]),
      postcodes: parts.map((p) => p[2]),
      recordStreet,
      recordNumber,
      recordUnit,
      recordLocality,
      keyText,
      keyStart,
      keyHashes: Float64Array.from(keyRecords, (r) => hashes[r]!),
      keyRecords,
      groupStart: Uint32Array.from(groups),
      groupHashes: Float64Array.from(groupOrder, (g) => groupHashList[g]!),
      groupOrder,
      tokens: dictionary,
      postingStart,
      postings,
      streetTokenStart: streetTokens.start,
      streetTokenIds: streetTokens.ids,
      numberTokenStart: numberTokens.start,
      numberTokenIds: numberTokens.ids,
      unitTokenStart: unitTokens.start,
      unitTokenIds: unitTokens.ids,
      localityTokenStart: localityTokens.start,
      localityTokenIds: localityTokens.ids,
    };
  }
}

/** An index of address rows of one country (rows that cannot be delivered to and repeats are left out). */
export function buildAddressIndex(rows: Iterable<AddressRow>, options: { country: string }): AddressIndex {
  const builder = new AddressIndexBuilder(options.country);
  for (const row of rows) builder.add(row);
  return new AddressIndex(builder.build());
}

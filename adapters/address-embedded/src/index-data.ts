/**
 * The stored form of an address index: string tables and typed arrays only, no object per record, so that a million
 * records take tens of megabytes and the index file is read back without parsing records.
 *
 * Records are sorted by street, then city and region, then house number and unit in reading order: the records of a
 * street in a city (a street group) are one run, and the records of one building are one run inside it.
 */
export interface AddressIndexData {
  /** ISO 3166-1 alpha-2, upper case: every record is in this country. */
  country: string;
  /** Street names as displayed, one per distinct street (in canonical form). */
  streets: string[];
  /** House numbers as written, upper case. */
  numbers: string[];
  /** Second address lines ("Unit 4B", "Suite 3100"); entry 0 is "" for records without a unit. */
  units: string[];
  /** Localities: city, region and postcode of each, by locality number. */
  cities: string[];
  regions: string[];
  postcodes: string[];

  /** Per record: its street, number, unit and locality, as positions in the tables above. */
  recordStreet: Uint32Array;
  recordNumber: Uint32Array;
  recordUnit: Uint32Array;
  recordLocality: Uint32Array;

  /** Per record: its key (the part of its id after `CC|`), ASCII, in `keyText[keyStart[r] .. keyStart[r + 1]]`. */
  keyText: Uint8Array;
  keyStart: Uint32Array;
  /** The hashes of all keys, ascending, and the record of each. */
  keyHashes: Float64Array;
  keyRecords: Uint32Array;

  /** Street groups: group g holds records `groupStart[g] .. groupStart[g + 1]`. */
  groupStart: Uint32Array;
  /** The hashes of the groups' canonical names ("fifth avenue|new york|ny"), ascending, and the group of each. */
  groupHashes: Float64Array;
  groupOrder: Uint32Array;

  /** The token dictionary, sorted: a token's number is its position, so a prefix is a range of numbers. */
  tokens: string[];
  /** The records of token t, ascending: `postings[postingStart[t] .. postingStart[t + 1]]`. */
  postingStart: Uint32Array;
  postings: Uint32Array;

  /** The tokens of each street, number, unit and locality entry, in the same start/ids layout. */
  streetTokenStart: Uint32Array;
  streetTokenIds: Uint32Array;
  numberTokenStart: Uint32Array;
  numberTokenIds: Uint32Array;
  unitTokenStart: Uint32Array;
  unitTokenIds: Uint32Array;
  localityTokenStart: Uint32Array;
  localityTokenIds: Uint32Array;
}

/** The string tables of the data, in the order the index file stores them. */
export const STRING_TABLES = [
  "streets",
  "numbers",
  "units",
  "cities",
  "regions",
  "postcodes",
  "tokens",
] as const;

/** The typed arrays of the data, with their element type, in the order the index file stores them. */
export const TYPED_ARRAYS = {
  recordStreet: Uint32Array,
  recordNumber: Uint32Array,
  recordUnit: Uint32Array,
  recordLocality: Uint32Array,
  keyText: Uint8Array,
  keyStart: Uint32Array,
  keyHashes: Float64Array,
  keyRecords: Uint32Array,
  groupStart: Uint32Array,
  groupHashes: Float64Array,
  groupOrder: Uint32Array,
  postingStart: Uint32Array,
  postings: Uint32Array,
  streetTokenStart: Uint32Array,
  streetTokenIds: Uint32Array,
  numberTokenStart: Uint32Array,
  numberTokenIds: Uint32Array,
  unitTokenStart: Uint32Array,
  unitTokenIds: Uint32Array,
  localityTokenStart: Uint32Array,
  localityTokenIds: Uint32Array,
} as const;

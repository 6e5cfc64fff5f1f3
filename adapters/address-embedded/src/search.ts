import type { AddressIndex, ContainerRange } from "./address-index.ts";
import { lowerBound } from "./hash.ts";
import { words } from "./normalize.ts";
import {
  candidateRecords,
  EXACT,
  matcherFor,
  NONE,
  PREFIX,
  PREFIX_COST,
  prefixAllowed,
  quality,
  scoreFloor,
  type TokenMatcher,
  TYPO,
  TYPO_COST,
} from "./token-match.ts";

/** A query uses at most this many tokens; later ones are ignored. */
export const MAX_QUERY_TOKENS = 12;
/** The low bit of each two-bit field: a field is NONE (3) where both its bits are set. */
const LOW_BITS = 0x555555;

/** One answer of a search: an address, a building of units, or a street in a city. */
export interface SearchHit {
  kind: "address" | "building" | "street";
  /** The record of an address, the first record of a building, or the street group's number. */
  at: number;
  /** Lower is better: typos first, then prefix matches, then whether the house number matched exactly. */
  score: number;
}

/**
 * Searches the index. Every query token must match a token of the record (its street, number, unit, city, region
 * or postcode) exactly, by prefix (see prefixAllowed), or with one typo. Matches are ranked by their worst kind of match and grouped:
 * a query without a house number answers a street of several numbers as one street container, and a query that
 * names no unit answers a building of several units as one building container. Within a container, its records
 * are listed. Ties keep the index order: street, city, then house number and unit in reading order.
 */
export function searchIndex(
  index: AddressIndex,
  query: string,
  limit: number,
  within?: ContainerRange,
): SearchHit[] {
  const tokens = words(query).slice(0, MAX_QUERY_TOKENS);
  if (tokens.length === 0 || limit <= 0) return [];
  const matchers = tokens.map((token, k) =>
    matcherFor(index, token, prefixAllowed(token, k === tokens.length - 1)),
  );
  if (matchers.some((m) => m.estimate === 0)) return [];
  const driver = matchers.reduce((a, b) => (b.estimate < a.estimate ? b : a));

  const { data } = index;
  const q = matchers.length;
  const none = 2 ** (2 * q) - 1;
  const streetOf = entryQualities(data.streetTokenStart, data.streetTokenIds, matchers);
  const numberOf = entryQualities(data.numberTokenStart, data.numberTokenIds, matchers);
  const unitOf = entryQualities(data.unitTokenStart, data.unitTokenIds, matchers);
  const localityOf = entryQualities(data.localityTokenStart, data.localityTokenIds, matchers);

  const floor = scoreFloor(index, matchers);
  const hits = new Hits();
  /** Looks at record r; true once `limit` hits have the best score possible, which no later record can beat. */
  const consider = (r: number): boolean => {
    const street = streetOf(data.recordStreet[r]!);
    const number = numberOf(data.recordNumber[r]!);
    const unit = unitOf(data.recordUnit[r]!);
    const locality = localityOf(data.recordLocality[r]!);
    const unmatched = street & number & unit & locality;
    if ((unmatched & (unmatched >>> 1) & LOW_BITS) !== 0) return false;
    let typos = 0;
    let prefixes = 0;
    let numberExact = false;
    for (let k = 0, shift = 0; k < q; k++, shift += 2) {
      const n = (number >>> shift) & 3;
      if (n === EXACT) numberExact = true;
      const b = Math.min((street >>> shift) & 3, n, (unit >>> shift) & 3, (locality >>> shift) & 3);
      if (b === TYPO) typos++;
      else if (b === PREFIX) prefixes++;
    }
    const score = typos * TYPO_COST + prefixes * PREFIX_COST + (numberExact ? 0 : 1);
    const group = index.recordGroup[r]!;
    const run = index.runStart[r]!;
    if (within === undefined && number === none && index.groupNumbers[group]! >= 2) {
      hits.add("street", group, score);
    } else if (within?.kind !== "building" && index.isBuilding[run] === 1 && unit === none) {
      hits.add("building", run, score);
    } else hits.add("address", r, score);
    return hits.countAtMost(floor) >= limit;
  };

  const start = within?.start ?? 0;
  const end = within?.end ?? index.size;
  if (within && within.end - within.start <= driver.estimate) {
    for (let r = start; r < end; r++) if (consider(r)) break;
  } else {
    const records = candidateRecords(index, matchers);
    if (!(records instanceof Uint32Array)) {
      const { marks, target } = records;
      for (let r = start; r < end; r++) if (marks[r] === target && consider(r)) break;
    } else {
      for (let i = lowerBound(records, start); i < records.length && records[i]! < end; i++) {
        if (consider(records[i]!)) break;
      }
    }
  }
  return hits.best(limit);
}

/**
 * The match qualities of one table's entries (streets, numbers, units or localities), computed once per entry and
 * query: two bits per query token, token k at bits 2k and 2k + 1, NONE where it matches no token of the entry.
 */
function entryQualities(
  start: Uint32Array,
  ids: Uint32Array,
  matchers: TokenMatcher[],
): (entry: number) => number {
  const cache = new Int32Array(start.length - 1).fill(-1);
  return (entry) => {
    let packed = cache[entry]!;
    if (packed >= 0) return packed;
    packed = 0;
    for (let k = 0; k < matchers.length; k++) {
      let best = NONE;
      for (let i = start[entry]!; i < start[entry + 1]! && best !== EXACT; i++) {
        best = Math.min(best, quality(matchers[k] as TokenMatcher, ids[i]!));
      }
      packed |= best << (2 * k);
    }
    cache[entry] = packed;
    return packed;
  };
}

/**
 * The hits of one search, each once with its best score, in the order first found. Records arrive in ascending
 * order, so an address comes once, a building's records are consecutive, and a street's records all lie between
 * its first and last: only the latest building and street need remembering.
 */
class Hits {
  private readonly kinds: SearchHit["kind"][] = [];
  private readonly ats: number[] = [];
  private readonly scores: number[] = [];
  private readonly latest = { building: { at: -1, position: -1 }, street: { at: -1, position: -1 } };
  private floor = -1;
  private atFloor = 0;

  /** How many hits have a score of at most `floor` (a hit whose score is settled: it cannot improve below floor). */
  countAtMost(floor: number): number {
    if (floor !== this.floor) {
      this.floor = floor;
      this.atFloor = this.scores.filter((score) => score <= floor).length;
    }
    return this.atFloor;
  }

  add(kind: SearchHit["kind"], at: number, score: number): void {
    if (kind !== "address") {
      const latest = this.latest[kind];
      if (latest.at === at) {
        const before = this.scores[latest.position]!;
        if (score < before) {
          this.scores[latest.position] = score;
          if (score <= this.floor && before > this.floor) this.atFloor++;
        }
        return;
      }
      latest.at = at;
      latest.position = this.kinds.length;
    }
    this.kinds.push(kind);
    this.ats.push(at);
    this.scores.push(score);
    if (score <= this.floor) this.atFloor++;
  }

  /** The `limit` best hits, best first; equal scores in the order first found. */
  best(limit: number): SearchHit[] {
    const counts = new Map<number, number>();
    for (const score of this.scores) counts.set(score, (counts.get(score) ?? 0) + 1);
    let cutoff = Number.POSITIVE_INFINITY;
    let kept = 0;
    for (const score of [...counts.keys()].sort((a, b) => a - b)) {
      cutoff = score;
      kept += counts.get(score)!;
      if (kept >= limit) break;
    }
    let room = limit - (kept - (counts.get(cutoff) ?? 0));
    const chosen: SearchHit[] = [];
    this.scores.forEach((score, i) => {
      if (score < cutoff || (score === cutoff && room-- > 0)) {
        chosen.push({ kind: this.kinds[i]!, at: this.ats[i]!, score });
      }
    });
    return chosen.sort((a, b) => a.score - b.score).slice(0, limit);
  }
}

import type { AddressIndex } from "./address-index.ts";
import { lowerBound } from "./hash.ts";
import { canonicalToken, oneEditApart } from "./normalize.ts";

/** Typo tolerance applies to tokens of at least this many characters, with at least one letter. */
export const TYPO_MIN_LENGTH = 5;

/** Match qualities, best first; NONE means the token does not match. */
export const EXACT = 0;
export const PREFIX = 1;
export const TYPO = 2;
export const NONE = 3;

/**
 * The dictionary tokens one query token matches: exactly (as typed or in full form: "ave" is "avenue"), by prefix
 * (a range of token numbers, since the dictionary is sorted), or with one typing error (a few token numbers).
 */
export interface TokenMatcher {
  exact: number;
  full: number;
  lo: number;
  hi: number;
  typos: Uint32Array;
  /** How many postings the token's matches hold at most: the cost of starting from it. */
  estimate: number;
}

/** The first position in the sorted dictionary whose token is not below `token`. */
function tokenLowerBound(tokens: readonly string[], token: string): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((tokens[mid] as string) < token) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function exactId(tokens: readonly string[], token: string): number {
  const at = tokenLowerBound(tokens, token);
  return tokens[at] === token ? at : -1;
}

/**
 * Whether a query token may match by prefix: the last token always (it is being typed); an earlier one when it
 * has two characters or more and is not a number ("12 oak" means number 12, "fif ave" means Fifth Avenue).
 */
export function prefixAllowed(token: string, last: boolean): boolean {
  return last || (token.length >= 2 && !/^\d+$/.test(token));
}

/** The matcher of one normalized query token. */
export function matcherFor(index: AddressIndex, token: string, prefix: boolean): TokenMatcher {
  const { tokens, postingStart } = index.data;
  const lo = tokenLowerBound(tokens, token);
  const exact = tokens[lo] === token ? lo : -1;
  const full = exactId(tokens, canonicalToken(token));
  const hi = !prefix
    ? lo + (exact >= 0 ? 1 : 0)
    : lo < tokens.length && (tokens[lo] as string).startsWith(token)
      ? rangeEnd(tokens, token, lo)
      : lo;
  const typoIds: number[] = [];
  if (token.length >= TYPO_MIN_LENGTH && /\p{L}/u.test(token)) {
    for (let length = token.length - 1; length <= token.length + 1; length++) {
      for (const id of index.tokensByLength.get(length) ?? []) {
        if ((id < lo || id >= hi) && oneEditApart(token, tokens[id] as string)) typoIds.push(id);
      }
    }
  }
  const typos = Uint32Array.from(typoIds).sort();
  const postingsOf = (id: number) => postingStart[id + 1]! - postingStart[id]!;
  let estimate = postingStart[hi]! - postingStart[lo]!;
  if (full >= 0 && (full < lo || full >= hi)) estimate += postingsOf(full);
  for (const id of typos) estimate += postingsOf(id);
  return { exact, full, lo, hi, typos, estimate };
}

/** The end of the prefix range that starts at `from`: the first later token not starting with `prefix`. */
function rangeEnd(tokens: readonly string[], prefix: string, from: number): number {
  let step = 1;
  let lo = from;
  while (lo + step < tokens.length && (tokens[lo + step] as string).startsWith(prefix)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(lo + step, tokens.length);
  lo += 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((tokens[mid] as string).startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How well token number `id` matches: EXACT, PREFIX, TYPO or NONE. */
export function quality(m: TokenMatcher, id: number): number {
  if (id === m.exact || id === m.full) return EXACT;
  if (id >= m.lo && id < m.hi) return PREFIX;
  if (m.typos.length > 0) {
    const at = lowerBound(m.typos, id);
    if (m.typos[at] === id) return TYPO;
  }
  return NONE;
}

/** The posting lists of a matcher's tokens. */
function segmentsOf(index: AddressIndex, m: TokenMatcher): Uint32Array[] {
  const { postingStart, postings } = index.data;
  const segments: Uint32Array[] = [];
  if (m.hi > m.lo) segments.push(postings.subarray(postingStart[m.lo]!, postingStart[m.hi]!));
  const extra = [...m.typos];
  if (m.full >= 0 && (m.full < m.lo || m.full >= m.hi)) extra.push(m.full);
  for (const id of extra) segments.push(postings.subarray(postingStart[id]!, postingStart[id + 1]!));
  return segments;
}

/**
 * The records to look at, ascending: those of the matcher with the fewest postings as a list; or, when even those
 * are many, a bitmap over all records marking those that both of the two rarest matchers match (value `target`).
 */
export function candidateRecords(
  index: AddressIndex,
  matchers: readonly TokenMatcher[],
): Uint32Array | { marks: Uint8Array; target: number } {
  const [first, second] = [...matchers].sort((a, b) => a.estimate - b.estimate);
  const segments = segmentsOf(index, first!);
  if (segments.length === 0) return new Uint32Array(0);
  if (segments.length === 1 && first!.hi - first!.lo <= 1) return segments[0]!;
  if (first!.estimate > index.size >>> 4) {
    const marks = new Uint8Array(index.size);
    for (const s of segments) for (let i = 0; i < s.length; i++) marks[s[i]!] = 1;
    if (!second) return { marks, target: 1 };
    for (const s of segmentsOf(index, second)) {
      for (let i = 0; i < s.length; i++) if (marks[s[i]!] === 1) marks[s[i]!] = 2;
    }
    return { marks, target: 2 };
  }
  let total = 0;
  for (const s of segments) total += s.length;
  const all = new Uint32Array(total);
  let at = 0;
  for (const s of segments) {
    all.set(s, at);
    at += s.length;
  }
  all.sort();
  let distinct = 0;
  for (let i = 0; i < all.length; i++) {
    if (i === 0 || all[i] !== all[i - 1]) all[distinct++] = all[i]!;
  }
  return all.subarray(0, distinct);
}

/** The best score any record can have for these matchers (see searchIndex for scores). */
export function scoreFloor(index: AddressIndex, matchers: readonly TokenMatcher[]): number {
  let floor = 1;
  for (const m of matchers) {
    const exact = m.exact >= 0 ? m.exact : m.full;
    if (exact >= 0 && /^\d+$/.test(index.data.tokens[exact] as string)) floor = 0;
  }
  for (const m of matchers) {
    if (m.exact < 0 && m.full < 0) floor += m.hi > m.lo ? PREFIX_COST : TYPO_COST;
  }
  return floor;
}

/** Score costs: one typo weighs more than any number of prefix matches, one prefix more than a missed number. */
export const TYPO_COST = 4096;
export const PREFIX_COST = 64;

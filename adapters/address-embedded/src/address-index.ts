import type { StructuredAddress } from "@mailpiece/ports";
import { hash53, hashHex, lowerBound } from "./hash.ts";
import type { AddressIndexData } from "./index-data.ts";

/** Where a container's records are: a street group, or one building (a run of units) inside it. */
export interface ContainerRange {
  kind: "street" | "building";
  group: number;
  start: number;
  end: number;
}

/**
 * An address index ready to search: the stored data plus what is derived from it on loading (the street group of
 * each record, the buildings, tokens by length for typo matching). Read-only once made.
 */
export class AddressIndex {
  readonly data: AddressIndexData;
  readonly country: string;
  /** The number of records. */
  readonly size: number;
  /** Per record: its street group. */
  readonly recordGroup: Uint32Array;
  /** Per record: the first record of its run (same street group, same house number). */
  readonly runStart: Uint32Array;
  /** Per run start: 1 when the run is a building of several records, at least one with a unit. */
  readonly isBuilding: Uint8Array;
  /** Per street group: how many distinct house numbers it holds. */
  readonly groupNumbers: Uint32Array;
  /** Token numbers by token length, only tokens with a letter: the candidates for typo matching. */
  readonly tokensByLength: ReadonlyMap<number, Uint32Array>;
  /** Per street group: its position in `groupOrder` (and so of its hash in `groupHashes`). */
  private readonly groupPosition: Uint32Array;

  constructor(data: AddressIndexData) {
    this.data = data;
    this.country = data.country;
    const n = data.recordStreet.length;
    this.size = n;
    const groups = data.groupStart.length - 1;
    this.recordGroup = new Uint32Array(n);
    this.runStart = new Uint32Array(n);
    this.isBuilding = new Uint8Array(n);
    this.groupNumbers = new Uint32Array(groups);
    for (let g = 0; g < groups; g++) {
      const end = data.groupStart[g + 1]!;
      for (let r = data.groupStart[g]!; r < end; r++) {
        this.recordGroup[r] = g;
        const first = r > data.groupStart[g]! && data.recordNumber[r - 1] === data.recordNumber[r];
        const start = first ? this.runStart[r - 1]! : r;
        this.runStart[r] = start;
        if (!first) this.groupNumbers[g]!++;
        else if (data.recordUnit[r] !== 0 || data.recordUnit[start] !== 0) this.isBuilding[start] = 1;
      }
    }
    this.groupPosition = new Uint32Array(groups);
    data.groupOrder.forEach((group, at) => {
      this.groupPosition[group] = at;
    });
    const byLength = new Map<number, number[]>();
    data.tokens.forEach((token, id) => {
      if (!/\p{L}/u.test(token)) return;
      const list = byLength.get(token.length) ?? [];
      list.push(id);
      byLength.set(token.length, list);
    });
    this.tokensByLength = new Map([...byLength].map(([length, ids]) => [length, Uint32Array.from(ids)]));
  }

  /** The key of record r: its id without the `CC|` prefix. */
  recordKey(r: number): string {
    const { keyText, keyStart } = this.data;
    return String.fromCharCode(...keyText.subarray(keyStart[r]!, keyStart[r + 1]!));
  }

  /** The record with this key, or undefined. */
  findRecord(key: string): number | undefined {
    const { keyHashes, keyRecords } = this.data;
    const hash = hash53(key);
    for (let i = lowerBound(keyHashes, hash); i < keyHashes.length && keyHashes[i] === hash; i++) {
      const r = keyRecords[i]!;
      if (this.recordKey(r) === key) return r;
    }
    return undefined;
  }

  /** The end of the run (building or single address) that starts at `start`. */
  runEnd(start: number): number {
    const end = this.data.groupStart[this.recordGroup[start]! + 1]!;
    let r = start + 1;
    while (r < end && this.runStart[r] === start) r++;
    return r;
  }

  groupRange(g: number): { start: number; end: number } {
    return { start: this.data.groupStart[g]!, end: this.data.groupStart[g + 1]! };
  }

  /** The container key (the part of its id after `CC|`) of a street group, or of the building starting at `run`. */
  containerKey(group: number, run?: number): string {
    const street = this.groupHash(group);
    if (run === undefined) return `c:${hashHex(street)}`;
    return `c:${hashHex(street)}:${encodeURIComponent(this.number(run))}`;
  }

  /** The records a container key names, or undefined when it names none. */
  findContainer(key: string): ContainerRange | undefined {
    const match = /^c:([0-9a-f]{14})(?::(.+))?$/.exec(key);
    if (!match) return undefined;
    const hash = Number.parseInt(match[1]!, 16);
    const { groupHashes, groupOrder } = this.data;
    const at = lowerBound(groupHashes, hash);
    if (groupHashes[at] !== hash) return undefined;
    const group = groupOrder[at]!;
    const { start, end } = this.groupRange(group);
    if (match[2] === undefined) return { kind: "street", group, start, end };
    let number: string;
    try {
      number = decodeURIComponent(match[2]);
    } catch {
      return undefined;
    }
    for (let r = start; r < end; r++) {
      if (this.runStart[r] === r && this.isBuilding[r] === 1 && this.number(r) === number) {
        return { kind: "building", group, start: r, end: this.runEnd(r) };
      }
    }
    return undefined;
  }

  number(r: number): string {
    return this.data.numbers[this.data.recordNumber[r]!]!;
  }

  street(r: number): string {
    return this.data.streets[this.data.recordStreet[r]!]!;
  }

  /** "New York, NY 10118": city, region and postcode of record r. */
  locality(r: number): string {
    const l = this.data.recordLocality[r]!;
    const region = this.data.regions[l]!;
    const tail = [region, this.data.postcodes[l]!].filter(Boolean).join(" ");
    return `${this.data.cities[l]!}, ${tail}`;
  }

  /** "350 Fifth Avenue, Suite 3100, New York, NY 10118". */
  addressText(r: number): string {
    const line2 = this.data.units[this.data.recordUnit[r]!]!;
    return [`${this.number(r)} ${this.street(r)}`, line2, this.locality(r)].filter(Boolean).join(", ");
  }

  /** "Fifth Avenue, New York, NY": a street group. */
  streetText(group: number): string {
    const r = this.data.groupStart[group]!;
    const l = this.data.recordLocality[r]!;
    return [this.street(r), this.data.cities[l]!, this.data.regions[l]!].filter(Boolean).join(", ");
  }

  /** "350 Fifth Avenue, New York, NY 10118": the building starting at record `run`. */
  buildingText(run: number): string {
    return `${this.number(run)} ${this.street(run)}, ${this.locality(run)}`;
  }

  structured(r: number): StructuredAddress {
    const { data } = this;
    const l = data.recordLocality[r]!;
    const line2 = data.units[data.recordUnit[r]!]!;
    const region = data.regions[l]!;
    return {
      id: `${this.country}|${this.recordKey(r)}`,
      line1: `${this.number(r)} ${this.street(r)}`,
      ...(line2 ? { line2 } : {}),
      city: data.cities[l]!,
      ...(region ? { state: region } : {}),
      zip: data.postcodes[l]!,
      countryCode: this.country,
      text: this.addressText(r),
    };
  }

  private groupHash(group: number): number {
    return this.data.groupHashes[this.groupPosition[group]!]!;
  }
}

// By name from the extended entry point: the main one's class is a CommonJS default export, which Node and the
// test runner hand over differently.
import { BTreeEx } from "sorted-btree/extended/index.js";

/**
 * A set of keys kept in ascending order by UTF-16 code units (the order of `<` on strings, and of the Store port's
 * listings), in a B+ tree: adding, removing or finding a key costs a logarithmic search, whatever the number of
 * keys, and so does finding where a range starts.
 */
export interface SortedKeys {
  readonly size: number;
  has(key: string): boolean;
  /** Adds `key`; nothing when it is there already. */
  add(key: string): void;
  /** Removes `key`; nothing when it is not there. */
  delete(key: string): void;
  /**
   * Up to `count` keys starting with `prefix`, in ascending order, each greater than `after` when given.
   * Costs a search plus the keys returned.
   */
  range(prefix: string, after: string | undefined, count: number): string[];
}

/** Keys a node holds at most: the library's default. */
const NODE_SIZE = 32;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The sorted set of `keys` (in any order, repeats allowed). */
export function createSortedKeys(keys: Iterable<string> = []): SortedKeys {
  // The default sort compares UTF-16 code units.
  const sorted = [...new Set(keys)].sort();
  const tree = BTreeEx.bulkLoad<string, undefined>(
    sorted,
    new Array<undefined>(sorted.length).fill(undefined),
    NODE_SIZE,
    compare,
  );

  return {
    get size() {
      return tree.size;
    },
    has(key) {
      return tree.has(key);
    },
    add(key) {
      tree.set(key, undefined, false);
    },
    delete(key) {
      tree.delete(key);
    },
    range(prefix, after, count) {
      // A key greater than `after` but below `prefix` cannot start with `prefix`, so the later start wins.
      const start = after !== undefined && after >= prefix ? tree.nextHigherKey(after) : prefix;
      const found: string[] = [];
      if (start === undefined) return found;
      for (const key of tree.keys(start)) {
        if (found.length >= count || !key.startsWith(prefix)) break;
        found.push(key);
      }
      return found;
    },
  };
}

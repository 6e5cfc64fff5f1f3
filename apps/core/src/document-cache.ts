/**
 * A bounded least-recently-used cache of prepared documents, by content key. Typesetting is deterministic (the
 * same input gives the same bytes), so an agent's validate, unpaid create and paid retry of one letter typeset it
 * once. Bounded by total bytes; the oldest entries leave first.
 */
export interface DocumentCache<T extends { bytes: Uint8Array }> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
  readonly size: number;
}

export function createDocumentCache<T extends { bytes: Uint8Array }>(maxBytes: number): DocumentCache<T> {
  const entries = new Map<string, T>();
  let total = 0;
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      if (value.bytes.byteLength > maxBytes) return;
      const previous = entries.get(key);
      if (previous) {
        total -= previous.bytes.byteLength;
        entries.delete(key);
      }
      entries.set(key, value);
      total += value.bytes.byteLength;
      for (const [oldest, entry] of entries) {
        if (total <= maxBytes) break;
        entries.delete(oldest);
        total -= entry.bytes.byteLength;
      }
    },
    get size() {
      return entries.size;
    },
  };
}

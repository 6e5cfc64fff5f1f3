/**
 * The slice of the Store port the ledger needs. Any `@mailpiece/ports` Store satisfies it. What the ledger relies
 * on:
 * - `create` is atomic: under concurrent callers for one absent key exactly one gets `created: true`, the others
 *   `created: false` and the winner's record;
 * - `put` with `ifVersion` writes only when the stored version equals it, and otherwise throws an error whose
 *   `code` is `version_conflict` (the Store port's `PortError`) and changes nothing; a successful `put` stores the
 *   previous version + 1 and `create` stores version 1;
 * - `get` returns the stored value and version, or undefined when the key is absent.
 */
export interface LedgerStore {
  get<T = unknown>(key: string): Promise<{ value: T; version: number } | undefined>;
  create<T = unknown>(
    key: string,
    value: T,
  ): Promise<{ created: boolean; record: { value: T; version: number } }>;
  put<T = unknown>(key: string, value: T, options?: { ifVersion?: number }): Promise<{ version: number }>;
}

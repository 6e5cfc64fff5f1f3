/**
 * The Store port: small JSON records with versions, for orders, claims, quotes and every other piece of state.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit
 * (`@mailpiece/conformance`, `storeContract`).
 *
 * Keys
 * - A key MUST match `KEY_PATTERN` (letters, digits, `.`, `_`, `-`, `:`; starting with a letter or digit; at most
 *   512 characters). Every method MUST reject any other key with `PortError` code `invalid_key` and change nothing.
 *
 * Values
 * - A value MUST be JSON-serialisable. `create` and `put` MUST reject a value that is not (a function, a bigint, a
 *   cycle, `undefined` at the top level) with code `value_not_serializable` and change nothing.
 * - `get` MUST return a copy: mutating a returned value MUST NOT change what the store holds.
 *
 * Versions
 * - `create` MUST store version 1; every successful `put` MUST store the previous version + 1 (1 when absent).
 * - `put` with `ifVersion` MUST write only when the stored version equals `ifVersion`; otherwise it MUST throw
 *   `version_conflict` and change nothing. Under any number of concurrent `put`s with the same `ifVersion`, exactly
 *   one MUST succeed.
 * - `create` MUST be atomic: under any number of concurrent callers for one absent key, exactly one MUST receive
 *   `created: true`; every other caller MUST receive `created: false` and the winner's record.
 * - `delete` with `ifVersion` MUST delete only when the stored version equals `ifVersion`, else throw
 *   `version_conflict`. `delete` MUST return whether a live record was removed.
 *
 * Expiry
 * - A record written with `ttlMs` MUST be absent for `get`, `list` and `create` once `ttlMs` has passed on the
 *   store's clock; `create` on an expired key MUST succeed as on an absent one.
 *
 * Listing
 * - `list(prefix)` MUST return the live records whose key starts with `prefix`, in ascending key order (by UTF-16
 *   code units), at most `limit` (default 100, at most 1000) per page, and a `cursor` when more may follow.
 *   Passing that cursor MUST continue after the last key returned, so that a key present for the whole listing
 *   appears exactly once.
 *
 * Durability
 * - An adapter that declares `durable: true` MUST keep every acknowledged write across a restart and MUST leave
 *   every record readable, holding either its old or its new value, if the process is killed at any moment.
 * - An adapter that declares `shared: true` MUST keep all of the above among several processes using it at once.
 */
export interface Store {
  /** A short name for logs and reports, e.g. `memory` or `file`. */
  readonly name: string;
  readonly capabilities: StoreCapabilities;

  get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined>;
  create<T = unknown>(key: string, value: T, options?: WriteOptions): Promise<CreateResult<T>>;
  put<T = unknown>(key: string, value: T, options?: PutOptions): Promise<StoredRecord<T>>;
  delete(key: string, options?: { ifVersion?: number }): Promise<boolean>;
  list<T = unknown>(prefix: string, options?: ListOptions): Promise<ListPage<T>>;
  /** Releases timers, handles and connections. The store MUST NOT be used afterwards. */
  close(): Promise<void>;
}

export interface StoreCapabilities {
  /** Acknowledged writes survive a restart and a crash. */
  durable: boolean;
  /** Several processes may use one store at once and every contract still holds. */
  shared: boolean;
}

export interface StoredRecord<T = unknown> {
  key: string;
  value: T;
  version: number;
  /** Milliseconds since the epoch when the record was written. */
  updatedAt: number;
  /** Milliseconds since the epoch after which the record is absent; absent when it never expires. */
  expiresAt?: number;
}

export interface WriteOptions {
  /** Time to live in milliseconds, counted from the write. */
  ttlMs?: number;
}

export interface PutOptions extends WriteOptions {
  /** Compare-and-set: write only when the stored version equals this. */
  ifVersion?: number;
}

export type CreateResult<T> =
  | { created: true; record: StoredRecord<T> }
  | { created: false; record: StoredRecord<T> };

export interface ListOptions {
  cursor?: string;
  /** 1 to 1000; default 100. */
  limit?: number;
}

export interface ListPage<T> {
  records: StoredRecord<T>[];
  /** Present when more records may follow; pass it back as `cursor`. */
  cursor?: string;
}

/** Keys: letters, digits, `.`, `_`, `-` and `:` (the segment separator), 1 to 512 characters. */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,511}$/;

export function isValidKey(key: unknown): key is string {
  return typeof key === "string" && KEY_PATTERN.test(key);
}

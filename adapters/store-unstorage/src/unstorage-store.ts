import type {
  Clock,
  CreateResult,
  ListOptions,
  ListPage,
  PutOptions,
  Store,
  StoreCapabilities,
  StoredRecord,
  WriteOptions,
} from "@mailpiece/ports";
import {
  createStoreChecks,
  createStoreLifecycle,
  invalidKeyError,
  isValidKey,
  messageTag,
  PortError,
  storageError,
  systemClock,
} from "@mailpiece/ports";
import type { Storage } from "unstorage";
import { createKeyMutex } from "./key-mutex.ts";
import type { SortedKeys } from "./sorted-keys.ts";
import { createSortedKeys } from "./sorted-keys.ts";
import { fromStorageKey, storageBaseFor, toStorageKey } from "./storage-key.ts";

export interface UnstorageStoreOptions {
  /** Where the records live. The store keeps one item per record; other items under it are ignored. */
  storage: Storage;
  /** A short name for logs and reports, e.g. `memory`, `file` or `redis`. */
  name: string;
  /** What the storage guarantees; the store declares it as is. */
  capabilities: StoreCapabilities;
  /** Where time comes from (TTLs, `updatedAt`); defaults to the system clock. */
  clock?: Clock;
  /** Whether `close()` disposes `storage`; default true. */
  disposeStorage?: boolean;
  /**
   * Bytes of records (present or known absent) to answer from memory; default 0, none. Only for a storage that this
   * store alone writes (the file store holds a lock on its directory): every write goes through the store, which
   * keeps its memory in step, so an answer from memory is what a read of the storage would give.
   */
  cacheBytes?: number;
  /**
   * Keep the keys of the records in a sorted index in memory, so that a `list` page costs the records it reads and
   * one search in the index instead of a scan of the storage's keys; default false. Only for a storage that this
   * store alone writes (the memory store's, the file store's locked directory): the storage's keys are read once,
   * before the first call that writes or lists, and every write and delete afterwards goes through the store, which
   * keeps the index in step. The records stay the truth: the index may name a key whose record is gone (it is
   * skipped, then dropped), never miss one that has a record.
   */
  indexKeys?: boolean;
}

/** What one record looks like inside the storage. */
interface Envelope {
  v: number;
  value: unknown;
  updatedAt: number;
  expiresAt?: number;
}

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** How many records `list` reads at once. */
const READ_BATCH = 64;
const PREFIX_PATTERN = /^[A-Za-z0-9._:-]{0,512}$/;
const decoder = new TextDecoder();

/**
 * The Store port over an unstorage `Storage`. Records are JSON envelopes `{v, value, updatedAt, expiresAt?}`.
 * `create` and compare-and-set are atomic within this process through a mutex per key (unrelated keys never wait
 * for each other); they are atomic among several processes only if nothing else writes the same storage, so such
 * a store declares `shared: false` unless the storage adds its own guarantees. Expired records are treated as
 * absent and removed lazily.
 */
export function createUnstorageStore(options: UnstorageStoreOptions): Store {
  return createStoreOnStorage(options).store;
}

/**
 * `createUnstorageStore`, with `loadIndex()`: with `indexKeys`, reads the storage's keys into the index now rather
 * than at the first call (the file store does so while it opens, so a directory it cannot list fails the open).
 */
export function createStoreOnStorage(options: UnstorageStoreOptions): {
  store: Store;
  loadIndex(): Promise<void>;
} {
  const { storage, name } = options;
  const clock = options.clock ?? systemClock;
  const capabilities: StoreCapabilities = { ...options.capabilities };
  const tag = messageTag(name, "store");
  const mutex = createKeyMutex();
  const life = createStoreLifecycle(tag);

  const { assertKey, serialise, ttlOf } = createStoreChecks(tag);

  const cache = createRecordCache(options.cacheBytes ?? 0);

  /**
   * With `indexKeys`: every key that has a record in the storage, and perhaps a few whose record is gone (after a
   * write that failed). A key is added before its record is written and removed after its record is, each under
   * the key's mutex, so no listing misses a record; undefined until the storage's keys have been read.
   */
  let index: SortedKeys | undefined;
  let indexing: Promise<SortedKeys> | undefined;

  const scanKeys = async (): Promise<string[]> => {
    const keys: string[] = [];
    for (const storageKey of await storage.getKeys()) {
      const key = fromStorageKey(storageKey);
      if (key !== undefined) keys.push(key);
    }
    return keys;
  };

  const loadIndex = (): Promise<SortedKeys> => {
    indexing ??= scanKeys().then(
      (keys) => {
        index = createSortedKeys(keys);
        return index;
      },
      (error: unknown) => {
        // The next call tries again.
        indexing = undefined;
        throw storageError(tag, "list its keys", error);
      },
    );
    return indexing;
  };

  /** Loads the index before the first call that writes or lists, so that every write finds it in place. */
  const indexReady = async (): Promise<void> => {
    if (options.indexKeys && index === undefined) await loadIndex();
  };

  const isLive = (envelope: Envelope): boolean =>
    envelope.expiresAt === undefined || clock.now() < envelope.expiresAt;

  const unreadable = (key: string, cause?: unknown): PortError =>
    new PortError("store_unavailable", `${tag} the record ${JSON.stringify(key)} is unreadable`, { cause });

  const parseEnvelope = (key: string, raw: unknown): Envelope => {
    let data = raw;
    if (data instanceof Uint8Array) data = decoder.decode(data);
    if (typeof data === "string") {
      try {
        data = JSON.parse(data);
      } catch (error) {
        throw unreadable(key, error);
      }
    }
    if (typeof data !== "object" || data === null) throw unreadable(key);
    const envelope = data as Partial<Envelope>;
    if (
      !Number.isSafeInteger(envelope.v) ||
      (envelope.v as number) < 1 ||
      typeof envelope.updatedAt !== "number" ||
      !("value" in envelope) ||
      (envelope.expiresAt !== undefined && typeof envelope.expiresAt !== "number")
    ) {
      throw unreadable(key);
    }
    return envelope as Envelope;
  };

  const read = async (key: string): Promise<Envelope | undefined> => {
    const cached = cache.get(key);
    if (cached !== undefined) return cached === null ? undefined : parseEnvelope(key, cached);
    const reading = cache.startRead(key);
    let seen: string | null | undefined;
    try {
      let raw: unknown;
      try {
        raw = await storage.getItemRaw(toStorageKey(key));
      } catch (error) {
        throw storageError(tag, `read ${JSON.stringify(key)}`, error);
      }
      if (raw === null || raw === undefined) {
        seen = null;
        return undefined;
      }
      const text = raw instanceof Uint8Array ? decoder.decode(raw) : raw;
      const envelope = parseEnvelope(key, text);
      if (typeof text === "string") seen = text;
      return envelope;
    } finally {
      reading.end(seen);
    }
  };

  const write = async (
    key: string,
    version: number,
    json: string,
    ttlMs: number | undefined,
  ): Promise<StoredRecord<unknown>> => {
    const updatedAt = clock.now();
    const expiresAt = ttlMs === undefined ? undefined : updatedAt + ttlMs;
    const expiry = expiresAt === undefined ? "" : `"expiresAt":${expiresAt},`;
    const text = `{"v":${version},"updatedAt":${updatedAt},${expiry}"value":${json}}`;
    // Indexed before the record lands: a listing may then meet the key before its record (and skip it), never
    // the record without its key.
    index?.add(key);
    try {
      await storage.setItemRaw(toStorageKey(key), text);
    } catch (error) {
      // The write may or may not have landed: the next read asks the storage.
      cache.forget(key);
      throw storageError(tag, `write ${JSON.stringify(key)}`, error);
    }
    cache.set(key, text);
    const record: StoredRecord<unknown> = { key, value: JSON.parse(json), version, updatedAt };
    if (expiresAt !== undefined) record.expiresAt = expiresAt;
    return record;
  };

  const remove = async (key: string): Promise<void> => {
    try {
      await storage.removeItem(toStorageKey(key));
    } catch (error) {
      cache.forget(key);
      throw storageError(tag, `delete ${JSON.stringify(key)}`, error);
    }
    cache.set(key, null);
    index?.delete(key);
  };

  const toRecord = <T>(key: string, envelope: Envelope): StoredRecord<T> => {
    const record: StoredRecord<T> = {
      key,
      value: envelope.value as T,
      version: envelope.v,
      updatedAt: envelope.updatedAt,
    };
    if (envelope.expiresAt !== undefined) record.expiresAt = envelope.expiresAt;
    return record;
  };

  const conflict = (key: string, expected: number, found: Envelope | undefined): PortError =>
    new PortError(
      "version_conflict",
      `${tag} version conflict on ${JSON.stringify(key)}: expected version ${expected}, found ${
        found ? `version ${found.v}` : "no record"
      }`,
    );

  /** Removes an expired record later, unless it has been written again meanwhile. */
  const reapLater = (key: string, seen: Envelope): void => {
    life.background(() =>
      mutex.run(key, async () => {
        const current = await read(key);
        if (current && current.v === seen.v && current.updatedAt === seen.updatedAt && !isLive(current)) {
          await remove(key);
        }
      }),
    );
  };

  /** Drops a key without a record from the index later, unless a record has been written under it meanwhile. */
  const dropLater = (key: string): void => {
    life.background(() =>
      mutex.run(key, async () => {
        if ((await read(key)) === undefined) index?.delete(key);
      }),
    );
  };

  /** The live record under `key`, reaping it when expired. */
  const readLive = async (key: string): Promise<Envelope | undefined> => {
    const envelope = await read(key);
    if (!envelope) return undefined;
    if (isLive(envelope)) return envelope;
    reapLater(key, envelope);
    return undefined;
  };

  /**
   * One page from the index: the keys after `after` under `prefix`, a batch at a time, each batch found with a
   * search from the last key of the one before (writes between batches move positions, not keys).
   */
  const listIndexed = async <T>(
    keys: SortedKeys,
    prefix: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<ListPage<T>> => {
    const records: StoredRecord<T>[] = [];
    let after = cursor;
    while (records.length < limit) {
      const batch = keys.range(prefix, after, Math.min(READ_BATCH, limit - records.length));
      if (batch.length === 0) return { records };
      after = batch.at(-1);
      const envelopes = await Promise.all(batch.map((key) => read(key)));
      envelopes.forEach((envelope, position) => {
        const key = batch[position] as string;
        if (envelope === undefined) dropLater(key);
        else if (!isLive(envelope)) reapLater(key, envelope);
        else records.push(toRecord<T>(key, envelope));
      });
    }
    // The page is full, so its last record is the last key read.
    const last = records.at(-1);
    return last && keys.range(prefix, after, 1).length > 0 ? { records, cursor: last.key } : { records };
  };

  const listKeys = async (prefix: string, after: string | undefined): Promise<string[]> => {
    let storageKeys: string[];
    try {
      storageKeys = await storage.getKeys(storageBaseFor(prefix));
    } catch (error) {
      throw storageError(tag, `list ${JSON.stringify(prefix)}`, error);
    }
    const keys: string[] = [];
    for (const storageKey of storageKeys) {
      const key = fromStorageKey(storageKey);
      if (key === undefined || !key.startsWith(prefix)) continue;
      if (after !== undefined && key <= after) continue;
      keys.push(key);
    }
    // The default sort compares UTF-16 code units, the order the port asks for.
    return keys.sort();
  };

  const store: Store = {
    name,
    capabilities,

    get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined> {
      return life.run(async () => {
        const envelope = await readLive(assertKey(key));
        return envelope ? toRecord<T>(key, envelope) : undefined;
      });
    },

    create<T = unknown>(key: string, value: T, options?: WriteOptions): Promise<CreateResult<T>> {
      return life.run(async () => {
        assertKey(key);
        const json = serialise(key, value);
        const ttlMs = ttlOf(options);
        await indexReady();
        return mutex.run(key, async (): Promise<CreateResult<T>> => {
          const existing = await read(key);
          if (existing && isLive(existing)) return { created: false, record: toRecord<T>(key, existing) };
          const record = (await write(key, 1, json, ttlMs)) as StoredRecord<T>;
          return { created: true, record };
        });
      });
    },

    put<T = unknown>(key: string, value: T, options?: PutOptions): Promise<StoredRecord<T>> {
      return life.run(async () => {
        assertKey(key);
        const json = serialise(key, value);
        const ttlMs = ttlOf(options);
        const ifVersion = options?.ifVersion;
        await indexReady();
        return mutex.run(key, async () => {
          const existing = await read(key);
          const live = existing && isLive(existing) ? existing : undefined;
          if (ifVersion !== undefined && live?.v !== ifVersion) throw conflict(key, ifVersion, live);
          return (await write(key, live ? live.v + 1 : 1, json, ttlMs)) as StoredRecord<T>;
        });
      });
    },

    delete(key: string, options?: { ifVersion?: number }): Promise<boolean> {
      return life.run(async () => {
        assertKey(key);
        const ifVersion = options?.ifVersion;
        await indexReady();
        return mutex.run(key, async () => {
          const existing = await read(key);
          const live = existing && isLive(existing) ? existing : undefined;
          if (ifVersion !== undefined && live?.v !== ifVersion) throw conflict(key, ifVersion, live);
          if (!existing) {
            index?.delete(key);
            return false;
          }
          await remove(key);
          return live !== undefined;
        });
      });
    },

    list<T = unknown>(prefix: string, options?: ListOptions): Promise<ListPage<T>> {
      return life.run(async () => {
        if (typeof prefix !== "string" || !PREFIX_PATTERN.test(prefix)) throw invalidKeyError(tag, prefix);
        const cursor = options?.cursor;
        if (cursor !== undefined && !isValidKey(cursor)) {
          throw new PortError("invalid_key", `${tag} invalid cursor ${JSON.stringify(cursor)}`);
        }
        const rawLimit = options?.limit ?? DEFAULT_LIMIT;
        if (typeof rawLimit !== "number" || Number.isNaN(rawLimit)) {
          throw new RangeError(
            `${tag} limit must be a number from 1 to ${MAX_LIMIT}; got ${String(rawLimit)}`,
          );
        }
        const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(rawLimit)));
        await indexReady();
        if (index !== undefined) return listIndexed<T>(index, prefix, cursor, limit);
        const keys = await listKeys(prefix, cursor);
        const records: StoredRecord<T>[] = [];
        let next = 0;
        while (records.length < limit && next < keys.length) {
          const batch = keys.slice(next, next + Math.min(READ_BATCH, limit - records.length));
          next += batch.length;
          const envelopes = await Promise.all(batch.map((key) => readLive(key)));
          envelopes.forEach((envelope, index) => {
            const key = batch[index];
            if (envelope && key !== undefined) records.push(toRecord<T>(key, envelope));
          });
        }
        const last = records.at(-1);
        return next < keys.length && last ? { records, cursor: last.key } : { records };
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        if (options.disposeStorage === false) return;
        try {
          await storage.dispose();
        } catch (error) {
          throw storageError(tag, "close its storage", error);
        }
      });
    },
  };

  return {
    store,
    async loadIndex() {
      if (options.indexKeys) await loadIndex();
    },
  };
}

/**
 * Records kept in memory within a budget of bytes, least recently used out first: the stored text of a record
 * (parsed anew on every read, so that no caller shares an object with another), or null for a key known to hold
 * nothing. An entry costs its key and its text, two bytes a character.
 *
 * What a read of the storage saw is kept only if no write or delete of that key ended (`set`, `forget`) while the
 * read was in flight: such a read may have seen the record before the write, and keeping it would answer the old
 * record after the new one was acknowledged.
 */
function createRecordCache(budgetBytes: number) {
  const entries = new Map<string, string | null>();
  /** Per key with reads of the storage in flight: how many, and whether a write ended during any of them. */
  const reads = new Map<string, { count: number; overtaken: boolean }>();
  let used = 0;
  const cost = (key: string, entry: string | null) => 2 * (key.length + (entry?.length ?? 0)) + 64;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    used -= cost(key, entry);
  };
  const keep = (key: string, entry: string | null) => {
    drop(key);
    const size = cost(key, entry);
    if (size > budgetBytes) return;
    entries.set(key, entry);
    used += size;
    while (used > budgetBytes) drop(entries.keys().next().value as string);
  };
  const overtake = (key: string) => {
    const reading = reads.get(key);
    if (reading !== undefined) reading.overtaken = true;
  };
  return {
    get(key: string): string | null | undefined {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry;
    },
    /** Keeps what a write or delete left under `key`. */
    set(key: string, entry: string | null): void {
      overtake(key);
      keep(key, entry);
    },
    /** Forgets `key` after a write or delete that may or may not have happened. */
    forget(key: string): void {
      overtake(key);
      drop(key);
    },
    /** A read of `key` from the storage begins; `end` with what it saw (undefined for nothing to keep). */
    startRead(key: string): { end(seen: string | null | undefined): void } {
      if (budgetBytes <= 0) return { end() {} };
      let reading = reads.get(key);
      if (reading === undefined) {
        reading = { count: 0, overtaken: false };
        reads.set(key, reading);
      }
      reading.count += 1;
      const current = reading;
      return {
        end(seen) {
          current.count -= 1;
          if (current.count === 0 && reads.get(key) === current) reads.delete(key);
          if (seen !== undefined && !current.overtaken) keep(key, seen);
        },
      };
    },
  };
}

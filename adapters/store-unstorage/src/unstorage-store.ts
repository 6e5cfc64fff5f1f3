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
  const { storage, name } = options;
  const clock = options.clock ?? systemClock;
  const capabilities: StoreCapabilities = { ...options.capabilities };
  const tag = messageTag(name, "store");
  const mutex = createKeyMutex();
  const life = createStoreLifecycle(tag);

  const { assertKey, serialise, ttlOf } = createStoreChecks(tag);

  const cache = createRecordCache(options.cacheBytes ?? 0);

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
    let raw: unknown;
    try {
      raw = await storage.getItemRaw(toStorageKey(key));
    } catch (error) {
      throw storageError(tag, `read ${JSON.stringify(key)}`, error);
    }
    if (raw === null || raw === undefined) {
      cache.set(key, null);
      return undefined;
    }
    const text = raw instanceof Uint8Array ? decoder.decode(raw) : raw;
    const envelope = parseEnvelope(key, text);
    if (typeof text === "string") cache.set(key, text);
    return envelope;
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

  /** The live record under `key`, reaping it when expired. */
  const readLive = async (key: string): Promise<Envelope | undefined> => {
    const envelope = await read(key);
    if (!envelope) return undefined;
    if (isLive(envelope)) return envelope;
    reapLater(key, envelope);
    return undefined;
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

  return {
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
        return mutex.run(key, async () => {
          const existing = await read(key);
          const live = existing && isLive(existing) ? existing : undefined;
          if (ifVersion !== undefined && live?.v !== ifVersion) throw conflict(key, ifVersion, live);
          if (!existing) return false;
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
}

/**
 * Records kept in memory within a budget of bytes, least recently used out first: the stored text of a record
 * (parsed anew on every read, so that no caller shares an object with another), or null for a key known to hold
 * nothing. An entry costs its key and its text, two bytes a character.
 */
function createRecordCache(budgetBytes: number) {
  const entries = new Map<string, string | null>();
  let used = 0;
  const cost = (key: string, entry: string | null) => 2 * (key.length + (entry?.length ?? 0)) + 64;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (entry === undefined) return;
    entries.delete(key);
    used -= cost(key, entry);
  };
  return {
    get(key: string): string | null | undefined {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry;
    },
    set(key: string, entry: string | null): void {
      drop(key);
      const size = cost(key, entry);
      if (size > budgetBytes) return;
      entries.set(key, entry);
      used += size;
      while (used > budgetBytes) drop(entries.keys().next().value as string);
    },
    forget: drop,
  };
}

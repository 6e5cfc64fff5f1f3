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
import { openClient, type RedisConnectionOptions } from "./redis-client.ts";
import { runScript, scripts } from "./scripts.ts";

export interface RedisStoreOptions extends RedisConnectionOptions {
  /** Where time comes from (TTLs, `updatedAt`); defaults to the system clock. */
  clock?: Clock;
  /**
   * How long after a record expires on the store's clock Redis drops it; default 1000 ms. The store already treats
   * an expired record as absent; this margin keeps a record whose expiry is near from vanishing early for a process
   * whose clock runs a little behind.
   */
  expiryGraceMs?: number;
}

/** What one record looks like inside Redis. */
interface Envelope {
  v: number;
  value: unknown;
  updatedAt: number;
  expiresAt?: number;
}

const NAME = "redis";
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const DEFAULT_EXPIRY_GRACE_MS = 1000;
const PREFIX_PATTERN = /^[A-Za-z0-9._:-]{0,512}$/;

/**
 * The Store port on Redis. Each record is one string key holding its JSON envelope; a sorted set indexes the keys
 * for `list`. Every write runs as one Lua script, so `create`, compare-and-set, version increments and conditional
 * deletes are atomic among every process using the same server and prefix. Durable as far as the server is
 * configured to be (AOF with `appendfsync always` keeps every acknowledged write).
 *
 * Keys: `<prefix>r:<key>` for records and `<prefix>index` for the index. The scripts touch keys they do not
 * declare, so the store needs a standalone server (or a primary with replicas), not Redis Cluster.
 */
export function createRedisStore(options: RedisStoreOptions = {}): Store {
  const { client, owned, prefix } = openClient(options);
  const clock = options.clock ?? systemClock;
  const graceMs = options.expiryGraceMs ?? DEFAULT_EXPIRY_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0) {
    throw new RangeError(`expiryGraceMs must be a finite number of milliseconds, 0 or more; got ${graceMs}`);
  }
  const capabilities: StoreCapabilities = { durable: true, shared: true };
  const tag = messageTag(NAME, "store");
  const life = createStoreLifecycle(tag);
  const recordPrefix = `${prefix}r:`;
  const indexKey = `${prefix}index`;

  const { assertKey, serialise, ttlOf } = createStoreChecks(tag);

  const ifVersionOf = (ifVersion: number | undefined): string => {
    if (ifVersion === undefined) return "";
    if (!Number.isSafeInteger(ifVersion)) {
      throw new RangeError(`${tag} ifVersion must be an integer; got ${String(ifVersion)}`);
    }
    return String(ifVersion);
  };

  const unreadable = (key: string, cause?: unknown): PortError =>
    new PortError("store_unavailable", `${tag} the record ${JSON.stringify(key)} is unreadable`, { cause });

  const parseEnvelope = (key: string, raw: string): Envelope => {
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch (error) {
      throw unreadable(key, error);
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

  const isLive = (envelope: Envelope): boolean =>
    envelope.expiresAt === undefined || clock.now() < envelope.expiresAt;

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

  const conflict = (key: string, expected: number, found: number): PortError =>
    new PortError(
      "version_conflict",
      `${tag} version conflict on ${JSON.stringify(key)}: expected version ${expected}, found ${
        found > 0 ? `version ${found}` : "no record"
      }`,
    );

  /** Runs a script, turning a failure of Redis into `store_unavailable`. */
  const run = async (
    action: string,
    s: (typeof scripts)[keyof typeof scripts],
    args: Array<string | number>,
  ) => {
    try {
      return await runScript(client, s, args);
    } catch (error) {
      throw storageError(tag, action, error);
    }
  };

  /** The arguments every write script shares: time, expiry and the value. */
  const writeArgs = (ttlMs: number | undefined, json: string) => {
    const now = clock.now();
    const expiresAt = ttlMs === undefined ? undefined : now + ttlMs;
    const pexpire = ttlMs === undefined ? "" : String(Math.max(1, Math.ceil(ttlMs + graceMs)));
    return {
      now,
      expiresAt,
      args: [String(now), String(now), expiresAt === undefined ? "" : String(expiresAt), pexpire, json],
    };
  };

  const written = <T>(
    key: string,
    version: number,
    json: string,
    updatedAt: number,
    expiresAt: number | undefined,
  ): StoredRecord<T> => {
    const record: StoredRecord<T> = { key, value: JSON.parse(json) as T, version, updatedAt };
    if (expiresAt !== undefined) record.expiresAt = expiresAt;
    return record;
  };

  return {
    name: NAME,
    capabilities,

    get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined> {
      return life.run(async () => {
        assertKey(key);
        let raw: string | null;
        try {
          raw = await client.get(recordPrefix + key);
        } catch (error) {
          throw storageError(tag, `read ${JSON.stringify(key)}`, error);
        }
        if (raw === null) return undefined;
        const envelope = parseEnvelope(key, raw);
        return isLive(envelope) ? toRecord<T>(key, envelope) : undefined;
      });
    },

    create<T = unknown>(key: string, value: T, options?: WriteOptions): Promise<CreateResult<T>> {
      return life.run(async () => {
        assertKey(key);
        const json = serialise(key, value);
        const ttlMs = ttlOf(options);
        const { now, expiresAt, args } = writeArgs(ttlMs, json);
        const reply = (await run(`create ${JSON.stringify(key)}`, scripts.create, [
          recordPrefix + key,
          indexKey,
          key,
          ...args,
        ])) as [number, string?];
        if (reply[0] === 1) return { created: true, record: written<T>(key, 1, json, now, expiresAt) };
        const existing = reply[1];
        if (typeof existing !== "string") throw unreadable(key);
        return { created: false, record: toRecord<T>(key, parseEnvelope(key, existing)) };
      });
    },

    put<T = unknown>(key: string, value: T, options?: PutOptions): Promise<StoredRecord<T>> {
      return life.run(async () => {
        assertKey(key);
        const json = serialise(key, value);
        const ttlMs = ttlOf(options);
        const ifVersion = ifVersionOf(options?.ifVersion);
        const { now, expiresAt, args } = writeArgs(ttlMs, json);
        const reply = (await run(`write ${JSON.stringify(key)}`, scripts.put, [
          recordPrefix + key,
          indexKey,
          key,
          ...args,
          ifVersion,
        ])) as [number, number?];
        if (reply[0] === -1) throw conflict(key, Number(ifVersion), reply[1] ?? 0);
        return written<T>(key, reply[0], json, now, expiresAt);
      });
    },

    delete(key: string, options?: { ifVersion?: number }): Promise<boolean> {
      return life.run(async () => {
        assertKey(key);
        const ifVersion = ifVersionOf(options?.ifVersion);
        const reply = (await run(`delete ${JSON.stringify(key)}`, scripts.delete, [
          recordPrefix + key,
          indexKey,
          key,
          String(clock.now()),
          ifVersion,
        ])) as [number, number?];
        if (reply[0] === -1) throw conflict(key, Number(ifVersion), reply[1] ?? 0);
        return reply[0] === 1;
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
        // Keys are ASCII, so every key starting with `prefix` sorts below `prefix` + 0xff.
        const max = prefix === "" ? "+" : `[${prefix}\xff`;
        let min: string;
        if (cursor !== undefined && cursor >= prefix) min = `(${cursor}`;
        else min = prefix === "" ? "-" : `[${prefix}`;
        const reply = (await run(`list ${JSON.stringify(prefix)}`, scripts.list, [
          indexKey,
          recordPrefix,
          String(clock.now()),
          min,
          max,
          limit,
        ])) as [number, ...string[]];
        const records: StoredRecord<T>[] = [];
        for (let i = 1; i + 1 < reply.length; i += 2) {
          const key = reply[i] as string;
          records.push(toRecord<T>(key, parseEnvelope(key, reply[i + 1] as string)));
        }
        const last = records.at(-1);
        return reply[0] === 1 && last ? { records, cursor: last.key } : { records };
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        if (!owned) return;
        try {
          await client.quit();
        } catch (error) {
          throw storageError(tag, "close its connection", error);
        }
      });
    },
  };
}

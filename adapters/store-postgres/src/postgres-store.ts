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
  systemClock,
} from "@mailpiece/ports";
import type { Sql } from "postgres";
import { databaseError, openConnection, type PostgresConnectionOptions } from "./connection.ts";
import { applyMigrations, checkTableName, DEFAULT_TABLE_NAME } from "./migrations.ts";

export interface PostgresStoreOptions extends PostgresConnectionOptions {
  /** Where time comes from (TTLs, `updatedAt`); defaults to the system clock. */
  clock?: Clock;
  /** The table holding the records; default `mailpiece_records`. Several stores may share one database. */
  tableName?: string;
  /**
   * Whether opening the store first brings its table up to date (see `migratePostgres`); default true. Pass false
   * when an operator migrates beforehand (`mailpiece-store-postgres migrate`) and the store's role may not alter the
   * schema.
   */
  migrate?: boolean;
  /**
   * How often, on the store's clock, a write also starts a sweep that deletes expired records (in batches, in the
   * background); default 60 000 ms. Expired records are absent whether swept or not.
   */
  sweepIntervalMs?: number;
}

/** A row as the queries below select it. `bigint` columns arrive as strings. */
interface Row {
  key: string;
  value: string;
  version: string;
  updated_at: string;
  expires_at: string | null;
}

const NAME = "postgres";
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
const DEFAULT_SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 1000;
const SWEEP_MAX_BATCHES = 20;
/** Rounds of `create` that found the key neither writable nor live (it changed in between) before giving up. */
const CREATE_ROUNDS = 50;
const PREFIX_PATTERN = /^[A-Za-z0-9._:-]{0,512}$/;
/** Above every character a key may hold: `prefix + PREFIX_END` bounds the keys that start with `prefix`. */
const PREFIX_END = "\u007f";

/**
 * The Store port on PostgreSQL (the `postgres` package). Every record is one row of one table; every operation is
 * one SQL statement (`create` may take a second when it races), so `create`, compare-and-set, version increments and
 * conditional deletes are atomic among every process using the same table. Durable as the database is.
 *
 * Time comes from the store's clock and is passed to every statement, never read from the server: a record is live
 * while `expires_at` is null or after the clock's now. Expired rows are invisible at once and deleted by a sweep
 * every `sweepIntervalMs`.
 *
 * Opening the store applies the table's migrations (unless `migrate: false`); it rejects with
 * `store_unavailable` when the database cannot be reached. No error shows the URL or the password.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const table = checkTableName(options.tableName ?? DEFAULT_TABLE_NAME);
  const clock = options.clock ?? systemClock;
  const sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  if (typeof sweepIntervalMs !== "number" || Number.isNaN(sweepIntervalMs) || sweepIntervalMs < 0) {
    throw new RangeError(
      `sweepIntervalMs must be a number of milliseconds, 0 or more; got ${sweepIntervalMs}`,
    );
  }
  const tag = messageTag(NAME, "store");
  const { sql, owned, secrets } = openConnection(options);
  if (options.migrate !== false) {
    try {
      await applyMigrations(sql, table);
    } catch (error) {
      if (owned) await sql.end({ timeout: 0 }).catch(() => undefined);
      throw databaseError(tag, `migrate the table ${table}`, error, secrets);
    }
  }
  return openStore(sql, { table, clock, sweepIntervalMs, owned, secrets, tag });
}

interface OpenOptions {
  table: string;
  clock: Clock;
  sweepIntervalMs: number;
  owned: boolean;
  secrets: string[];
  tag: string;
}

function openStore(sql: Sql, { table, clock, sweepIntervalMs, owned, secrets, tag }: OpenOptions): Store {
  const capabilities: StoreCapabilities = { durable: true, shared: true };
  const life = createStoreLifecycle(tag);
  const { assertKey, serialise, ttlOf } = createStoreChecks(tag);
  const t = sql(table);
  // Values go to the server as the JSON text `serialise` made, cast `::text::json`: a parameter the server types
  // as json would be encoded by the driver a second time.

  /** Runs one database call, turning its failure into `store_unavailable` without secrets. */
  const db = async <R>(action: string, query: () => Promise<R>): Promise<R> => {
    try {
      return await query();
    } catch (error) {
      throw databaseError(tag, action, error, secrets);
    }
  };

  /** The store's clock, in whole milliseconds. */
  const now = (): number => Math.floor(clock.now());

  const expiryOf = (at: number, ttlMs: number | undefined): number | null =>
    ttlMs === undefined ? null : Math.min(Number.MAX_SAFE_INTEGER, Math.ceil(at + ttlMs));

  const ifVersionOf = (ifVersion: unknown): number | undefined => {
    if (ifVersion === undefined) return undefined;
    if (typeof ifVersion !== "number" || !Number.isSafeInteger(ifVersion)) {
      throw new RangeError(`${tag} ifVersion must be an integer; got ${String(ifVersion)}`);
    }
    return ifVersion;
  };

  const conflict = (key: string, expected: number, found: string | null | undefined): PortError =>
    new PortError(
      "version_conflict",
      `${tag} version conflict on ${JSON.stringify(key)}: expected version ${expected}, found ${
        found === null || found === undefined ? "no record" : `version ${found}`
      }`,
    );

  const toRecord = <T>(row: Row): StoredRecord<T> => {
    let value: T;
    try {
      value = JSON.parse(row.value) as T;
    } catch {
      throw new PortError("store_unavailable", `${tag} the record ${JSON.stringify(row.key)} is unreadable`);
    }
    const record: StoredRecord<T> = {
      key: row.key,
      value,
      version: Number(row.version),
      updatedAt: Number(row.updated_at),
    };
    if (row.expires_at !== null) record.expiresAt = Number(row.expires_at);
    return record;
  };

  const written = <T>(
    key: string,
    json: string,
    version: number,
    updatedAt: number,
    expiresAt: number | null,
  ): StoredRecord<T> => {
    const record: StoredRecord<T> = { key, value: JSON.parse(json) as T, version, updatedAt };
    if (expiresAt !== null) record.expiresAt = expiresAt;
    return record;
  };

  let lastSweep = now();
  /** Deletes expired rows in batches; rows in use by another transaction are left for a later sweep. */
  const sweep = async (at: number): Promise<void> => {
    for (let batch = 0; batch < SWEEP_MAX_BATCHES; batch++) {
      const deleted = await sql`
        delete from ${t}
        where key in (
          select key from ${t} where expires_at <= ${at} order by expires_at limit ${SWEEP_BATCH}
          for update skip locked
        ) and expires_at <= ${at}`;
      if (deleted.count < SWEEP_BATCH) return;
    }
  };
  /** Starts a sweep in the background when the last one is `sweepIntervalMs` old on the store's clock. */
  const maybeSweep = (at: number): void => {
    if (at - lastSweep < sweepIntervalMs) return;
    lastSweep = at;
    life.background(() => sweep(at));
  };

  const liveRow = async (key: string, at: number): Promise<Row | undefined> => {
    const rows = await sql<Row[]>`
      select key, value::text as value, version, updated_at, expires_at from ${t}
      where key = ${key} and (expires_at is null or expires_at > ${at})`;
    return rows[0];
  };

  return {
    name: NAME,
    capabilities,

    get<T = unknown>(key: string): Promise<StoredRecord<T> | undefined> {
      return life.run(async () => {
        assertKey(key);
        const row = await db(`read ${JSON.stringify(key)}`, () => liveRow(key, now()));
        return row ? toRecord<T>(row) : undefined;
      });
    },

    create<T = unknown>(key: string, value: T, options?: WriteOptions): Promise<CreateResult<T>> {
      return life.run(async () => {
        assertKey(key);
        const json = serialise(key, value);
        const ttlMs = ttlOf(options);
        const at = now();
        const expiresAt = expiryOf(at, ttlMs);
        maybeSweep(at);
        return db(`create ${JSON.stringify(key)}`, async (): Promise<CreateResult<T>> => {
          for (let round = 0; round < CREATE_ROUNDS; round++) {
            // Inserts, or takes over an expired row; else reads the live row, as of the statement's start.
            const rows = await sql<(Row & { created: boolean })[]>`
              with inserted as (
                insert into ${t} as r (key, value, version, updated_at, expires_at)
                values (${key}, ${json}::text::json, 1, ${at}, ${expiresAt})
                on conflict (key) do update set
                  value = excluded.value, version = 1, updated_at = excluded.updated_at,
                  expires_at = excluded.expires_at
                where r.expires_at is not null and r.expires_at <= ${at}
                returning 1
              )
              select true as created, null::text as key, null::text as value, null::bigint as version,
                null::bigint as updated_at, null::bigint as expires_at
              from inserted
              union all
              select false, key, value::text, version, updated_at, expires_at from ${t}
              where key = ${key} and (expires_at is null or expires_at > ${at})
                and not exists (select 1 from inserted)`;
            const row = rows[0];
            if (row?.created) return { created: true, record: written<T>(key, json, 1, at, expiresAt) };
            if (row) return { created: false, record: toRecord<T>(row) };
            // The live row was written after this statement's snapshot began: read it in a new statement.
            const live = await liveRow(key, at);
            if (live) return { created: false, record: toRecord<T>(live) };
          }
          throw new PortError(
            "store_unavailable",
            `${tag} could not create ${JSON.stringify(key)}: it kept changing under ${CREATE_ROUNDS} attempts`,
          );
        });
      });
    },

    put<T = unknown>(key: string, value: T, options?: PutOptions): Promise<StoredRecord<T>> {
      return life.run(async () => {
        assertKey(key);
        const json = serialise(key, value);
        const ttlMs = ttlOf(options);
        const ifVersion = ifVersionOf(options?.ifVersion);
        const at = now();
        const expiresAt = expiryOf(at, ttlMs);
        maybeSweep(at);
        return db(`write ${JSON.stringify(key)}`, async () => {
          if (ifVersion === undefined) {
            const [row] = await sql<{ version: string }[]>`
              insert into ${t} as r (key, value, version, updated_at, expires_at)
              values (${key}, ${json}::text::json, 1, ${at}, ${expiresAt})
              on conflict (key) do update set
                value = excluded.value,
                version = case when r.expires_at is not null and r.expires_at <= ${at} then 1
                  else r.version + 1 end,
                updated_at = excluded.updated_at,
                expires_at = excluded.expires_at
              returning version`;
            if (!row) throw new Error("the write returned no row");
            return written<T>(key, json, Number(row.version), at, expiresAt);
          }
          const [row] = await sql<{ written: string | null; found: string | null }[]>`
            with updated as (
              update ${t} set value = ${json}::text::json, version = version + 1, updated_at = ${at},
                expires_at = ${expiresAt}
              where key = ${key} and version = ${ifVersion}
                and (expires_at is null or expires_at > ${at})
              returning version
            )
            select (select version from updated) as written,
              (select version from ${t} where key = ${key} and (expires_at is null or expires_at > ${at})) as found`;
          if (row?.written === null || row?.written === undefined) throw conflict(key, ifVersion, row?.found);
          return written<T>(key, json, Number(row.written), at, expiresAt);
        });
      });
    },

    delete(key: string, options?: { ifVersion?: number }): Promise<boolean> {
      return life.run(async () => {
        assertKey(key);
        const ifVersion = ifVersionOf(options?.ifVersion);
        const at = now();
        maybeSweep(at);
        return db(`delete ${JSON.stringify(key)}`, async () => {
          if (ifVersion === undefined) {
            // An expired row goes too, but counts as no record.
            const rows = await sql<{ live: boolean }[]>`
              delete from ${t} where key = ${key}
              returning (expires_at is null or expires_at > ${at}) as live`;
            return rows[0]?.live === true;
          }
          const [row] = await sql<{ deleted: boolean; found: string | null }[]>`
            with deleted as (
              delete from ${t}
              where key = ${key} and version = ${ifVersion} and (expires_at is null or expires_at > ${at})
              returning 1
            )
            select exists (select 1 from deleted) as deleted,
              (select version from ${t} where key = ${key} and (expires_at is null or expires_at > ${at})) as found`;
          if (row?.deleted !== true) throw conflict(key, ifVersion, row?.found);
          return true;
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
        const at = now();
        // One statement for every listing: the empty prefix bounds nothing (every key sorts below PREFIX_END), and
        // no cursor is "" (every key sorts above it).
        const rows = await db(
          `list ${JSON.stringify(prefix)}`,
          () => sql<Row[]>`
            select key, value::text as value, version, updated_at, expires_at from ${t}
            where key >= ${prefix} and key < ${prefix + PREFIX_END} and key > ${cursor ?? ""}
              and (expires_at is null or expires_at > ${at})
            order by key
            limit ${limit + 1}`,
        );
        const records = rows.slice(0, limit).map((row) => toRecord<T>(row));
        const last = records.at(-1);
        return rows.length > limit && last ? { records, cursor: last.key } : { records };
      });
    },

    close(): Promise<void> {
      return life.close(async () => {
        if (!owned) return;
        try {
          await sql.end({ timeout: 5 });
        } catch (error) {
          throw databaseError(tag, "close its connections", error, secrets);
        }
      });
    },
  };
}

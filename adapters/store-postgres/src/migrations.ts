import type { Sql } from "postgres";
import { databaseError, openConnection } from "./connection.ts";

/** One step of the schema of a records table, applied once per table, in order of `version`. */
export interface Migration {
  version: number;
  name: string;
  /** The statements of this step for the records table `table` (a checked, lower-case identifier). */
  statements(table: string): string[];
}

export const DEFAULT_TABLE_NAME = "mailpiece_records";
export const MIGRATIONS_TABLE = "mailpiece_migrations";

/**
 * The schema, as numbered steps. Never change a step that has shipped: add the next one.
 *
 * Records: `key` sorts by byte (collation "C"), which for Mailpiece keys (ASCII only) is UTF-16 code unit order.
 * `value` is `json`, the JSON text exactly as written: `jsonb` cannot hold the NUL character (`\u0000`), which a
 * string value may contain. `version`, `updated_at` and `expires_at` are whole milliseconds or counts;
 * `expires_at` is null for a record that never expires and is compared with the store's clock, never the server's.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "records table",
    statements: (table) => [
      `create table "${table}" (
        key text collate "C" primary key,
        value json not null,
        version bigint not null,
        updated_at bigint not null,
        expires_at bigint
      )`,
      `create index "${table}_expires_at" on "${table}" (expires_at) where expires_at is not null`,
    ],
  },
];

/** Any fixed number: the advisory lock every Mailpiece process takes while it migrates. */
const MIGRATION_LOCK = 7_212_650_304_857;

/** Lower-case letters, digits and `_`, starting with a letter or `_`; short enough for derived index names. */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

export function checkTableName(tableName: unknown): string {
  if (typeof tableName !== "string" || !TABLE_NAME.test(tableName) || tableName === MIGRATIONS_TABLE) {
    throw new TypeError(
      `tableName must be 1 to 48 lower-case letters, digits or '_', starting with a letter or '_', and not ${MIGRATIONS_TABLE}; got ${JSON.stringify(tableName)}`,
    );
  }
  return tableName;
}

export interface MigrateOptions {
  /** The records table to migrate; default `mailpiece_records`. */
  tableName?: string;
}

export interface MigrateResult {
  /** The versions this call applied, in order; empty when the table was up to date. */
  applied: number[];
  /** The newest version the table now has. */
  version: number;
}

const TAG = "[mailpiece] [postgres-store]";

/**
 * Brings the records table up to date: applies, in one transaction, every step of `MIGRATIONS` that
 * `mailpiece_migrations` does not list for the table. The transaction holds a Postgres advisory lock, so processes
 * that migrate at once take turns and each step runs once. `connection` is a `postgres://` URL (a connection is
 * opened and closed) or a client of the `postgres` package (left open).
 * Rejects with `store_unavailable` when the database cannot be reached or refuses a step.
 */
export async function migratePostgres(
  connection: string | Sql,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const table = checkTableName(options.tableName ?? DEFAULT_TABLE_NAME);
  const conn = openConnection(
    typeof connection === "string" ? { url: connection, maxConnections: 1 } : { sql: connection },
  );
  try {
    return await applyMigrations(conn.sql, table);
  } catch (error) {
    throw databaseError(TAG, `migrate the table ${table}`, error, conn.secrets);
  } finally {
    if (conn.owned) await conn.sql.end({ timeout: 5 }).catch(() => undefined);
  }
}

/** The work of `migratePostgres` on an open client; database errors are left for the caller to wrap. */
export async function applyMigrations(sql: Sql, table: string): Promise<MigrateResult> {
  return sql.begin(async (tx) => {
    await tx.unsafe("set local client_min_messages to warning");
    await tx.unsafe(`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.unsafe(`create table if not exists ${MIGRATIONS_TABLE} (
      table_name text not null,
      version integer not null,
      name text not null,
      applied_at timestamptz not null default now(),
      primary key (table_name, version)
    )`);
    const rows = await tx<{ version: number }[]>`
      select version from ${tx(MIGRATIONS_TABLE)} where table_name = ${table}`;
    const done = new Set(rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements(table)) await tx.unsafe(statement);
      await tx`insert into ${tx(MIGRATIONS_TABLE)} (table_name, version, name)
        values (${table}, ${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    }
    return { applied, version: Math.max(0, ...done, ...applied) };
  }) as Promise<MigrateResult>;
}

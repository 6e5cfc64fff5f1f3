import { PortError } from "@mailpiece/ports";
import postgres, { type Sql } from "postgres";

export interface PostgresConnectionOptions {
  /**
   * The database to connect to, e.g. `postgres://user:password@127.0.0.1:5432/mailpiece`. Never shown in errors.
   * Pass either `url` or `sql`.
   */
  url?: string;
  /** A client of the `postgres` package to use instead of connecting; left open on `close()`. */
  sql?: Sql;
  /** The most connections the store opens at once (with `url`); default 10. */
  maxConnections?: number;
}

export interface Connection {
  sql: Sql;
  /** Whether the store opened the client, and so ends it. */
  owned: boolean;
  /** Strings that must never appear in an error: the URL and the password. */
  secrets: string[];
}

const DEFAULT_MAX_CONNECTIONS = 10;

/** The client a store or migration uses: the one given, or a new one on `url`. */
export function openConnection(options: PostgresConnectionOptions): Connection {
  if (options.sql !== undefined && options.url !== undefined) {
    throw new TypeError("pass either url or sql, not both");
  }
  if (options.sql !== undefined) {
    if (typeof options.sql !== "function")
      throw new TypeError("sql must be a client of the postgres package");
    const pass = (options.sql.options as { pass?: unknown } | undefined)?.pass;
    return { sql: options.sql, owned: false, secrets: secretsOf(undefined, pass) };
  }
  const url = options.url;
  if (typeof url !== "string") throw new TypeError("pass url (a postgres:// URL) or sql (a postgres client)");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError("url is not a valid URL: expected postgres://user:password@host:port/database");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new TypeError(`url must start with postgres:// or postgresql://, not ${parsed.protocol}//`);
  }
  const max = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(`maxConnections must be a whole number, 1 or more; got ${String(max)}`);
  }
  const sql = postgres(url, {
    max,
    // Notices ("relation already exists, skipping") are not for the application's log.
    onnotice: () => undefined,
    connection: { application_name: "mailpiece" },
  });
  return { sql, owned: true, secrets: secretsOf(url, parsed.password) };
}

function secretsOf(url: string | undefined, password: unknown): string[] {
  const secrets: string[] = [];
  if (url) secrets.push(url);
  if (typeof password === "string" && password !== "") {
    secrets.push(password);
    try {
      secrets.push(decodeURIComponent(password));
    } catch {}
    secrets.push(encodeURIComponent(password));
  }
  // The longest first, so that a secret inside another is hidden with it.
  return [...new Set(secrets)].sort((a, b) => b.length - a.length);
}

/**
 * A failure of the database as a `store_unavailable` PortError whose message names the driver's reason and code
 * with every secret hidden. The driver's error is not kept as the cause: it may carry the query's parameters and
 * connection details. A PortError passes through unchanged.
 */
export function databaseError(tag: string, action: string, cause: unknown, secrets: string[]): PortError {
  if (PortError.isInstance(cause)) return cause;
  let reason = cause instanceof Error ? cause.message : String(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === "string" && !reason.includes(code)) reason += ` (${code})`;
  for (const secret of secrets) reason = reason.split(secret).join("[hidden]");
  return new PortError("store_unavailable", `${tag} could not ${action}: ${reason}`);
}

import type { JsonWebKey } from "node:crypto";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseSmtpUrl } from "@mailpiece/email-smtp";
import { defineError } from "@mailpiece/errors";
import { FetchError, parseHostAllowList, parsePrivateHostList } from "@mailpiece/fetch-https";
import { DEFAULT_DEADLINE_MS, DEFAULT_MAX_QUEUE, DEFAULT_THREADS } from "@mailpiece/pdf-work";
import { isValidEmailAddress } from "@mailpiece/ports";
import { parseRetrySchedule } from "@mailpiece/webhooks";

/** S3-compatible object storage for documents (BLOB_STORE=s3). */
export interface S3Config {
  bucket: string;
  region: string;
  /** Another endpoint than AWS's (MinIO, R2, a local server). */
  endpoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

/** The reference server's configuration, read from the environment (see the README's table). */
export interface ServerConfig {
  host: string;
  port: number;
  /** Absent: the URL the server listens on. */
  publicUrl?: string;
  store: "file" | "memory" | "redis" | "postgres";
  /** With STORE=redis: the Redis server every process shares. */
  redisUrl: string;
  /** With STORE=postgres: the database every process shares (the system of record). */
  databaseUrl?: string;
  /** Where documents are kept: with the records (`store`, the default) or in S3-compatible object storage. */
  blobs: { kind: "store" } | { kind: "s3"; s3: S3Config };
  dataDir: string;
  maxBodyBytes: number;
  /** Request body bytes all requests may hold at once. */
  maxInflightBodyBytes: number;
  pdfDownloadHosts: string[];
  /** An address index file made by `mailpiece-addresses import`; absent: the embedded US sample. */
  addressIndexFile?: string;
  /** Address search through Loqate instead of the embedded index, with this API key. */
  loqateApiKey?: string;
  /**
   * Card payments at hosted checkout: `test` (no money moves; the default, said loudly at start) or Stripe with a
   * secret key that can charge shared payment tokens.
   */
  checkout: { provider: "test" } | { provider: "stripe"; secretKey: string };
  /**
   * UCP checkout: platform profile hosts admitted although they are private or loopback (host[:port], over http
   * too; development and tests only), and the private JWK (EC P-256) whose public half the business profile
   * publishes; absent: one is created once and kept in the store.
   */
  ucp: { profileHosts: string[]; signingKey?: JsonWebKey };
  /**
   * Webhook deliveries: private or loopback receivers admitted by name (development and tests), and the retry
   * schedule in ms (six steps by default: 1 min, 5 min, 30 min, 2 h, 12 h, 24 h).
   */
  webhooks: { privateHosts: string[]; retryScheduleMs?: readonly number[]; eventRetentionMs: number };
  /**
   * Email (receipts, status mails, return receipts): sent from `from` over SMTP when `smtp` is set (the URL carries
   * its credentials; `caFile` a PEM file of a private CA to trust), else kept as .eml files in DATA_DIR/outbox.
   */
  email: { from: { name?: string; address: string }; smtp?: { url: string; caFile?: string } };
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  trustProxy: boolean;
  /** How often the fulfilment worker looks for work, in ms; 0 turns it off. */
  fulfilmentIntervalMs: number;
  /** The simulated printer's pace in ms: accepted, in transit, delivered after submission. */
  printPace: { acceptAfterMs: number; inTransitAfterMs: number; deliverAfterMs: number };
  /** Signs preview links; absent: generated once under DATA_DIR. */
  previewSecret?: string;
  /** Enables the operator's admin API and dashboard (at least 32 characters); absent: both answer 404. */
  adminToken?: string;
  /** How long an API key replaced by a rotation keeps working, in ms (spec 3's overlap). */
  keyOverlapMs: number;
  /** How long a document that no order names and nothing else needs is kept before it is deleted, in ms. */
  documentRetentionMs: number;
  /** Unpaid order creations allowed per client IP per hour. */
  unpaidPerHour: number;
  /** How long a settlement may run before a payment still settling counts as interrupted and is confirmed, in ms. */
  settleLeaseMs: number;
  /** Validations per client IP per minute, in each process. */
  validatePerMinute: number;
  /** Requests to /mcp per client IP per minute, in each process. */
  mcpRequestsPerMinute: number;
  /** Upload slots per client IP per hour, and the bytes they may declare. */
  uploadsPerHour: number;
  uploadBytesPerHour: number;
  /**
   * Worker threads for typesetting and PDF checks (0: on the event loop, for tools and comparisons only; default
   * `defaultPdfWorkers`), the jobs that may wait for them, and each job's deadline.
   */
  pdfWorkers: number;
  pdfQueue: number;
  pdfDeadlineMs: number;
  payments: {
    x402?: { network: string; payTo: string; facilitatorUrl?: string };
    mpp?: {
      realm: string;
      /** Absent: generated once and kept under DATA_DIR (or per process with the memory store). */
      secretKey?: string;
      methods: ("test" | "tempo" | "stripe")[];
      tempoRecipient?: string;
      stripeSecretKey?: string;
      stripeNetworkId?: string;
    };
  };
}

const MailpieceConfigError = defineError<"invalid_config">("ConfigError");

/** A setting of the environment that the server cannot start with; `variable` names it, the message says why. */
export class ConfigError extends MailpieceConfigError {
  readonly variable: string;

  constructor(variable: string, message: string) {
    super("invalid_config", `${variable}: ${message}`, {
      issues: [{ path: variable, code: "invalid_config", message }],
    });
    this.variable = variable;
  }

  /** True for any ConfigError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is ConfigError {
    return MailpieceConfigError.isInstance(value);
  }
}

const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** Reads and checks every variable; a bad value stops the start with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): ServerConfig {
  const host = env.HOST?.trim() || "127.0.0.1";
  const port = integer(env, "PORT", 3000, 0, 65535);
  const store = (env.STORE?.trim() || "file") as ServerConfig["store"];
  if (store !== "file" && store !== "memory" && store !== "redis" && store !== "postgres") {
    throw new ConfigError("STORE", `must be "file", "memory", "redis" or "postgres", not "${store}"`);
  }
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (store === "postgres" && !databaseUrl) {
    throw new ConfigError(
      "DATABASE_URL",
      "is required with STORE=postgres (postgres://user:password@host/db)",
    );
  }
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError("DATABASE_URL", "must be a postgres:// URL");
  }
  const logLevel = (env.LOG_LEVEL?.trim() || "info") as ServerConfig["logLevel"];
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")}`);
  const publicUrl = env.PUBLIC_URL?.trim().replace(/\/+$/, "") || undefined;
  if (publicUrl !== undefined) {
    try {
      const url = new URL(publicUrl);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
    } catch {
      throw new ConfigError("PUBLIC_URL", `must be an absolute http(s) URL, not "${publicUrl}"`);
    }
  }
  let pdfDownloadHosts: string[];
  try {
    pdfDownloadHosts = [...parseHostAllowList(list(env.PDF_DOWNLOAD_HOSTS ?? "")).entries];
  } catch (error) {
    if (FetchError.isInstance(error)) throw new ConfigError("PDF_DOWNLOAD_HOSTS", error.message);
    throw error;
  }
  const rails = list(env.PAYMENT_RAILS ?? "x402,mpp");
  for (const r of rails)
    if (r !== "x402" && r !== "mpp") throw new ConfigError("PAYMENT_RAILS", `"${r}" is not x402 or mpp`);
  const payments: ServerConfig["payments"] = {};
  if (rails.includes("x402")) {
    const network = env.X402_NETWORK?.trim() || "eip155:84532";
    if (!/^eip155:\d+$/.test(network))
      throw new ConfigError("X402_NETWORK", `must be a CAIP-2 EVM network such as eip155:84532`);
    const facilitatorUrl = env.X402_FACILITATOR_URL?.trim() || undefined;
    if (facilitatorUrl && !/^https:\/\//.test(facilitatorUrl))
      throw new ConfigError("X402_FACILITATOR_URL", "must be an https URL");
    const payTo = env.X402_PAY_TO?.trim() || (facilitatorUrl ? "" : DEV_PAYEE);
    if (!/^0x[0-9a-fA-F]{40}$/.test(payTo)) {
      throw new ConfigError(
        "X402_PAY_TO",
        "must be the 0x address that receives payments (required with X402_FACILITATOR_URL)",
      );
    }
    payments.x402 = { network, payTo, ...(facilitatorUrl ? { facilitatorUrl } : {}) };
  }
  if (rails.includes("mpp")) {
    const methods = list(env.MPP_METHODS ?? "test");
    for (const m of methods) {
      if (m !== "test" && m !== "tempo" && m !== "stripe")
        throw new ConfigError("MPP_METHODS", `"${m}" is not test, tempo or stripe`);
    }
    const secretKey = env.MPP_SECRET_KEY?.trim() || undefined;
    if (secretKey && Buffer.byteLength(secretKey) < 32)
      throw new ConfigError("MPP_SECRET_KEY", "must be at least 32 bytes");
    const mpp: NonNullable<ServerConfig["payments"]["mpp"]> = {
      realm: env.MPP_REALM?.trim() || (publicUrl ? new URL(publicUrl).host : `${host}:${port}`),
      methods: methods as ("test" | "tempo" | "stripe")[],
      ...(secretKey ? { secretKey } : {}),
    };
    if (methods.includes("tempo")) {
      const recipient = env.MPP_TEMPO_RECIPIENT?.trim() ?? "";
      if (!/^0x[0-9a-fA-F]{40}$/.test(recipient))
        throw new ConfigError("MPP_TEMPO_RECIPIENT", "must be a 0x address");
      mpp.tempoRecipient = recipient;
    }
    if (methods.includes("stripe")) {
      const key = env.MPP_STRIPE_SECRET_KEY?.trim() ?? "";
      const networkId = env.MPP_STRIPE_NETWORK_ID?.trim() ?? "";
      if (!key) throw new ConfigError("MPP_STRIPE_SECRET_KEY", "is required for the stripe method");
      if (!networkId) throw new ConfigError("MPP_STRIPE_NETWORK_ID", "is required for the stripe method");
      mpp.stripeSecretKey = key;
      mpp.stripeNetworkId = networkId;
    }
    payments.mpp = mpp;
  }
  return {
    host,
    port,
    ...(publicUrl ? { publicUrl } : {}),
    store,
    redisUrl: env.REDIS_URL?.trim() || "redis://127.0.0.1:6379",
    ...(databaseUrl ? { databaseUrl } : {}),
    blobs: blobConfig(env),
    dataDir: resolve(env.DATA_DIR?.trim() || ".data"),
    maxBodyBytes: integer(env, "MAX_BODY_BYTES", 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxInflightBodyBytes: integer(env, "MAX_INFLIGHT_BODY_BYTES", 96 * 1024 * 1024, 1024, 2 ** 40),
    pdfDownloadHosts,
    ...(env.ADDRESS_INDEX?.trim() ? { addressIndexFile: resolve(env.ADDRESS_INDEX.trim()) } : {}),
    ...addressProvider(env),
    checkout: checkoutPayments(env),
    ucp: ucpConfig(env),
    webhooks: webhookConfig(env),
    email: emailConfig(env),
    logLevel,
    trustProxy: bool(env, "TRUST_PROXY", false),
    fulfilmentIntervalMs: integer(env, "FULFILMENT_INTERVAL_MS", 1000, 0, 3_600_000),
    printPace: pace(env.SIMULATED_PRINT_PACE_MS ?? "2000,10000,30000"),
    ...(env.PREVIEW_SECRET?.trim() ? { previewSecret: secret(env, "PREVIEW_SECRET") } : {}),
    ...(env.ADMIN_TOKEN?.trim() ? { adminToken: secret(env, "ADMIN_TOKEN") } : {}),
    keyOverlapMs: integer(env, "API_KEY_OVERLAP_HOURS", 24, 0, 24 * 90) * 60 * 60 * 1000,
    documentRetentionMs: integer(env, "DOCUMENT_RETENTION_DAYS", 30, 1, 3650) * 24 * 60 * 60 * 1000,
    unpaidPerHour: integer(env, "UNPAID_ORDERS_PER_HOUR", 10, 1, 1_000_000),
    settleLeaseMs: integer(env, "SETTLE_LEASE_MS", 15_000, 1_000, 3_600_000),
    validatePerMinute: integer(env, "VALIDATE_PER_MINUTE", 600, 1, 100_000_000),
    mcpRequestsPerMinute: integer(env, "MCP_REQUESTS_PER_MINUTE", 600, 1, 100_000_000),
    uploadsPerHour: integer(env, "UPLOADS_PER_HOUR", 30, 1, 1_000_000),
    uploadBytesPerHour: integer(env, "UPLOAD_BYTES_PER_HOUR", 1024 * 1024 * 1024, 1024 * 1024, 2 ** 50),
    pdfWorkers: integer(env, "PDF_WORKERS", defaultPdfWorkers(availableParallelism()), 0, 64),
    pdfQueue: integer(env, "PDF_QUEUE", DEFAULT_MAX_QUEUE, 0, 100_000),
    pdfDeadlineMs: integer(env, "PDF_DEADLINE_MS", DEFAULT_DEADLINE_MS, 100, 600_000),
    payments,
  };
}

/**
 * Document worker threads by default: one core is left to the event loop, which parses, validates and answers every
 * request, so a 2-core machine gets one worker (each worker is a V8 isolate of its own, some 90 MiB under load);
 * at least one, at most pdf-work's DEFAULT_THREADS.
 */
export function defaultPdfWorkers(cores: number): number {
  return Math.max(1, Math.min(DEFAULT_THREADS, cores - 1));
}

function addressProvider(env: Record<string, string | undefined>): Pick<ServerConfig, "loqateApiKey"> {
  const provider = env.ADDRESS_PROVIDER?.trim().toLowerCase() || "embedded";
  if (provider === "embedded") return {};
  if (provider !== "loqate") throw new ConfigError("ADDRESS_PROVIDER", 'must be "embedded" or "loqate"');
  const key = env.LOQATE_API_KEY?.trim() ?? "";
  if (!key) throw new ConfigError("LOQATE_API_KEY", "is required when ADDRESS_PROVIDER is loqate");
  return { loqateApiKey: key };
}

/** A comma-separated list of host[:port] admitted although private or loopback, read by the fetcher's own parser. */
function privateHosts(env: Record<string, string | undefined>, name: string): string[] {
  const entries = (env[name] ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  try {
    // The fetcher's own parser: what it admits here is exactly what it will reach.
    return [...parsePrivateHostList(entries).entries];
  } catch (error) {
    throw new ConfigError(
      name,
      `must be a comma-separated list of host[:port] (host names or IP addresses): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

function webhookConfig(env: Record<string, string | undefined>): ServerConfig["webhooks"] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE_MS?.trim();
  const eventRetentionMs = integer(env, "WEBHOOK_EVENT_RETENTION_DAYS", 30, 3, 3650) * 24 * 60 * 60 * 1000;
  if (!raw) return { privateHosts: privateHosts(env, "WEBHOOK_PRIVATE_HOSTS"), eventRetentionMs };
  let retryScheduleMs: readonly number[];
  try {
    retryScheduleMs = parseRetrySchedule(raw);
  } catch (error) {
    throw new ConfigError(
      "WEBHOOK_RETRY_SCHEDULE_MS",
      `must be a comma-separated list of delays in ms: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { privateHosts: privateHosts(env, "WEBHOOK_PRIVATE_HOSTS"), retryScheduleMs, eventRetentionMs };
}

/** The sender of outbox mail when MAIL_FROM is not set: a reserved domain that reaches no one. */
const OUTBOX_FROM = { name: "Mailpiece", address: "receipts@mailpiece.invalid" };

function emailConfig(env: Record<string, string | undefined>): ServerConfig["email"] {
  const raw = env.MAIL_FROM?.trim();
  const url = env.SMTP_URL?.trim();
  let from = OUTBOX_FROM as ServerConfig["email"]["from"];
  if (raw) {
    // `Name <address>` or a bare address.
    const match = /^(?:(.*?)\s*<([^<>\s]+)>|([^<>\s]+))$/.exec(raw);
    const address = match?.[2] ?? match?.[3];
    const name = match?.[1]?.replace(/^"|"$/g, "").trim();
    if (!address || !isValidEmailAddress(address) || (name !== undefined && /[\p{Cc}]/u.test(name))) {
      throw new ConfigError(
        "MAIL_FROM",
        "must be an email address, or a name and an address: Name <local@domain>",
      );
    }
    from = { ...(name ? { name } : {}), address };
  } else if (url) {
    throw new ConfigError("MAIL_FROM", "is required with SMTP_URL: the address receipts are sent from");
  }
  if (!url) return { from };
  try {
    // The adapter's own parser; its errors never carry the password.
    parseSmtpUrl(url);
  } catch (error) {
    throw new ConfigError("SMTP_URL", error instanceof Error ? error.message : "is not a valid SMTP URL");
  }
  const caFile = env.SMTP_CA_FILE?.trim();
  return { from, smtp: { url, ...(caFile ? { caFile: resolve(caFile) } : {}) } };
}

function ucpConfig(env: Record<string, string | undefined>): ServerConfig["ucp"] {
  const profileHosts = privateHosts(env, "UCP_PROFILE_HOSTS");
  const raw = env.UCP_SIGNING_KEY?.trim();
  if (!raw) return { profileHosts };
  let key: JsonWebKey;
  try {
    key = JSON.parse(raw) as JsonWebKey;
  } catch {
    throw new ConfigError("UCP_SIGNING_KEY", "must be a private JWK in JSON");
  }
  const ok =
    typeof key === "object" &&
    key !== null &&
    key.kty === "EC" &&
    key.crv === "P-256" &&
    [key.x, key.y, key.d].every((part) => typeof part === "string" && /^[A-Za-z0-9_-]{43}$/.test(part));
  if (!ok)
    throw new ConfigError("UCP_SIGNING_KEY", "must be a private EC P-256 JWK (kty EC, crv P-256, x, y, d)");
  return { profileHosts, signingKey: key };
}

/** BLOB_STORE: `store` (documents kept with the records, the default) or `s3` with its S3_* variables. */
function blobConfig(env: Record<string, string | undefined>): ServerConfig["blobs"] {
  const kind = env.BLOB_STORE?.trim() || "store";
  if (kind === "store") return { kind: "store" };
  if (kind !== "s3") throw new ConfigError("BLOB_STORE", `must be "store" or "s3", not "${kind}"`);
  const need = (name: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new ConfigError(name, "is required with BLOB_STORE=s3");
    return value;
  };
  const endpoint = env.S3_ENDPOINT?.trim() || undefined;
  if (endpoint !== undefined) {
    try {
      const url = new URL(endpoint);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http(s)");
    } catch {
      throw new ConfigError("S3_ENDPOINT", "must be an absolute http(s) URL");
    }
  }
  return {
    kind: "s3",
    s3: {
      bucket: need("S3_BUCKET"),
      region: env.S3_REGION?.trim() || "us-east-1",
      ...(endpoint ? { endpoint } : {}),
      accessKeyId: need("S3_ACCESS_KEY_ID"),
      secretAccessKey: need("S3_SECRET_ACCESS_KEY"),
      forcePathStyle: bool(env, "S3_FORCE_PATH_STYLE", endpoint !== undefined),
    },
  };
}

function checkoutPayments(env: Record<string, string | undefined>): ServerConfig["checkout"] {
  const provider = env.CHECKOUT_PAYMENTS?.trim().toLowerCase() || "test";
  if (provider === "test") return { provider: "test" };
  if (provider !== "stripe") throw new ConfigError("CHECKOUT_PAYMENTS", 'must be "test" or "stripe"');
  const secretKey = env.STRIPE_SECRET_KEY?.trim() ?? "";
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(secretKey)) {
    throw new ConfigError(
      "STRIPE_SECRET_KEY",
      "must be a Stripe secret or restricted key (sk_... or rk_...)",
    );
  }
  return { provider: "stripe", secretKey };
}

/** The development payee used with simulated x402 payments when X402_PAY_TO is not set. */
export const DEV_PAYEE = "0x000000000000000000000000000000000000dEaD";

function secret(env: Record<string, string | undefined>, name: string): string {
  const value = env[name]!.trim();
  if (Buffer.byteLength(value) < 32) throw new ConfigError(name, "must be at least 32 bytes");
  return value;
}

function pace(raw: string): ServerConfig["printPace"] {
  const parts = raw.split(",").map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length !== 3 || numbers.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new ConfigError(
      "SIMULATED_PRINT_PACE_MS",
      'must be three positive whole numbers of ms, e.g. "2000,10000,30000"',
    );
  }
  const [acceptAfterMs, inTransitAfterMs, deliverAfterMs] = numbers as [number, number, number];
  if (!(acceptAfterMs < inTransitAfterMs && inTransitAfterMs < deliverAfterMs)) {
    throw new ConfigError(
      "SIMULATED_PRINT_PACE_MS",
      "the three times must increase: accepted < in transit < delivered",
    );
  }
  return { acceptAfterMs, inTransitAfterMs, deliverAfterMs };
}

function list(raw: string): string[] {
  return raw
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

function bool(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (["1", "true", "yes"].includes(raw)) return true;
  if (["0", "false", "no"].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, not "${raw}"`);
}

function integer(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, not "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

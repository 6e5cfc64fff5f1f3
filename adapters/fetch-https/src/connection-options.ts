import { rootCertificates } from "node:tls";
import { parseHostAllowList, parsePrivateHostList } from "./allow-list.ts";
import type { HostPolicy } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import type { LookupFunction } from "./resolve-addresses.ts";
import { systemLookup } from "./resolve-addresses.ts";

/** Where a fetcher or a poster may connect, and how long one call may take: the options both share. */
export interface SafeConnectionOptions {
  /**
   * Exact host names, `*.example.com` for sub-domains only, `host:port` for a port other than 443 (see
   * `parseHostAllowList`; a malformed entry or an IP address is `invalid_host_entry`). Required unless
   * `anyPublicHost` is set; not both.
   */
  allowHosts?: readonly string[];
  /**
   * Reach any host name instead of an allowlist (a document another party publishes wherever it likes, such as a
   * platform profile; a receiver a customer names). Every other rule stands: https only, host names only, and
   * every address must be public.
   */
  anyPublicHost?: boolean;
  /**
   * For development and tests only: hosts (the `allowHosts` syntax, IP addresses allowed as well, e.g.
   * `localhost:8080` or `127.0.0.1:8080`) that are reached over http as well as https and at any address, private
   * and loopback ones included. An entry without a port admits the scheme's default port. See
   * `parsePrivateHostList`.
   */
  privateHosts?: readonly string[];
  /** Total time for one call: resolving, connecting and the exchange, in milliseconds. */
  timeoutMs: number;
  /** Default false. Skips the public-address check; ONLY for tests against a local server. */
  allowPrivateAddresses?: boolean;
  /** Resolver; default the system's. Tests inject one to map names to a local server. */
  lookup?: LookupFunction;
  /** Extra trusted certificate authority (tests with a self-signed server); the system roots stay trusted. */
  tls?: { ca?: string | Buffer };
}

/** The connection options, checked once. */
export interface ConnectionSettings {
  policy: HostPolicy;
  lookup: LookupFunction;
  allowPrivateAddresses: boolean;
  /** The trusted roots with the extra authority, or undefined for the system's alone. */
  ca: (string | Buffer)[] | undefined;
  timeoutMs: number;
}

/** The longest timer Node accepts, in milliseconds. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Checks the shared options (`invalid_options`, and `invalid_host_entry` for an entry of a host list). */
export function connectionSettings(options: SafeConnectionOptions): ConnectionSettings {
  const { timeoutMs } = options;
  if (!validTimeout(timeoutMs)) {
    throw new FetchError("invalid_options", `timeoutMs must be a number above 0 and at most ${MAX_TIMER_MS}`);
  }
  if (options.lookup !== undefined && typeof options.lookup !== "function") {
    throw new FetchError("invalid_options", "lookup must be a function");
  }
  const extraCa = options.tls?.ca;
  return {
    policy: hostPolicy(options),
    lookup: options.lookup ?? systemLookup,
    allowPrivateAddresses: options.allowPrivateAddresses === true,
    ca: extraCa === undefined ? undefined : [...rootCertificates, extraCa],
    timeoutMs,
  };
}

/** True for a time limit a timer can hold: above 0 and at most MAX_TIMER_MS. */
export function validTimeout(timeoutMs: unknown): timeoutMs is number {
  return typeof timeoutMs === "number" && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS;
}

/**
 * Runs `work` with a signal that aborts with a `timeout` FetchError (this message, this url) after `timeoutMs`;
 * the timer is cleared however the work ends.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  timeout: { message: string; url: string },
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new FetchError("timeout", timeout.message, { url: timeout.url })),
    timeoutMs,
  );
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** The hosts a fetcher reaches, from its options: an allowlist or any host name, and the private hosts. */
function hostPolicy(options: SafeConnectionOptions): HostPolicy {
  if (options.anyPublicHost !== undefined && typeof options.anyPublicHost !== "boolean") {
    throw new FetchError("invalid_options", "anyPublicHost must be a boolean");
  }
  const anyHost = options.anyPublicHost === true;
  if (anyHost && options.allowHosts !== undefined) {
    throw new FetchError("invalid_options", "give allowHosts or anyPublicHost, not both");
  }
  if (!anyHost && options.allowHosts === undefined) {
    throw new FetchError(
      "invalid_options",
      "allowHosts must be an array of host names (or set anyPublicHost)",
    );
  }
  const allow = anyHost ? "any" : parseHostAllowList(options.allowHosts ?? []);
  return options.privateHosts === undefined
    ? { allow }
    : { allow, privateHosts: parsePrivateHostList(options.privateHosts) };
}

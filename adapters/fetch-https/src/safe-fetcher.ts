import { createHash } from "node:crypto";
import { rootCertificates } from "node:tls";
import { parseHostAllowList, parsePrivateHostList } from "./allow-list.ts";
import { connectTarget } from "./connect.ts";
import type { DocumentTarget, HostPolicy } from "./document-url.ts";
import { checkDocumentUrl } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import { REQUEST_HEADERS, requestDocument } from "./request-document.ts";
import type { LookupFunction } from "./resolve-addresses.ts";
import { resolveAddresses, systemLookup } from "./resolve-addresses.ts";

export interface SafeFetchOptions {
  /**
   * Exact host names, `*.example.com` for sub-domains only, `host:port` for a port other than 443 (see
   * `parseHostAllowList`; a malformed entry or an IP address is `invalid_host_entry`). Required unless
   * `anyPublicHost` is set; not both.
   */
  allowHosts?: readonly string[];
  /**
   * Fetch from any host name instead of an allowlist (a document another party publishes wherever it likes, such
   * as a platform profile). Every other rule stands: https only, host names only, and every hop's addresses must be
   * public.
   */
  anyPublicHost?: boolean;
  /**
   * For development and tests only: hosts (the `allowHosts` syntax, IP addresses allowed as well, e.g.
   * `localhost:8080` or `127.0.0.1:8080`) that are reached over http as well as https and at any address, private
   * and loopback ones included. An entry without a port admits the scheme's default port. See
   * `parsePrivateHostList`.
   */
  privateHosts?: readonly string[];
  /** The Accept header of every request; default `application/pdf`. */
  accept?: string;
  /** Largest body accepted, in bytes: checked on `Content-Length` up front and while streaming. */
  maxBytes: number;
  /** Total time for one `fetch`: resolving, connecting, headers and body of every hop, in milliseconds. */
  timeoutMs: number;
  /** Redirects followed at most; default 3. Every target must pass the same checks as the original URL. */
  maxRedirects?: number;
  /** Default false. Skips the public-address check; ONLY for tests against a local server. */
  allowPrivateAddresses?: boolean;
  /** Resolver; default the system's. Tests inject one to map names to a local server. */
  lookup?: LookupFunction;
  /** Extra trusted certificate authority (tests with a self-signed server); the system roots stay trusted. */
  tls?: { ca?: string | Buffer };
}

/** A fetched document. */
export interface FetchedDocument {
  /** The requested URL, as parsed (WHATWG `href`). */
  url: string;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
  bytes: Uint8Array;
  /** The `Content-Type` header as sent, or null; not checked here. */
  contentType: string | null;
  /** SHA-256 of `bytes`, lower-case hex. */
  sha256: string;
}

export interface SafeFetcher {
  /** Fetches one user-supplied document URL under the fetcher's rules; refusals are `FetchError`s. */
  fetch(url: string): Promise<FetchedDocument>;
}

const DEFAULT_MAX_REDIRECTS = 3;
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A fetcher for user-supplied document URLs: https only, allowlisted hosts and ports (or any host name with
 * `anyPublicHost`), no credentials in the URL, public addresses only (resolved once per hop, and the connection goes
 * to exactly that address), no cookies or authorization sent, a size cap and a total time limit. `privateHosts`
 * admits named development hosts over http and at private addresses. Options are checked here (`invalid_options`,
 * and `invalid_host_entry` for an entry of `allowHosts` or `privateHosts`).
 */
export function createSafeFetcher(options: SafeFetchOptions): SafeFetcher {
  const { maxBytes, timeoutMs } = options;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new FetchError("invalid_options", "maxBytes must be a positive integer");
  }
  if (typeof timeoutMs !== "number" || !(timeoutMs > 0) || timeoutMs > MAX_TIMER_MS) {
    throw new FetchError("invalid_options", `timeoutMs must be a number above 0 and at most ${MAX_TIMER_MS}`);
  }
  if (!Number.isSafeInteger(maxRedirects) || maxRedirects < 0) {
    throw new FetchError("invalid_options", "maxRedirects must be an integer of 0 or more");
  }
  if (options.lookup !== undefined && typeof options.lookup !== "function") {
    throw new FetchError("invalid_options", "lookup must be a function");
  }
  const policy = hostPolicy(options);
  const accept = options.accept ?? REQUEST_HEADERS.accept ?? "application/pdf";
  if (typeof accept !== "string" || !/^[\x21-\x7e][\x20-\x7e]{0,255}$/.test(accept)) {
    throw new FetchError("invalid_options", "accept must be a header value of 1 to 256 printable characters");
  }
  const allowPrivateAddresses = options.allowPrivateAddresses === true;
  const lookup = options.lookup ?? systemLookup;
  const extraCa = options.tls?.ca;
  const ca = extraCa === undefined ? undefined : [...rootCertificates, extraCa];

  return {
    async fetch(url) {
      const first = checkDocumentUrl(url, policy);
      const controller = new AbortController();
      const timer = setTimeout(
        () =>
          controller.abort(
            new FetchError("timeout", `no document within ${timeoutMs} ms`, { url: first.url.href }),
          ),
        timeoutMs,
      );
      const signal = controller.signal;
      try {
        let target = first;
        for (let redirects = 0; ; redirects++) {
          const addresses = await resolveAddresses(target, lookup, allowPrivateAddresses, signal);
          const socket = await connectTarget(addresses, target, ca, signal);
          const outcome = await requestDocument(socket, target, { maxBytes, accept }, signal);
          if (outcome.kind === "document") {
            return {
              url: first.url.href,
              finalUrl: target.url.href,
              bytes: outcome.bytes,
              contentType: outcome.contentType,
              sha256: createHash("sha256").update(outcome.bytes).digest("hex"),
            };
          }
          if (redirects >= maxRedirects) {
            throw new FetchError("too_many_redirects", `more than ${maxRedirects} redirects`, {
              url: first.url.href,
            });
          }
          target = redirectTarget(outcome.location, target);
        }
      } finally {
        clearTimeout(timer);
      }
    },
  };

  function redirectTarget(location: string, from: DocumentTarget): DocumentTarget {
    let next: URL;
    try {
      next = new URL(location, from.url);
    } catch (cause) {
      throw new FetchError("redirect_not_allowed", "the redirect's Location does not parse", {
        url: from.url.href,
        cause,
      });
    }
    try {
      return checkDocumentUrl(next, policy);
    } catch (error) {
      if (!FetchError.isInstance(error)) throw error;
      throw new FetchError("redirect_not_allowed", `redirect refused: ${error.message}`, {
        ...(error.url === undefined ? {} : { url: error.url }),
        cause: error,
      });
    }
  }
}

/** The hosts a fetcher reaches, from its options: an allowlist or any host name, and the private hosts. */
function hostPolicy(options: SafeFetchOptions): HostPolicy {
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

import { createHash } from "node:crypto";
import { rootCertificates } from "node:tls";
import { parseHostAllowList } from "./allow-list.ts";
import { connectTls } from "./connect-tls.ts";
import type { DocumentTarget } from "./document-url.ts";
import { checkDocumentUrl } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import { requestDocument } from "./request-document.ts";
import type { LookupFunction } from "./resolve-addresses.ts";
import { resolveAddresses, systemLookup } from "./resolve-addresses.ts";

export interface SafeFetchOptions {
  /**
   * Exact host names, `*.example.com` for sub-domains only, `host:port` for a port other than 443 (see
   * `parseHostAllowList`; a malformed entry or an IP address is `invalid_host_entry`).
   */
  allowHosts: readonly string[];
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
 * A fetcher for user-supplied document URLs: https only, allowlisted hosts and ports, no credentials in the URL,
 * public addresses only (resolved once per hop, and the connection goes to exactly that address), no cookies or
 * authorization sent, a size cap and a total time limit. Options are checked here (`invalid_options`, and
 * `invalid_host_entry` for an entry of `allowHosts`).
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
  const allowList = parseHostAllowList(options.allowHosts);
  const allowPrivateAddresses = options.allowPrivateAddresses === true;
  const lookup = options.lookup ?? systemLookup;
  const extraCa = options.tls?.ca;
  const ca = extraCa === undefined ? undefined : [...rootCertificates, extraCa];

  return {
    async fetch(url) {
      const first = checkDocumentUrl(url, allowList);
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
          const socket = await connectTls(addresses, target, ca, signal);
          const outcome = await requestDocument(socket, target, maxBytes, signal);
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
      return checkDocumentUrl(next, allowList);
    } catch (error) {
      if (!FetchError.isInstance(error)) throw error;
      throw new FetchError("redirect_not_allowed", `redirect refused: ${error.message}`, {
        ...(error.url === undefined ? {} : { url: error.url }),
        cause: error,
      });
    }
  }
}

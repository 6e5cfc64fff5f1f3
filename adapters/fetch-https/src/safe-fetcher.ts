import { createHash } from "node:crypto";
import { connectTarget } from "./connect.ts";
import { connectionSettings, type SafeConnectionOptions, withDeadline } from "./connection-options.ts";
import type { DocumentTarget } from "./document-url.ts";
import { checkDocumentUrl } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import { REQUEST_HEADERS, requestDocument } from "./request-document.ts";
import { resolveAddresses } from "./resolve-addresses.ts";

export interface SafeFetchOptions extends SafeConnectionOptions {
  /** The Accept header of every request; default `application/pdf`. */
  accept?: string;
  /** Largest body accepted, in bytes: checked on `Content-Length` up front and while streaming. */
  maxBytes: number;
  /** Total time for one `fetch`: resolving, connecting, headers and body of every hop, in milliseconds. */
  timeoutMs: number;
  /** Redirects followed at most; default 3. Every target must pass the same checks as the original URL. */
  maxRedirects?: number;
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

/**
 * A fetcher for user-supplied document URLs: https only, allowlisted hosts and ports (or any host name with
 * `anyPublicHost`), no credentials in the URL, public addresses only (resolved once per hop, and the connection goes
 * to exactly that address), no cookies or authorization sent, a size cap and a total time limit. `privateHosts`
 * admits named development hosts over http and at private addresses. Options are checked here (`invalid_options`,
 * and `invalid_host_entry` for an entry of `allowHosts` or `privateHosts`).
 */
export function createSafeFetcher(options: SafeFetchOptions): SafeFetcher {
  const { maxBytes } = options;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new FetchError("invalid_options", "maxBytes must be a positive integer");
  }
  const settings = connectionSettings(options);
  const { policy, lookup, allowPrivateAddresses, ca, timeoutMs } = settings;
  if (!Number.isSafeInteger(maxRedirects) || maxRedirects < 0) {
    throw new FetchError("invalid_options", "maxRedirects must be an integer of 0 or more");
  }
  const accept = options.accept ?? REQUEST_HEADERS.accept ?? "application/pdf";
  if (typeof accept !== "string" || !/^[\x21-\x7e][\x20-\x7e]{0,255}$/.test(accept)) {
    throw new FetchError("invalid_options", "accept must be a header value of 1 to 256 printable characters");
  }

  return {
    async fetch(url) {
      const first = checkDocumentUrl(url, policy);
      const timeout = { message: `no document within ${timeoutMs} ms`, url: first.url.href };
      return withDeadline(timeoutMs, timeout, async (signal) => {
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
      });
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

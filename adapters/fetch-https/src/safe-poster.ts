import { connectTarget } from "./connect.ts";
import {
  connectionSettings,
  type SafeConnectionOptions,
  validTimeout,
  withDeadline,
} from "./connection-options.ts";
import { checkDocumentUrl } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import { type PostAnswer, requestPost } from "./post-request.ts";
import { resolveAddresses } from "./resolve-addresses.ts";

export interface SafePostOptions extends SafeConnectionOptions {
  /** Bytes of an answer's body read at most, then the connection is closed; default 64 KiB. */
  maxResponseBytes?: number;
  /** Largest request body sent, in bytes; default 1 MiB (`invalid_request` above it). */
  maxBodyBytes?: number;
}

/** One POST: the body, as sent, and the caller's headers (`content-type`, signatures). */
export interface PostRequest {
  body: string | Uint8Array;
  headers?: Readonly<Record<string, string>>;
  /** This call's time limit, in milliseconds, instead of the poster's `timeoutMs`. */
  timeoutMs?: number;
}

/** What a POST got back, with the URL as parsed. */
export interface PostResult extends PostAnswer {
  url: string;
}

export interface SafePoster {
  /**
   * POSTs to a user-supplied URL under the poster's rules and answers the status, whatever it is (a redirect is
   * returned, not followed). Refusals and failures before a status arrives are `FetchError`s.
   */
  post(url: string, request: PostRequest): Promise<PostResult>;
  /**
   * Checks a URL as `post` would, without connecting: the URL and host rules, then one resolution and the
   * public-address rule. Resolves when a POST could be sent; refusals are `FetchError`s.
   */
  check(url: string): Promise<void>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const MAX_HEADERS = 32;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const HEADER_VALUE = /^[\x20-\x7e]{0,8192}$/;
/** Headers the poster sets itself, connection-level headers, and credentials: never taken from the caller. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "accept-encoding",
  "cookie",
  "authorization",
  "proxy-authorization",
  "proxy-connection",
]);
/** What every POST sends besides the caller's headers. */
const POST_HEADERS: Readonly<Record<string, string>> = {
  "accept-encoding": "identity",
  "user-agent": "Mailpiece-Webhooks/0.1",
  connection: "close",
};

/**
 * A poster for user-supplied URLs (webhook receivers): the fetcher's address rules, all of them (https only, the
 * allowlist or any host name, no credentials in the URL, public addresses only, resolved once and connected to
 * exactly, certificates verified, `privateHosts` for development), plus no redirect followed, a cap on the answer
 * read, and a total time limit. Options are checked here (`invalid_options`, `invalid_host_entry`).
 */
export function createSafePoster(options: SafePostOptions): SafePoster {
  const settings = connectionSettings(options);
  const { policy, lookup, allowPrivateAddresses, ca } = settings;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  for (const [name, value] of [
    ["maxResponseBytes", maxResponseBytes],
    ["maxBodyBytes", maxBodyBytes],
  ] as const) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new FetchError("invalid_options", `${name} must be a positive integer`);
    }
  }

  return {
    async post(url, request) {
      const target = checkDocumentUrl(url, policy);
      const body = bodyOf(request.body, maxBodyBytes);
      const headers = headersOf(request.headers ?? {}, body.length);
      const timeoutMs = request.timeoutMs ?? settings.timeoutMs;
      if (!validTimeout(timeoutMs)) {
        throw new FetchError("invalid_request", "timeoutMs must be a number above 0 and at most 2147483647");
      }
      const timeout = { message: `no answer within ${timeoutMs} ms`, url: target.url.href };
      return withDeadline(timeoutMs, timeout, async (signal) => {
        const addresses = await resolveAddresses(target, lookup, allowPrivateAddresses, signal);
        const socket = await connectTarget(addresses, target, ca, signal);
        const answer = await requestPost(socket, target, { headers, body, maxResponseBytes }, signal);
        return { url: target.url.href, ...answer };
      });
    },
    async check(url) {
      const target = checkDocumentUrl(url, policy);
      const timeout = {
        message: `${target.hostname} did not resolve within ${settings.timeoutMs} ms`,
        url: target.url.href,
      };
      await withDeadline(settings.timeoutMs, timeout, (signal) =>
        resolveAddresses(target, lookup, allowPrivateAddresses, signal),
      );
    },
  };
}

function bodyOf(body: unknown, maxBodyBytes: number): Buffer {
  let bytes: Buffer;
  if (typeof body === "string") bytes = Buffer.from(body, "utf8");
  else if (body instanceof Uint8Array) bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  else throw new FetchError("invalid_request", "the body must be a string or bytes");
  if (bytes.length > maxBodyBytes) {
    throw new FetchError("invalid_request", `the body is ${bytes.length} bytes, more than ${maxBodyBytes}`);
  }
  return bytes;
}

/** The caller's headers, checked, lower-cased, with the poster's own; a bad name or value is `invalid_request`. */
function headersOf(given: Readonly<Record<string, string>>, length: number): Record<string, string> {
  if (typeof given !== "object" || given === null) {
    throw new FetchError("invalid_request", "headers must be an object of names and values");
  }
  const entries = Object.entries(given);
  if (entries.length > MAX_HEADERS) throw new FetchError("invalid_request", `at most ${MAX_HEADERS} headers`);
  const headers: Record<string, string> = { ...POST_HEADERS };
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) throw new FetchError("invalid_request", "a header name is not an HTTP token");
    if (RESERVED_HEADERS.has(lower) || lower.startsWith("proxy-")) {
      throw new FetchError(
        "invalid_request",
        `the ${lower} header is set by the poster, never by the caller`,
      );
    }
    if (typeof value !== "string" || !HEADER_VALUE.test(value)) {
      throw new FetchError("invalid_request", `the ${lower} header is not one line of printable characters`);
    }
    headers[lower] = value;
  }
  headers["content-length"] = String(length);
  return headers;
}

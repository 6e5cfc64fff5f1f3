import { defineError } from "@mailpiece/errors";

/**
 * Stable error codes of the safe document fetcher and poster. Apps map them to HTTP in one place.
 * - `url_invalid`: the URL does not parse, is too long, or carries credentials (`user:pass@`).
 * - `url_not_https`: the URL's scheme is not `https:`.
 * - `host_not_allowed`: the host (and port) is not on the allowlist.
 * - `address_not_public`: the host resolves to an address that is not publicly routable (loopback, private,
 *   link-local, shared, unique-local, multicast, documentation, reserved...). Nothing was connected to.
 * - `redirect_not_allowed`: a redirect points to a URL that would be refused as the original URL (not https,
 *   host or port not allowed, credentials), or its `Location` does not parse.
 * - `too_many_redirects`: more redirects than `maxRedirects`.
 * - `too_large`: the declared `Content-Length` or the bytes received exceed `maxBytes`.
 * - `timeout`: the whole fetch (resolve, connect, headers, body, redirects) took longer than `timeoutMs`.
 * - `http_status`: the final answer is not a 2xx; `status` carries it.
 * - `connection_failed`: the host name does not resolve, no address accepts the connection, TLS fails (untrusted
 *   or mismatched certificate), or the connection breaks before the body is complete.
 * - `invalid_host_entry`: an entry of the host allowlist is not a host name, `*.domain` or either with `:port`
 *   (operator configuration); `entry` carries the entry.
 * - `invalid_options`: the fetcher's or poster's own options are malformed (operator configuration).
 * - `invalid_request`: a POST's body or headers cannot be sent (not a string or bytes, too large, a header that
 *   is not one printable line, or one the poster sets itself such as `host`, `content-length` or `cookie`).
 */
export type FetchErrorCode =
  | "url_invalid"
  | "url_not_https"
  | "host_not_allowed"
  | "address_not_public"
  | "redirect_not_allowed"
  | "too_many_redirects"
  | "too_large"
  | "timeout"
  | "http_status"
  | "connection_failed"
  | "invalid_host_entry"
  | "invalid_options"
  | "invalid_request";

const BaseFetchError = defineError<FetchErrorCode>("FetchError");

/**
 * The one error class of the fetch-https package. `code` is a stable wire contract; `message` is for people.
 * `status` is the HTTP status for `http_status`; `url` is the URL at fault where there is one (the redirect target
 * for `redirect_not_allowed`); `entry` is the allowlist entry at fault for `invalid_host_entry`.
 */
export class FetchError extends BaseFetchError {
  readonly status: number | undefined;
  readonly url: string | undefined;
  readonly entry: string | undefined;

  constructor(
    code: FetchErrorCode,
    message: string,
    options: { status?: number; url?: string; entry?: string; cause?: unknown } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.status = options.status;
    this.url = options.url;
    this.entry = options.entry;
  }

  /** True for any FetchError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is FetchError {
    return BaseFetchError.isInstance(value);
  }
}

import type { AllowList, PrivateHostList } from "./allow-list.ts";
import { isIpLiteral, normaliseHostname } from "./allow-list.ts";
import { FetchError } from "./errors.ts";

/** Longest document URL accepted, in characters. */
export const MAX_URL_LENGTH = 8192;

/** A URL that passed the checks, with what the connection needs. */
export interface DocumentTarget {
  readonly url: URL;
  /**
   * Host name without a trailing dot, used for SNI, `Host` and DNS. An IP address (URL form, IPv6 in brackets)
   * only for a host admitted by `privateHosts`.
   */
  readonly hostname: string;
  readonly port: number;
  /** https (TLS, certificates verified); plain http only for a host admitted by `privateHosts`. */
  readonly secure: boolean;
  /** Admitted by `privateHosts`: http allowed, and any address, private and loopback ones included. */
  readonly private: boolean;
}

/** Which hosts a fetcher reaches: the allowlist (or any host name), and the hosts admitted for development. */
export interface HostPolicy {
  /** Hosts and ports fetched over https, or "any" for every host name (the public-address rule still applies). */
  readonly allow: AllowList | "any";
  /** Hosts admitted over http as well as https and at any address, for development and tests. */
  readonly privateHosts?: PrivateHostList;
}

/**
 * Checks a document URL before anything is resolved or connected: it must parse (`url_invalid`), be `https:`
 * (`url_not_https`), carry no credentials (`url_invalid`) and name an allowed host and port (`host_not_allowed`,
 * always for an IP-address host). A host admitted by the policy's `privateHosts` may also be reached over `http:`
 * and may be an IP address.
 */
export function checkDocumentUrl(input: string | URL, hosts: AllowList | HostPolicy): DocumentTarget {
  const policy: HostPolicy = "allows" in hosts ? { allow: hosts } : hosts;
  let url: URL;
  if (input instanceof URL) {
    url = input;
  } else {
    if (typeof input !== "string" || input.length > MAX_URL_LENGTH) {
      throw new FetchError("url_invalid", `the URL must be a string of at most ${MAX_URL_LENGTH} characters`);
    }
    try {
      url = new URL(input);
    } catch (cause) {
      throw new FetchError("url_invalid", "the URL does not parse", { cause });
    }
  }
  const notHttps = () =>
    new FetchError("url_not_https", `only https URLs are fetched, not ${url.protocol}`, { url: url.href });
  const secure = url.protocol === "https:";
  if (!secure && (url.protocol !== "http:" || policy.privateHosts === undefined)) throw notHttps();
  if (url.username !== "" || url.password !== "") {
    throw new FetchError("url_invalid", "the URL must not carry credentials", { url: redact(url) });
  }
  const hostname = normaliseHostname(url.hostname);
  const port = url.port === "" ? (secure ? 443 : 80) : Number(url.port);
  const admitted =
    hostname !== "" && (policy.privateHosts?.allows(hostname, port, secure ? "https" : "http") ?? false);
  if (!admitted) {
    if (!secure) throw notHttps();
    if (isIpLiteral(hostname)) {
      throw new FetchError("host_not_allowed", "documents are fetched from host names, not IP addresses", {
        url: url.href,
      });
    }
    if (hostname === "" || (policy.allow !== "any" && !policy.allow.allows(hostname, port))) {
      throw new FetchError(
        "host_not_allowed",
        `${hostname}${port === 443 ? "" : `:${port}`} is not an allowed host`,
        { url: url.href },
      );
    }
  }
  return { url, hostname, port, secure, private: admitted };
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

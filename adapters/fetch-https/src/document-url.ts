import type { AllowList } from "./allow-list.ts";
import { isIpLiteral, normaliseHostname } from "./allow-list.ts";
import { FetchError } from "./errors.ts";

/** Longest document URL accepted, in characters. */
export const MAX_URL_LENGTH = 8192;

/** A URL that passed the checks, with what the connection needs. */
export interface DocumentTarget {
  readonly url: URL;
  /** Host name (never an IP address) without a trailing dot. Used for SNI, `Host` and DNS. */
  readonly hostname: string;
  readonly port: number;
}

/**
 * Checks a document URL before anything is resolved or connected: it must parse (`url_invalid`), be `https:`
 * (`url_not_https`), carry no credentials (`url_invalid`) and name an allowed host and port (`host_not_allowed`,
 * always for an IP-address host).
 */
export function checkDocumentUrl(input: string | URL, allowList: AllowList): DocumentTarget {
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
  if (url.protocol !== "https:") {
    throw new FetchError("url_not_https", `only https URLs are fetched, not ${url.protocol}`, {
      url: url.href,
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw new FetchError("url_invalid", "the URL must not carry credentials", { url: redact(url) });
  }
  const hostname = normaliseHostname(url.hostname);
  const port = url.port === "" ? 443 : Number(url.port);
  if (isIpLiteral(hostname)) {
    throw new FetchError("host_not_allowed", "documents are fetched from host names, not IP addresses", {
      url: url.href,
    });
  }
  if (hostname === "" || !allowList.allows(hostname, port)) {
    throw new FetchError(
      "host_not_allowed",
      `${hostname}${port === 443 ? "" : `:${port}`} is not an allowed host`,
      {
        url: url.href,
      },
    );
  }
  return { url, hostname, port };
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

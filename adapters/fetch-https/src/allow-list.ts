import { isIPv4 } from "node:net";
import { FetchError } from "./errors.ts";

/**
 * The hosts documents may be fetched from. Built once from the operator's entries:
 * - `files.example.com`: exactly that host, port 443;
 * - `*.example.com`: any sub-domain of example.com at any depth (not example.com itself), port 443;
 * - `files.example.com:8443`, `*.example.com:8443`: the same on that port only.
 * Entries are normalised like URL hosts (lower case, punycode, one trailing dot dropped). IP literals may be listed
 * exactly (`203.0.113.7`, `[2001:db8::1]`) but never match a wildcard.
 */
export interface AllowList {
  allows(hostname: string, port: number): boolean;
}

interface Entry {
  readonly host: string;
  readonly wildcard: boolean;
  readonly port: number;
}

export function createAllowList(entries: readonly string[]): AllowList {
  if (!Array.isArray(entries))
    throw new FetchError("invalid_options", "allowHosts must be an array of host names");
  const parsed = entries.map(parseEntry);
  return {
    allows(hostname, port) {
      const host = normaliseHostname(hostname);
      return parsed.some((entry) => {
        if (entry.port !== port) return false;
        if (!entry.wildcard) return entry.host === host;
        return !isIpLiteral(host) && host.endsWith(`.${entry.host}`);
      });
    },
  };
}

/** Lower-cased by the URL parser already; drops one trailing dot so `example.com.` and `example.com` agree. */
export function normaliseHostname(hostname: string): string {
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

/** True for `203.0.113.7` and `[2001:db8::1]` (URL host form). */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || isIPv4(hostname);
}

function parseEntry(entry: unknown): Entry {
  const invalid = () =>
    new FetchError("invalid_options", `allowHosts entry ${JSON.stringify(entry)} is not a host or host:port`);
  if (typeof entry !== "string" || entry === "" || /[\s/\\@?#]/.test(entry)) throw invalid();
  const wildcard = entry.startsWith("*.");
  const rest = wildcard ? entry.slice(2) : entry;
  if (rest.includes("*")) throw invalid();
  let url: URL;
  try {
    url = new URL(`https://${rest}/`);
  } catch {
    throw invalid();
  }
  const host = normaliseHostname(url.hostname);
  if (host === "" || (wildcard && isIpLiteral(host))) throw invalid();
  return { host, wildcard, port: url.port === "" ? 443 : Number(url.port) };
}

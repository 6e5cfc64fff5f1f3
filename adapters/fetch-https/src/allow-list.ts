import { isIP } from "node:net";
import { domainToASCII } from "node:url";
import { FetchError } from "./errors.ts";

/**
 * The hosts documents may be fetched from, built once from the operator's entries by `parseHostAllowList`.
 */
export interface AllowList {
  /** The entries in canonical form: lower-case ASCII (punycode), no trailing dot, `:port` unless 443. */
  readonly entries: readonly string[];
  /** True when a URL with this host (as `URL.hostname` gives it) and port may be fetched. */
  allows(hostname: string, port: number): boolean;
}

/**
 * Hosts admitted for development and tests only (`privateHosts` of the fetcher): named hosts, or IP addresses,
 * reached over http as well as https and at any address, private and loopback ones included.
 */
export interface PrivateHostList {
  /** The entries in canonical form: lower-case ASCII, IPv6 in brackets, `:port` when one was given. */
  readonly entries: readonly string[];
  /**
   * True when a URL with this host (as `URL.hostname` gives it), port and scheme is admitted. An entry without a
   * port admits the scheme's default port (443 for https, 80 for http).
   */
  allows(hostname: string, port: number, scheme: "http" | "https"): boolean;
}

interface Entry {
  readonly host: string;
  readonly wildcard: boolean;
  /** Absent when the entry names no port. */
  readonly port: number | undefined;
}

const EXAMPLES = "files.example.com, *.example.com or files.example.com:8443";
const MAX_NAME_LENGTH = 253;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const NOT_IN_A_HOST = /[\s%/\\@?#:[\]]/;

/**
 * Parses the operator's list of document hosts. Each entry is one of:
 * - `files.example.com`: exactly that host, on port 443;
 * - `*.example.com`: any sub-domain of example.com at any depth (`a.example.com`, `a.b.example.com`), never
 *   example.com itself (list it as well to allow it), on port 443; the domain needs at least two labels;
 * - `files.example.com:8443` or `*.example.com:8443`: the same on that port only (443 is then not allowed unless
 *   listed too).
 * Names are lower-cased and IDNA-normalised (`Bücher.example` is `xn--bcher-kva.example`); one trailing dot is
 * dropped. IP addresses (`203.0.113.7`, `[2001:db8::1]:8443`, and forms the URL parser reads as one such as
 * `127.1`) are refused: documents come from named hosts only. Anything else is refused too. Every refusal is a
 * `FetchError` with code `invalid_host_entry`, `entry` set to the entry, and a message that names it.
 */
export function parseHostAllowList(entries: readonly string[]): AllowList {
  if (!Array.isArray(entries)) {
    throw new FetchError("invalid_options", "allowHosts must be an array of host names");
  }
  const parsed = entries.map((entry) => {
    const { port, ...rest } = parseHostEntry(entry, false);
    return { ...rest, port: port ?? 443 };
  });
  return {
    entries: parsed.map((entry) =>
      canonicalEntry({ ...entry, port: entry.port === 443 ? undefined : entry.port }),
    ),
    allows(hostname, port) {
      if (typeof hostname !== "string" || isIpLiteral(hostname)) return false;
      const host = normaliseHostname(domainToASCII(hostname));
      if (host === "") return false;
      return parsed.some((entry) => entry.port === port && matchesHost(entry, host));
    },
  };
}

/**
 * Parses the hosts admitted for development and tests (the fetcher's `privateHosts`): the entries of
 * `parseHostAllowList`, and IP addresses as well (`127.0.0.1:8080`, `[::1]:8080`), since development servers are
 * often reached by address. An entry without a port admits the scheme's default port. A refusal is a `FetchError`
 * with code `invalid_host_entry` and `entry` set, as for the allowlist.
 */
export function parsePrivateHostList(entries: readonly string[]): PrivateHostList {
  if (!Array.isArray(entries)) {
    throw new FetchError("invalid_options", "privateHosts must be an array of host names or addresses");
  }
  const parsed = entries.map((entry) => parseHostEntry(entry, true));
  return {
    entries: parsed.map(canonicalEntry),
    allows(hostname, port, scheme) {
      if (typeof hostname !== "string") return false;
      const host = isIpLiteral(hostname)
        ? hostname.toLowerCase()
        : normaliseHostname(domainToASCII(hostname));
      if (host === "") return false;
      const standard = scheme === "https" ? 443 : 80;
      return parsed.some((entry) => (entry.port ?? standard) === port && matchesHost(entry, host));
    },
  };
}

function canonicalEntry(entry: Entry): string {
  return `${entry.wildcard ? "*." : ""}${entry.host}${entry.port === undefined ? "" : `:${entry.port}`}`;
}

function matchesHost(entry: Entry, host: string): boolean {
  return entry.wildcard ? host.endsWith(`.${entry.host}`) : entry.host === host;
}

/** Drops one trailing dot so `example.com.` and `example.com` agree (URL hosts are lower case already). */
export function normaliseHostname(hostname: string): string {
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

/** True for `203.0.113.7` and `[2001:db8::1]` (URL host form). */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || isIP(hostname) !== 0;
}

/** One entry; `ipAddresses` admits IP addresses (URL host form: `127.0.0.1`, `[::1]`) besides host names. */
function parseHostEntry(entry: unknown, ipAddresses: boolean): Entry {
  const refuse = (reason: string) =>
    new FetchError("invalid_host_entry", `host entry ${JSON.stringify(entry)} ${reason}`, {
      entry: String(entry),
    });
  if (typeof entry !== "string") throw refuse(`is not a string; list host names such as ${EXAMPLES}`);
  const text = entry.trim();
  if (text === "") throw refuse(`is empty; list host names such as ${EXAMPLES}`);
  const ipRefusal = () =>
    refuse(`is an IP address; documents are fetched from host names only, such as ${EXAMPLES}`);

  const { name, portText } = splitPort(text);
  let port: number | undefined;
  if (portText !== undefined) {
    port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : 0;
    if (port < 1 || port > 65_535) throw refuse("has a port that is not a number from 1 to 65535");
  }
  if (name.startsWith("[") || isIP(name) !== 0 || isIP(text) !== 0) {
    if (!ipAddresses) throw ipRefusal();
    const address = name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
    if (isIP(address) === 0)
      throw refuse(`is not a host name or an IP address; list hosts such as ${EXAMPLES}`);
    return {
      host: isIP(address) === 6 ? new URL(`http://[${address}]`).hostname : address,
      wildcard: false,
      port,
    };
  }
  const wildcard = name.startsWith("*.");
  const domain = wildcard ? name.slice(2) : name;
  if (domain.includes("*")) {
    throw refuse("has a * that is not a whole first label; a wildcard entry looks like *.example.com");
  }
  if (NOT_IN_A_HOST.test(domain)) {
    throw refuse(`is not a host name; list host names such as ${EXAMPLES} (no scheme, path or user)`);
  }
  // The URL host parser: IDNA, lower case, and IPv4 in every form it accepts (`127.1` is 127.0.0.1); "" if invalid.
  const host = normaliseHostname(domainToASCII(domain));
  if (isIpLiteral(host)) {
    if (!ipAddresses || wildcard) throw ipRefusal();
    return { host, wildcard: false, port };
  }
  const labels = host.split(".");
  if (host === "" || host.length > MAX_NAME_LENGTH || !labels.every((label) => LABEL.test(label))) {
    throw refuse(`is not a host name; list host names such as ${EXAMPLES}`);
  }
  if (wildcard && labels.length < 2) {
    throw refuse("is a wildcard for a whole top-level domain; name a domain such as *.example.com");
  }
  return { host, wildcard, port };
}

/** `host:8443` -> host and "8443"; a bare IPv6 address or a bracketed one keeps its colons. */
function splitPort(text: string): { name: string; portText: string | undefined } {
  const bracketed = /^(\[[^\]]*\])(?::(.*))?$/.exec(text);
  if (bracketed) return { name: bracketed[1] ?? "", portText: bracketed[2] };
  const colon = text.lastIndexOf(":");
  if (colon === -1 || text.indexOf(":") !== colon) return { name: text, portText: undefined };
  return { name: text.slice(0, colon), portText: text.slice(colon + 1) };
}

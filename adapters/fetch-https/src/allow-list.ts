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

interface Entry {
  readonly host: string;
  readonly wildcard: boolean;
  readonly port: number;
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
  const parsed = entries.map(parseHostEntry);
  return {
    entries: parsed.map(
      (entry) => `${entry.wildcard ? "*." : ""}${entry.host}${entry.port === 443 ? "" : `:${entry.port}`}`,
    ),
    allows(hostname, port) {
      if (typeof hostname !== "string" || isIpLiteral(hostname)) return false;
      const host = normaliseHostname(domainToASCII(hostname));
      if (host === "") return false;
      return parsed.some(
        (entry) =>
          entry.port === port && (entry.wildcard ? host.endsWith(`.${entry.host}`) : entry.host === host),
      );
    },
  };
}

/** Drops one trailing dot so `example.com.` and `example.com` agree (URL hosts are lower case already). */
export function normaliseHostname(hostname: string): string {
  return hostname.endsWith(".") ? hostname.slice(0, -1) : hostname;
}

/** True for `203.0.113.7` and `[2001:db8::1]` (URL host form). */
export function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || isIP(hostname) !== 0;
}

function parseHostEntry(entry: unknown): Entry {
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
  if (name.startsWith("[") || isIP(name) !== 0 || isIP(text) !== 0) throw ipRefusal();
  let port = 443;
  if (portText !== undefined) {
    port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : 0;
    if (port < 1 || port > 65_535) throw refuse("has a port that is not a number from 1 to 65535");
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
  if (isIpLiteral(host)) throw ipRefusal();
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

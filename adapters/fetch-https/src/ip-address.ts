import { isIP } from "node:net";
import ipaddr, { type IPv4, type IPv6 } from "ipaddr.js";

/**
 * Why an address is not public: the name ipaddr.js gives its special-purpose range (`unspecified`, `loopback`,
 * `private`, `carrierGradeNat`, `linkLocal`, `uniqueLocal`, `multicast`, `broadcast`, `reserved`,
 * `benchmarking`, `6to4`, `teredo`, `rfc6052`, `rfc6145`, ...), or `notGlobalUnicast` for an IPv6 address outside
 * 2000::/3 that ipaddr.js names no range for (such as the deprecated IPv4-compatible `::7f00:1`).
 */
export type NonPublicRange =
  | Exclude<ReturnType<IPv4["range"]> | ReturnType<IPv6["range"]>, "unicast">
  | "discard"
  | "deprecatedSiteLocal"
  | "deprecatedOrchid"
  | "segmentRouting"
  | "notGlobalUnicast";

/**
 * What an IP address is, for deciding whether a document may be fetched from it: `public`, `invalid` (not an IP
 * address in standard text form), or the non-public range it falls in. Only `public` may be connected to.
 */
export type AddressKind = "public" | "invalid" | NonPublicRange;

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");
/** The well-known NAT64 prefix: a DNS64 resolver puts the public IPv4 address of a host in its last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");

/**
 * Classifies an IP address in text form (`203.0.113.7`, `2001:db8::1`, `::ffff:10.0.0.1`) with ipaddr.js. Only its
 * `unicast` range is public: private, loopback, link-local, unique-local, shared (CGNAT 100.64/10), multicast,
 * broadcast, reserved, documentation, benchmarking, unspecified and every other special-purpose block is not.
 * IPv6 must also be global unicast (2000::/3). IPv4-mapped addresses (::ffff:0:0/96) and the well-known NAT64
 * prefix (64:ff9b::/96) are judged by the IPv4 address they carry, which is where a connection to them ends up;
 * 6to4 (2002::/16), Teredo (2001::/32), local-use NAT64 (64:ff9b:1::/48) and IPv4-translated (::ffff:0:0:0/96)
 * addresses are never public. A scoped address (`fe80::1%eth0`) or anything that is not an IP address (`127.1`,
 * `localhost`) is `invalid`.
 */
export function classifyAddress(address: string): AddressKind {
  const family = typeof address === "string" ? isIP(address) : 0;
  if (family === 4) return classifyIpv4(ipaddr.IPv4.parse(address));
  if (family !== 6 || address.includes("%")) return "invalid";
  const ip = ipaddr.IPv6.parse(canonicalIpv6(address));
  const range = ip.range();
  if (range === "ipv4Mapped") return classifyIpv4(ip.toIPv4Address());
  if (ip.match(NAT64_WELL_KNOWN)) return classifyIpv4(embeddedIpv4(ip));
  if (range !== "unicast") return range as NonPublicRange;
  return ip.match(GLOBAL_UNICAST) ? "public" : "notGlobalUnicast";
}

/** True when `address` is a publicly routable IP address (see `classifyAddress`). */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

function classifyIpv4(ip: IPv4): AddressKind {
  const range = ip.range();
  return range === "unicast" ? "public" : (range as NonPublicRange);
}

/**
 * The WHATWG URL serialisation of an IPv6 address. ipaddr.js reads `::a.b.c.d` as IPv4-mapped, while the
 * network stack reads it as IPv4-compatible (`::7f00:1`); the canonical form removes that ambiguity.
 */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

function embeddedIpv4(ip: IPv6): IPv4 {
  const bytes = ip.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
}

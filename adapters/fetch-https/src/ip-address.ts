import { isIPv4, isIPv6 } from "node:net";

/**
 * What an IP address is, for the purpose of deciding whether a document may be fetched from it. Only `public`
 * addresses may be connected to; every other kind is refused with `address_not_public`.
 */
export type AddressKind =
  | "public"
  | "invalid"
  | "unspecified"
  | "this_network"
  | "loopback"
  | "private"
  | "shared"
  | "link_local"
  | "unique_local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved";

type Range = readonly [network: bigint, prefix: number, kind: AddressKind];

/** IPv4 special-purpose blocks that are not globally reachable, most specific first where they overlap. */
const IPV4_RANGES: readonly Range[] = [
  [ipv4("0.0.0.0"), 32, "unspecified"],
  [ipv4("0.0.0.0"), 8, "this_network"],
  [ipv4("10.0.0.0"), 8, "private"],
  [ipv4("100.64.0.0"), 10, "shared"],
  [ipv4("127.0.0.0"), 8, "loopback"],
  [ipv4("169.254.0.0"), 16, "link_local"],
  [ipv4("172.16.0.0"), 12, "private"],
  [ipv4("192.0.0.0"), 24, "reserved"],
  [ipv4("192.0.2.0"), 24, "documentation"],
  [ipv4("192.88.99.0"), 24, "reserved"],
  [ipv4("192.168.0.0"), 16, "private"],
  [ipv4("198.18.0.0"), 15, "benchmarking"],
  [ipv4("198.51.100.0"), 24, "documentation"],
  [ipv4("203.0.113.0"), 24, "documentation"],
  [ipv4("224.0.0.0"), 4, "multicast"],
  [ipv4("255.255.255.255"), 32, "broadcast"],
  [ipv4("240.0.0.0"), 4, "reserved"],
];

/** IPv6 blocks that are not globally reachable inside global unicast (2000::/3), or outside it by name. */
const IPV6_RANGES: readonly Range[] = [
  [ipv6("::"), 128, "unspecified"],
  [ipv6("::1"), 128, "loopback"],
  [ipv6("::"), 96, "reserved"], // IPv4-compatible addresses (deprecated)
  [ipv6("64:ff9b:1::"), 48, "reserved"], // local-use IPv4/IPv6 translation
  [ipv6("100::"), 64, "reserved"], // discard-only
  [ipv6("2001::"), 23, "reserved"], // IETF protocol assignments, Teredo
  [ipv6("2001:db8::"), 32, "documentation"],
  [ipv6("2002::"), 16, "reserved"], // 6to4 (deprecated)
  [ipv6("3fff::"), 20, "documentation"],
  [ipv6("fc00::"), 7, "unique_local"],
  [ipv6("fe80::"), 10, "link_local"],
  [ipv6("fec0::"), 10, "reserved"], // site-local (deprecated)
  [ipv6("ff00::"), 8, "multicast"],
];

const IPV4_MAPPED = ipv6("::ffff:0:0");
const NAT64_WELL_KNOWN = ipv6("64:ff9b::");
const GLOBAL_UNICAST = ipv6("2000::");

/**
 * Classifies an IP address in text form (`203.0.113.7`, `2001:db8::1`, `::ffff:10.0.0.1`). IPv4-mapped and NAT64
 * (64:ff9b::/96) IPv6 addresses are judged by the IPv4 address they carry. IPv6 outside global unicast (2000::/3)
 * is `reserved`. A scoped address (`fe80::1%eth0`) or anything that is not an IP address is `invalid`.
 */
export function classifyAddress(address: string): AddressKind {
  if (isIPv4(address)) return classifyIpv4(ipv4(address));
  if (!isIPv6(address) || address.includes("%")) return "invalid";
  const value = ipv6(address);
  if (inRange(value, IPV4_MAPPED, 96, 128) || inRange(value, NAT64_WELL_KNOWN, 96, 128)) {
    return classifyIpv4(value & 0xffff_ffffn);
  }
  for (const [network, prefix, kind] of IPV6_RANGES) {
    if (inRange(value, network, prefix, 128)) return kind;
  }
  return inRange(value, GLOBAL_UNICAST, 3, 128) ? "public" : "reserved";
}

/** True when `address` is a publicly routable IP address (see `classifyAddress`). */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === "public";
}

function classifyIpv4(value: bigint): AddressKind {
  for (const [network, prefix, kind] of IPV4_RANGES) {
    if (inRange(value, network, prefix, 32)) return kind;
  }
  return "public";
}

function inRange(value: bigint, network: bigint, prefix: number, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === network >> shift;
}

/** A dotted-quad IPv4 address as a 32-bit integer; the caller has checked it with `isIPv4`. */
function ipv4(text: string): bigint {
  let value = 0n;
  for (const part of text.split(".")) value = (value << 8n) | BigInt(Number.parseInt(part, 10));
  return value;
}

/** An IPv6 address (with `::` and an optional trailing dotted quad) as a 128-bit integer; checked by `isIPv6`. */
function ipv6(text: string): bigint {
  const words: number[] = [];
  const [head = "", tail] = text.split("::");
  const headWords = head === "" ? [] : head.split(":");
  const tailWords = tail === undefined || tail === "" ? [] : tail.split(":");
  const toWords = (parts: string[]): number[] =>
    parts.flatMap((part) => {
      if (!part.includes(".")) return [Number.parseInt(part, 16)];
      const v4 = Number(ipv4(part));
      return [v4 >>> 16, v4 & 0xffff];
    });
  const left = toWords(headWords);
  const right = toWords(tailWords);
  words.push(...left);
  if (tail !== undefined) for (let i = left.length + right.length; i < 8; i++) words.push(0);
  words.push(...right);
  let value = 0n;
  for (const word of words) value = (value << 16n) | BigInt(word);
  return value;
}

import { describe, expect, it } from "vitest";
import { isIpLiteral, normaliseHostname, parseHostAllowList } from "./allow-list.ts";
import { FetchError } from "./errors.ts";

function refusalOf(entries: readonly unknown[]): FetchError {
  let caught: unknown;
  try {
    parseHostAllowList(entries as string[]);
  } catch (error) {
    caught = error;
  }
  expect(FetchError.isInstance(caught), `${JSON.stringify(entries)} should be refused`).toBe(true);
  return caught as FetchError;
}

describe("parseHostAllowList", () => {
  const list = parseHostAllowList([
    "files.example.com",
    "*.cdn.example.net",
    "uploads.example.org:8443",
    "*.eu.example.org:8443",
    "FILES.Example.IO.",
    "Bücher.example",
  ]);

  it("matches exact names on port 443 only", () => {
    expect(list.allows("files.example.com", 443)).toBe(true);
    expect(list.allows("files.example.com.", 443)).toBe(true);
    expect(list.allows("files.example.com", 8443)).toBe(false);
    expect(list.allows("example.com", 443)).toBe(false);
    expect(list.allows("a.files.example.com", 443)).toBe(false);
    expect(list.allows("files.example.com.evil.test", 443)).toBe(false);
  });

  it("matches a wildcard for sub-domains at any depth, never the bare domain", () => {
    expect(list.allows("eu.cdn.example.net", 443)).toBe(true);
    expect(list.allows("a.b.cdn.example.net", 443)).toBe(true);
    expect(list.allows("cdn.example.net", 443)).toBe(false);
    expect(list.allows("evilcdn.example.net", 443)).toBe(false);
    expect(list.allows("eu.cdn.example.net", 8443)).toBe(false);
  });

  it("matches a host:port entry on that port only", () => {
    expect(list.allows("uploads.example.org", 8443)).toBe(true);
    expect(list.allows("uploads.example.org", 443)).toBe(false);
    expect(list.allows("uploads.example.org", 8444)).toBe(false);
  });

  it("combines a wildcard with a port: sub-domains on that port only", () => {
    expect(list.allows("a.eu.example.org", 8443)).toBe(true);
    expect(list.allows("a.b.eu.example.org", 8443)).toBe(true);
    expect(list.allows("a.eu.example.org", 443)).toBe(false);
    expect(list.allows("eu.example.org", 8443)).toBe(false);
  });

  it("lower-cases, IDNA-normalises and drops a trailing dot, and lists the entries in that form", () => {
    expect(list.allows("files.example.io", 443)).toBe(true);
    expect(list.allows("xn--bcher-kva.example", 443)).toBe(true);
    expect(list.allows("bücher.example", 443)).toBe(true);
    expect(list.entries).toEqual([
      "files.example.com",
      "*.cdn.example.net",
      "uploads.example.org:8443",
      "*.eu.example.org:8443",
      "files.example.io",
      "xn--bcher-kva.example",
    ]);
    expect(parseHostAllowList(["files.example.com:443", " cdn.example.com "]).entries).toEqual([
      "files.example.com",
      "cdn.example.com",
    ]);
  });

  it("never matches an IP-address host", () => {
    const numeric = parseHostAllowList(["files.example.com"]);
    expect(numeric.allows("127.0.0.1", 443)).toBe(false);
    expect(numeric.allows("[::1]", 443)).toBe(false);
  });

  it("refuses IP addresses with invalid_host_entry, saying so and naming the entry", () => {
    for (const entry of [
      "203.0.113.7",
      "10.0.0.1:443",
      "[2001:db8::1]",
      "[2001:db8::1]:8443",
      "2001:db8::1",
      "127.1",
      "0x7f.1",
      "1.2.3",
      "*.10.0.0.1",
    ]) {
      const error = refusalOf([entry]);
      expect(error.code, entry).toBe("invalid_host_entry");
      expect(error.entry).toBe(entry);
      expect(error.message).toContain(JSON.stringify(entry));
      expect(error.message, entry).toMatch(/is an IP address/);
    }
  });

  it("refuses anything else that is not a host, *.domain or either with :port, naming the entry", () => {
    for (const entry of [
      "",
      "   ",
      "a b",
      "files.example.com/x",
      "https://files.example.com",
      "u@files.example.com",
      "files.example.com?x",
      "ex%41mple.com",
      "-files.example.com",
      "files..example.com",
      "files.example.com.1",
      "files_example.com:",
      "files.example.com:0",
      "files.example.com:65536",
      "files.example.com:http",
      "a:b:c",
      "*",
      "*.",
      "**.example.com",
      "a.*.example.com",
      "*.com",
      `${"a".repeat(64)}.example.com`,
    ]) {
      const error = refusalOf([entry]);
      expect(error.code, entry).toBe("invalid_host_entry");
      expect(error.entry).toBe(entry);
      expect(error.message, entry).toContain(`host entry ${JSON.stringify(entry)}`);
    }
    expect(refusalOf([42]).code).toBe("invalid_host_entry");
  });

  it("refuses a list that is not an array with invalid_options", () => {
    expect(refusalOf("files.example.com" as unknown as unknown[]).code).toBe("invalid_options");
  });
});

describe("host helpers", () => {
  it("normaliseHostname drops one trailing dot", () => {
    expect(normaliseHostname("example.com.")).toBe("example.com");
    expect(normaliseHostname("example.com")).toBe("example.com");
  });

  it("isIpLiteral knows IPv4 and bracketed IPv6", () => {
    expect(isIpLiteral("10.0.0.1")).toBe(true);
    expect(isIpLiteral("[::1]")).toBe(true);
    expect(isIpLiteral("example.com")).toBe(false);
  });
});

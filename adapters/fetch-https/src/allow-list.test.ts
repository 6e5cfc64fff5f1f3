import { describe, expect, it } from "vitest";
import { createAllowList, isIpLiteral, normaliseHostname } from "./allow-list.ts";
import { FetchError } from "./errors.ts";

describe("createAllowList", () => {
  const list = createAllowList([
    "files.example.com",
    "*.cdn.example.net",
    "uploads.example.org:8443",
    "203.0.113.7",
    "[2001:db8::1]:8443",
    "FILES.Example.IO.",
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
  });

  it("matches IP literals exactly", () => {
    expect(list.allows("203.0.113.7", 443)).toBe(true);
    expect(list.allows("203.0.113.8", 443)).toBe(false);
    expect(list.allows("[2001:db8::1]", 8443)).toBe(true);
    expect(list.allows("[2001:db8::1]", 443)).toBe(false);
  });

  it("normalises entries like URL hosts (case, trailing dot)", () => {
    expect(list.allows("files.example.io", 443)).toBe(true);
  });

  it("refuses malformed entries with invalid_options", () => {
    for (const entry of [
      "",
      "a b",
      "files.example.com/x",
      "u@files.example.com",
      "*",
      "*.",
      "a.*.com",
      "*.1.2.3.4",
    ]) {
      let caught: unknown;
      try {
        createAllowList([entry]);
      } catch (error) {
        caught = error;
      }
      expect(FetchError.isInstance(caught) && caught.code, entry).toBe("invalid_options");
    }
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

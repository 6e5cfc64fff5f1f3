import { describe, expect, it } from "vitest";
import { parseHostAllowList, parsePrivateHostList } from "./allow-list.ts";
import { checkDocumentUrl, type HostPolicy } from "./document-url.ts";
import { FetchError, type FetchErrorCode } from "./errors.ts";

function codeOf(url: string, policy: HostPolicy): FetchErrorCode | undefined {
  try {
    checkDocumentUrl(url, policy);
    return undefined;
  } catch (error) {
    return FetchError.isInstance(error) ? error.code : undefined;
  }
}

function entryRefusal(entries: readonly unknown[]): FetchError {
  let caught: unknown;
  try {
    parsePrivateHostList(entries as string[]);
  } catch (error) {
    caught = error;
  }
  expect(FetchError.isInstance(caught), `${JSON.stringify(entries)} should be refused`).toBe(true);
  return caught as FetchError;
}

describe("parsePrivateHostList", () => {
  const list = parsePrivateHostList([
    "dev.example.test",
    "*.preview.example.test:8443",
    "127.0.0.1:8080",
    "[::1]:9000",
    "127.1:7000",
    "LOCALHOST",
  ]);

  it("gives canonical entries: lower case, IPv4 in dotted form, IPv6 in brackets, a port only when given", () => {
    expect(list.entries).toEqual([
      "dev.example.test",
      "*.preview.example.test:8443",
      "127.0.0.1:8080",
      "[::1]:9000",
      "127.0.0.1:7000",
      "localhost",
    ]);
  });

  it("admits an entry without a port on the scheme's default port only", () => {
    expect(list.allows("dev.example.test", 443, "https")).toBe(true);
    expect(list.allows("dev.example.test", 80, "http")).toBe(true);
    expect(list.allows("dev.example.test", 80, "https")).toBe(false);
    expect(list.allows("dev.example.test", 8080, "http")).toBe(false);
    expect(list.allows("localhost", 80, "http")).toBe(true);
  });

  it("admits an entry with a port on that port over both schemes", () => {
    expect(list.allows("127.0.0.1", 8080, "http")).toBe(true);
    expect(list.allows("127.0.0.1", 8080, "https")).toBe(true);
    expect(list.allows("127.0.0.1", 8081, "http")).toBe(false);
    expect(list.allows("[::1]", 9000, "http")).toBe(true);
    expect(list.allows("a.b.preview.example.test", 8443, "http")).toBe(true);
    expect(list.allows("preview.example.test", 8443, "http")).toBe(false);
    expect(list.allows("127.0.0.2", 8080, "http")).toBe(false);
  });

  it("refuses what is neither a host name nor an IP address with invalid_host_entry", () => {
    for (const entry of [
      "http://dev.example.test",
      "dev.example.test/path",
      "[nothing]:80",
      "*.10.0.0.1",
      "",
    ]) {
      const error = entryRefusal([entry]);
      expect(error.code, entry).toBe("invalid_host_entry");
      expect(error.entry).toBe(entry);
    }
    expect(entryRefusal(["127.0.0.1:99999"]).code).toBe("invalid_host_entry");
    expect(entryRefusal([42]).code).toBe("invalid_host_entry");
    expect(entryRefusal("localhost" as unknown as string[]).code).toBe("invalid_options");
  });
});

describe("checkDocumentUrl with a host policy", () => {
  const allow = parseHostAllowList(["files.example.com"]);
  const privateHosts = parsePrivateHostList(["127.0.0.1:8080", "dev.example.test"]);

  it("with any public host: admits every host name over https, never http or an IP address", () => {
    const any: HostPolicy = { allow: "any" };
    const target = checkDocumentUrl("https://profiles.example.org:8443/agent.json", any);
    expect(target).toMatchObject({
      hostname: "profiles.example.org",
      port: 8443,
      secure: true,
      private: false,
    });
    expect(codeOf("http://profiles.example.org/agent.json", any)).toBe("url_not_https");
    expect(codeOf("https://203.0.113.7/agent.json", any)).toBe("host_not_allowed");
    expect(codeOf("https://[2001:db8::1]/agent.json", any)).toBe("host_not_allowed");
    expect(codeOf("https://user@profiles.example.org/agent.json", any)).toBe("url_invalid");
  });

  it("admits the private hosts over http and https, marked private; the allowlist still rules the others", () => {
    const policy: HostPolicy = { allow, privateHosts };
    expect(checkDocumentUrl("http://127.0.0.1:8080/p.json", policy)).toMatchObject({
      hostname: "127.0.0.1",
      port: 8080,
      secure: false,
      private: true,
    });
    expect(checkDocumentUrl("https://dev.example.test/p.json", policy)).toMatchObject({
      port: 443,
      secure: true,
      private: true,
    });
    expect(checkDocumentUrl("http://dev.example.test/p.json", policy).port).toBe(80);
    expect(checkDocumentUrl("https://files.example.com/x.pdf", policy).private).toBe(false);
    expect(codeOf("http://127.0.0.1:8081/p.json", policy)).toBe("url_not_https");
    expect(codeOf("https://127.0.0.1:8081/p.json", policy)).toBe("host_not_allowed");
    expect(codeOf("http://files.example.com/x.pdf", policy)).toBe("url_not_https");
    expect(codeOf("https://other.example.com/x.pdf", policy)).toBe("host_not_allowed");
    expect(codeOf("ftp://dev.example.test/p.json", policy)).toBe("url_not_https");
    expect(codeOf("http://user:pw@dev.example.test/p.json", policy)).toBe("url_invalid");
  });

  it("without private hosts, http is refused as before", () => {
    expect(codeOf("http://files.example.com/x.pdf", { allow })).toBe("url_not_https");
    expect(codeOf("http://127.0.0.1:8080/p.json", { allow: "any" })).toBe("url_not_https");
  });
});

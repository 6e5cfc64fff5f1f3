import { describe, expect, it } from "vitest";
import { parseHostAllowList } from "./allow-list.ts";
import { checkDocumentUrl, MAX_URL_LENGTH } from "./document-url.ts";
import { FetchError, type FetchErrorCode } from "./errors.ts";

const list = parseHostAllowList(["files.example.com", "uploads.example.org:8443"]);

function codeOf(url: string): FetchErrorCode | undefined {
  try {
    checkDocumentUrl(url, list);
    return undefined;
  } catch (error) {
    return FetchError.isInstance(error) ? error.code : undefined;
  }
}

describe("checkDocumentUrl", () => {
  it("accepts an allowed https URL and reports its host and port", () => {
    const target = checkDocumentUrl("https://FILES.example.com./a/b.pdf?x=1#page=2", list);
    expect(target.hostname).toBe("files.example.com");
    expect(target.port).toBe(443);
    expect(target.url.pathname).toBe("/a/b.pdf");

    expect(checkDocumentUrl("https://files.example.com:443/x.pdf", list).port).toBe(443);
    expect(checkDocumentUrl("https://uploads.example.org:8443/x.pdf", list).port).toBe(8443);
  });

  it("refuses other schemes with url_not_https", () => {
    expect(codeOf("http://files.example.com/x.pdf")).toBe("url_not_https");
    expect(codeOf("file:///etc/passwd")).toBe("url_not_https");
    expect(codeOf("data:application/pdf;base64,JVBERi0=")).toBe("url_not_https");
  });

  it("refuses unparsable, over-long and credential-carrying URLs with url_invalid", () => {
    expect(codeOf("files.example.com/x.pdf")).toBe("url_invalid");
    expect(codeOf("https://")).toBe("url_invalid");
    expect(codeOf(`https://files.example.com/${"x".repeat(MAX_URL_LENGTH)}`)).toBe("url_invalid");
    expect(codeOf("https://user:pass@files.example.com/x.pdf")).toBe("url_invalid");
    expect(codeOf("https://user@files.example.com/x.pdf")).toBe("url_invalid");
    expect(codeOf("https://:pass@files.example.com/x.pdf")).toBe("url_invalid");
  });

  it("refuses hosts and ports off the list with host_not_allowed", () => {
    expect(codeOf("https://files.example.com:8443/x.pdf")).toBe("host_not_allowed");
    expect(codeOf("https://uploads.example.org/x.pdf")).toBe("host_not_allowed");
    expect(codeOf("https://example.com/x.pdf")).toBe("host_not_allowed");
    expect(codeOf("https://files.example.com@evil.test/x.pdf")).toBe("url_invalid");
    expect(codeOf("https://evil.test#@files.example.com/x.pdf")).toBe("host_not_allowed");
    expect(codeOf("https://127.0.0.1/x.pdf")).toBe("host_not_allowed");
    expect(codeOf("https://0x7f.1/x.pdf")).toBe("host_not_allowed");
    expect(codeOf("https://[2001:db8::1]/x.pdf")).toBe("host_not_allowed");
  });
});

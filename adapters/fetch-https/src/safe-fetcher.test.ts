import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError, type FetchErrorCode } from "./errors.ts";
import { refusal } from "./refusal.fixture.ts";
import type { ResolvedAddress } from "./resolve-addresses.ts";
import { createSafeFetcher, type SafeFetchOptions } from "./safe-fetcher.ts";
import { createCertificate, endlessRoute, startTestServer, type TestServer } from "./test-server.fixture.ts";

const MAX_BYTES = 64 * 1024;
const DOCUMENT = Buffer.concat([Buffer.from("%PDF-1.7\n"), randomBytes(20_000), Buffer.from("\n%%EOF\n")]);

let server: TestServer;
let untrustedServer: TestServer;
const endless = endlessRoute();

const base = () => `https://files.example.test:${server.port}`;

beforeAll(async () => {
  const certificate = await createCertificate(["files.example.test", "*.cdn.example.test"]);
  server = await startTestServer(certificate, {
    "/doc.pdf": (_request, response) => {
      response.setHeader("content-type", "application/pdf");
      response.setHeader("set-cookie", "session=abc");
      response.end(DOCUMENT);
    },
    "/bytes": (request, response) => {
      const size = Number(new URL(request.url ?? "/", "https://x").searchParams.get("size"));
      // Written in pieces without Content-Length: a chunked body.
      for (let sent = 0; sent < size; sent += 1000)
        response.write(Buffer.alloc(Math.min(1000, size - sent), 7));
      response.end();
    },
    "/declared-too-large": (_request, response) => {
      // Only the headers: the refusal must come from Content-Length, not from counting bytes.
      response.writeHead(200, { "content-length": String(MAX_BYTES + 1) });
      response.flushHeaders();
    },
    "/endless": endless.route,
    "/truncated": (_request, response) => {
      response.setHeader("content-length", "1000");
      response.write(Buffer.alloc(500), () => response.socket?.destroy());
    },
    "/redirect": (request, response) => {
      const to = new URL(request.url ?? "/", "https://x").searchParams.get("to") ?? "/doc.pdf";
      response.statusCode = 302;
      response.setHeader("location", to.replaceAll("PORT", String(server.port)));
      response.end();
    },
    "/chain": (request, response) => {
      const left = Number(new URL(request.url ?? "/", "https://x").searchParams.get("left"));
      response.statusCode = left % 2 === 0 ? 301 : 307;
      response.setHeader("location", left <= 1 ? "/doc.pdf" : `/chain?left=${left - 1}`);
      response.end();
    },
    "/no-answer": () => {},
    "/stalled-body": (_request, response) => {
      response.setHeader("content-length", "1000");
      response.write(Buffer.alloc(100));
    },
    "/server-error": (_request, response) => {
      response.statusCode = 500;
      response.end("boom");
    },
  });
  untrustedServer = await startTestServer(await createCertificate(["files.example.test"]), {});
});

afterAll(async () => {
  await server?.close();
  await untrustedServer?.close();
});

function localLookup(calls: string[] = []) {
  return async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    if (hostname.endsWith(".example.test")) return [{ address: "127.0.0.1", family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  };
}

function fetcher(overrides: Partial<SafeFetchOptions> = {}) {
  return createSafeFetcher({
    allowHosts: [`files.example.test:${server.port}`, `*.cdn.example.test:${server.port}`],
    maxBytes: MAX_BYTES,
    timeoutMs: 5000,
    allowPrivateAddresses: true,
    lookup: localLookup(),
    tls: { ca: server.ca },
    ...overrides,
  });
}

/** Runs `action` and asserts that the test server saw neither a connection nor a request meanwhile. */
async function withoutTraffic(action: () => Promise<unknown>): Promise<void> {
  const connections = server.connections;
  const requests = server.requests.length;
  await action();
  expect(server.connections).toBe(connections);
  expect(server.requests.length).toBe(requests);
}

describe("createSafeFetcher: success", () => {
  it("returns the exact bytes, their sha256, the content type and the URLs", async () => {
    const calls: string[] = [];
    const document = await fetcher({ lookup: localLookup(calls) }).fetch(`${base()}/doc.pdf`);
    expect(Buffer.from(document.bytes).equals(DOCUMENT)).toBe(true);
    expect(document.bytes).toBeInstanceOf(Uint8Array);
    expect(document.sha256).toBe(createHash("sha256").update(DOCUMENT).digest("hex"));
    expect(document.contentType).toBe("application/pdf");
    expect(document.url).toBe(`${base()}/doc.pdf`);
    expect(document.finalUrl).toBe(`${base()}/doc.pdf`);
    expect(calls).toEqual(["files.example.test"]);
  });

  it("connects to the resolved address with the URL's host name for SNI and Host, and sends no credentials", async () => {
    await fetcher().fetch(`${base()}/doc.pdf?copy=1`);
    const seen = server.requests.at(-1);
    expect(seen?.path).toBe("/doc.pdf?copy=1");
    expect(seen?.method).toBe("GET");
    expect(seen?.servername).toBe("files.example.test");
    expect(seen?.headers.host).toBe(`files.example.test:${server.port}`);
    expect(seen?.headers.accept).toBe("application/pdf");
    expect(seen?.headers.cookie).toBeUndefined();
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers["proxy-authorization"]).toBeUndefined();
  });

  it("resolves each host once and never sends a cookie it was given back", async () => {
    const calls: string[] = [];
    const fetch = fetcher({ lookup: localLookup(calls) });
    await fetch.fetch(`${base()}/doc.pdf`);
    await fetch.fetch(`${base()}/doc.pdf`);
    expect(calls).toEqual(["files.example.test", "files.example.test"]);
    expect(server.requests.at(-1)?.headers.cookie).toBeUndefined();
  });

  it("accepts a body of exactly maxBytes sent in chunks", async () => {
    const document = await fetcher().fetch(`${base()}/bytes?size=${MAX_BYTES}`);
    expect(document.bytes.length).toBe(MAX_BYTES);
    expect(document.contentType).toBeNull();
  });
});

describe("createSafeFetcher: the URL", () => {
  it("refuses http and other schemes with url_not_https, before any connection", async () => {
    await withoutTraffic(async () => {
      await refusal(fetcher().fetch(`http://files.example.test:${server.port}/doc.pdf`), "url_not_https");
      await refusal(fetcher().fetch(`ftp://files.example.test:${server.port}/doc.pdf`), "url_not_https");
    });
  });

  it("refuses what does not parse with url_invalid", async () => {
    await refusal(fetcher().fetch("not a url"), "url_invalid");
    await refusal(fetcher().fetch(`https://files.example.test/${"a".repeat(9000)}`), "url_invalid");
  });

  it("refuses credentials in the URL with url_invalid, before any connection", async () => {
    await withoutTraffic(async () => {
      const error = await refusal(
        fetcher().fetch(`https://user:secret@files.example.test:${server.port}/doc.pdf`),
        "url_invalid",
      );
      expect(error.url).not.toContain("secret");
      await refusal(fetcher().fetch(`https://user@files.example.test:${server.port}/doc.pdf`), "url_invalid");
    });
  });

  it("refuses hosts and ports that are not allowed with host_not_allowed, without resolving them", async () => {
    const calls: string[] = [];
    await withoutTraffic(async () => {
      const fetch = fetcher({ lookup: localLookup(calls) });
      await refusal(fetch.fetch(`https://other.example.test:${server.port}/doc.pdf`), "host_not_allowed");
      await refusal(fetch.fetch(`https://cdn.example.test:${server.port}/doc.pdf`), "host_not_allowed");
      await refusal(fetch.fetch("https://files.example.test/doc.pdf"), "host_not_allowed");
      await refusal(fetch.fetch(`https://files.example.test:${server.port + 1}/doc.pdf`), "host_not_allowed");
    });
    expect(calls).toEqual([]);
  });
});

describe("createSafeFetcher: redirects", () => {
  it("follows a relative redirect and one to an allowed sub-domain", async () => {
    const relative = await fetcher().fetch(`${base()}/redirect?to=/doc.pdf`);
    expect(relative.finalUrl).toBe(`${base()}/doc.pdf`);
    expect(relative.url).toBe(`${base()}/redirect?to=/doc.pdf`);

    const calls: string[] = [];
    const to = encodeURIComponent("https://eu.cdn.example.test:PORT/doc.pdf");
    const moved = await fetcher({ lookup: localLookup(calls) }).fetch(`${base()}/redirect?to=${to}`);
    expect(moved.finalUrl).toBe(`https://eu.cdn.example.test:${server.port}/doc.pdf`);
    expect(Buffer.from(moved.bytes).equals(DOCUMENT)).toBe(true);
    expect(calls).toEqual(["files.example.test", "eu.cdn.example.test"]);
    expect(server.requests.at(-1)?.servername).toBe("eu.cdn.example.test");
  });

  it("refuses a redirect to a host that is not allowed with redirect_not_allowed, without contacting it", async () => {
    const calls: string[] = [];
    const to = encodeURIComponent("https://evil.test:PORT/doc.pdf");
    const error = await refusal(
      fetcher({ lookup: localLookup(calls) }).fetch(`${base()}/redirect?to=${to}`),
      "redirect_not_allowed",
    );
    expect(error.url).toBe(`https://evil.test:${server.port}/doc.pdf`);
    expect(calls).toEqual(["files.example.test"]);
  });

  it("refuses a redirect to http with redirect_not_allowed", async () => {
    const before = server.requests.length;
    const to = encodeURIComponent("http://files.example.test:PORT/doc.pdf");
    await refusal(fetcher().fetch(`${base()}/redirect?to=${to}`), "redirect_not_allowed");
    expect(server.requests.length).toBe(before + 1);
  });

  it("refuses a redirect carrying credentials with redirect_not_allowed", async () => {
    const to = encodeURIComponent("https://user:secret@files.example.test:PORT/doc.pdf");
    const error = await refusal(fetcher().fetch(`${base()}/redirect?to=${to}`), "redirect_not_allowed");
    expect(error.url).not.toContain("secret");
  });

  it("follows up to maxRedirects and refuses one more with too_many_redirects", async () => {
    const three = await fetcher().fetch(`${base()}/chain?left=3`);
    expect(three.finalUrl).toBe(`${base()}/doc.pdf`);

    const before = server.requests.length;
    await refusal(fetcher().fetch(`${base()}/chain?left=4`), "too_many_redirects");
    expect(server.requests.length).toBe(before + 4);

    await refusal(fetcher({ maxRedirects: 0 }).fetch(`${base()}/chain?left=1`), "too_many_redirects");
  });
});

describe("createSafeFetcher: size, time and status", () => {
  it("refuses a Content-Length above maxBytes with too_large", async () => {
    await refusal(fetcher().fetch(`${base()}/declared-too-large`), "too_large");
  });

  it("refuses a chunked body of maxBytes + 1 with too_large", async () => {
    await refusal(fetcher().fetch(`${base()}/bytes?size=${MAX_BYTES + 1}`), "too_large");
  });

  it("cuts off an endless chunked body while streaming: the server sees the connection close", async () => {
    await refusal(fetcher().fetch(`${base()}/endless`), "too_large");
    expect(await endless.closedEarly()).toBe(true);
  });

  it("times out when the server never answers", async () => {
    const error = await refusal(fetcher({ timeoutMs: 200 }).fetch(`${base()}/no-answer`), "timeout");
    expect(error.url).toBe(`${base()}/no-answer`);
  });

  it("times out when the body stalls: the limit covers the body too", async () => {
    await refusal(fetcher({ timeoutMs: 300 }).fetch(`${base()}/stalled-body`), "timeout");
  });

  it("times out when resolving never finishes", async () => {
    await withoutTraffic(async () => {
      const lookup = () => new Promise<ResolvedAddress[]>(() => {});
      await refusal(fetcher({ timeoutMs: 100, lookup }).fetch(`${base()}/doc.pdf`), "timeout");
    });
  });

  it("reports a non-2xx answer as http_status with the status", async () => {
    const missing = await refusal(fetcher().fetch(`${base()}/missing.pdf`), "http_status");
    expect(missing.status).toBe(404);
    const failing = await refusal(fetcher().fetch(`${base()}/server-error`), "http_status");
    expect(failing.status).toBe(500);
  });

  it("reports a body that ends before its Content-Length as connection_failed", async () => {
    await refusal(fetcher().fetch(`${base()}/truncated`), "connection_failed");
  });
});

describe("createSafeFetcher: connections", () => {
  it("refuses a certificate it does not trust with connection_failed", async () => {
    const fetch = fetcher({ allowHosts: [`files.example.test:${untrustedServer.port}`] });
    await refusal(
      fetch.fetch(`https://files.example.test:${untrustedServer.port}/doc.pdf`),
      "connection_failed",
    );
    expect(untrustedServer.requests).toEqual([]);
  });

  it("refuses a certificate issued for another name with connection_failed", async () => {
    const fetch = fetcher({ allowHosts: [`nocert.example.test:${server.port}`] });
    const before = server.requests.length;
    await refusal(fetch.fetch(`https://nocert.example.test:${server.port}/doc.pdf`), "connection_failed");
    expect(server.requests.length).toBe(before);
  });

  it("reports a refused connection and an unknown name as connection_failed", async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const refused = fetcher({ allowHosts: [`files.example.test:${closedPort}`] });
    const error = await refusal(
      refused.fetch(`https://files.example.test:${closedPort}/doc.pdf`),
      "connection_failed",
    );
    // The message reaches the client: the cause's code, never the address that was dialled.
    expect(error.message).toBe("could not connect to files.example.test: ECONNREFUSED");

    const unknown = fetcher({ allowHosts: [`files.unknown.test:${server.port}`] });
    await refusal(unknown.fetch(`https://files.unknown.test:${server.port}/doc.pdf`), "connection_failed");

    const empty = fetcher({ lookup: async () => [] });
    await refusal(empty.fetch(`${base()}/doc.pdf`), "connection_failed");
  });
});

describe("createSafeFetcher: options", () => {
  const valid = { allowHosts: ["files.example.com"], maxBytes: 100, timeoutMs: 1000 };

  function codeOf(options: unknown): FetchErrorCode | false {
    try {
      createSafeFetcher(options as SafeFetchOptions);
    } catch (error) {
      return FetchError.isInstance(error) && error.code;
    }
    return false;
  }

  it("refuses malformed options with invalid_options", async () => {
    const attempts: unknown[] = [
      { ...valid, maxBytes: 0 },
      { ...valid, maxBytes: 1.5 },
      { ...valid, timeoutMs: 0 },
      { ...valid, timeoutMs: Number.NaN },
      { ...valid, maxRedirects: -1 },
      { ...valid, allowHosts: "files.example.com" },
    ];
    for (const options of attempts) expect(codeOf(options), JSON.stringify(options)).toBe("invalid_options");
  });

  it("refuses a malformed or IP-address allowHosts entry with invalid_host_entry", async () => {
    for (const entry of [
      "files.example.com/path",
      "*.*.example.com",
      "*.10.0.0.1",
      "user@files.example.com",
      "203.0.113.7",
      "[2001:db8::1]:8443",
    ]) {
      expect(codeOf({ ...valid, allowHosts: [entry] }), entry).toBe("invalid_host_entry");
    }
  });
});

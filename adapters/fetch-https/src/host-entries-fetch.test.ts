import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostAllowList } from "./allow-list.ts";
import { dialled } from "./dial-log.fixture.ts";
import { FetchError } from "./errors.ts";
import type { ResolvedAddress } from "./resolve-addresses.ts";
import { createSafeFetcher } from "./safe-fetcher.ts";
import { createCertificate, startTestServer, type TestServer } from "./test-server.fixture.ts";

const BODY = "%PDF-1.7\n%%EOF\n";
/** Names the certificate covers, so that only the allowlist can refuse them. */
const NAMES = [
  "cdn.example.test",
  "a.cdn.example.test",
  "x.y.cdn.example.test",
  "uploads.example.test",
  "files.example.test",
  "xn--bcher-kva.example.test",
];

/** Two servers with one certificate on two ports: `main` and `other`. */
let main: TestServer;
let other: TestServer;

beforeAll(async () => {
  const certificate = await createCertificate(NAMES);
  const routes = {
    "/doc.pdf": (_request: unknown, response: { end(body: string): void }) => response.end(BODY),
  };
  main = await startTestServer(certificate, routes);
  other = await startTestServer(certificate, routes);
});

afterAll(async () => {
  await main?.close();
  await other?.close();
});

/** Resolves every name the certificate covers to the test servers' address, and records what was asked. */
function loopbackLookup(calls: string[]) {
  return async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    if (NAMES.includes(hostname)) return [{ address: "127.0.0.1", family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  };
}

/** A fetcher over the entries as the server passes them: parsed once, then given in canonical form. */
function fetcherFor(entries: readonly string[], calls: string[]) {
  return createSafeFetcher({
    allowHosts: parseHostAllowList(entries).entries,
    maxBytes: 1024,
    timeoutMs: 10_000,
    allowPrivateAddresses: true, // the servers are on 127.0.0.1; the allowlist is what is under test
    lookup: loopbackLookup(calls),
    tls: { ca: main.ca },
  });
}

async function downloads(fetch: Promise<{ bytes: Uint8Array }>): Promise<void> {
  const document = await fetch;
  expect(new TextDecoder().decode(document.bytes)).toBe(BODY);
}

/** Asserts host_not_allowed with no lookup and no connection. */
async function notAllowed(fetch: Promise<unknown>, calls: string[]): Promise<void> {
  const before = {
    calls: calls.length,
    dials: dialled.length,
    main: main.connections,
    other: other.connections,
  };
  const error = await fetch.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(FetchError.isInstance(error) && error.code, String(error)).toBe("host_not_allowed");
  expect({
    calls: calls.length,
    dials: dialled.length,
    main: main.connections,
    other: other.connections,
  }).toEqual(before);
}

describe("allowlist entries, end to end against HTTPS servers on 127.0.0.1", () => {
  it("a wildcard entry with a port downloads from sub-domains on that port, not from the apex or another port", async () => {
    const calls: string[] = [];
    const fetcher = fetcherFor(
      [`*.cdn.example.test:${main.port}`, `uploads.example.test:${other.port}`],
      calls,
    );
    await downloads(fetcher.fetch(`https://a.cdn.example.test:${main.port}/doc.pdf`));
    await downloads(fetcher.fetch(`https://x.y.cdn.example.test:${main.port}/doc.pdf`));
    expect(calls).toEqual(["a.cdn.example.test", "x.y.cdn.example.test"]);

    await notAllowed(fetcher.fetch(`https://cdn.example.test:${main.port}/doc.pdf`), calls);
    await notAllowed(fetcher.fetch(`https://a.cdn.example.test:${other.port}/doc.pdf`), calls);
    // The other port serves the same certificate: an entry for it downloads.
    await downloads(fetcher.fetch(`https://uploads.example.test:${other.port}/doc.pdf`));
  });

  it("a host:port entry downloads on that port only; an entry without a port allows 443 only", async () => {
    const calls: string[] = [];
    const fetcher = fetcherFor([`uploads.example.test:${main.port}`, "files.example.test"], calls);
    await downloads(fetcher.fetch(`https://uploads.example.test:${main.port}/doc.pdf`));
    await notAllowed(fetcher.fetch(`https://uploads.example.test:${other.port}/doc.pdf`), calls);
    await notAllowed(fetcher.fetch("https://uploads.example.test/doc.pdf"), calls);
    await notAllowed(fetcher.fetch(`https://files.example.test:${main.port}/doc.pdf`), calls);
    await notAllowed(fetcher.fetch(`https://a.uploads.example.test:${main.port}/doc.pdf`), calls);
  });

  it("an internationalised entry in any case matches the URL's punycode host", async () => {
    const calls: string[] = [];
    const fetcher = fetcherFor([`Bücher.Example.TEST:${main.port}`], calls);
    await downloads(fetcher.fetch(`https://bücher.example.test:${main.port}/doc.pdf`));
    await downloads(fetcher.fetch(`https://XN--BCHER-KVA.example.test:${main.port}/doc.pdf`));
    expect(calls).toEqual(["xn--bcher-kva.example.test", "xn--bcher-kva.example.test"]);
  });

  it("an IP-address entry stops the fetcher from being built", () => {
    let caught: unknown;
    try {
      fetcherFor([`127.0.0.1:${main.port}`], []);
    } catch (error) {
      caught = error;
    }
    expect(FetchError.isInstance(caught) && caught.code).toBe("invalid_host_entry");
  });
});

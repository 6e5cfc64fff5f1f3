import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialled } from "./dial-log.fixture.ts";
import { FetchError, type FetchErrorCode } from "./errors.ts";
import { refusal } from "./refusal.fixture.ts";
import { createSafeFetcher, type SafeFetchOptions } from "./safe-fetcher.ts";
import {
  createCertificate,
  type Route,
  startPlainTestServer,
  startTestServer,
  type TestServer,
  tableLookup,
} from "./test-server.fixture.ts";

const PROFILE = JSON.stringify({ ucp: { version: "2026-01-11" } });
/** Names and the addresses the tests' resolver gives them: only 127.0.0.1 is ever dialled. */
const ADDRESSES: Record<string, string> = {
  "dev.example.test": "127.0.0.1",
  "profiles.example.test": "127.0.0.1",
  "intranet.example.test": "10.0.0.7",
};

let secure: TestServer;
let plain: TestServer;

const redirect =
  (server: () => TestServer): Route =>
  (request, response) => {
    const to = new URL(request.url ?? "/", "https://x").searchParams.get("to") ?? "/profile.json";
    response.statusCode = 302;
    response.setHeader("location", to.replaceAll("PORT", String(server().port)));
    response.end();
  };

beforeAll(async () => {
  const routes = (server: () => TestServer): Record<string, Route> => ({
    "/profile.json": (_request, response) => {
      response.setHeader("content-type", "application/json");
      response.end(PROFILE);
    },
    "/redirect": redirect(server),
  });
  secure = await startTestServer(
    await createCertificate(["dev.example.test", "profiles.example.test", "intranet.example.test"]),
    routes(() => secure),
  );
  plain = await startPlainTestServer(routes(() => plain));
});

afterAll(async () => {
  await secure?.close();
  await plain?.close();
});

const lookup = (calls: string[] = []) => tableLookup(ADDRESSES, calls);

function fetcher(options: Partial<SafeFetchOptions>) {
  return createSafeFetcher({
    maxBytes: 64 * 1024,
    timeoutMs: 5000,
    lookup: lookup(),
    tls: { ca: secure.ca },
    ...options,
  });
}

/** Runs `action` and asserts that neither server saw a connection and nothing was dialled meanwhile. */
async function withoutTraffic(action: () => Promise<unknown>): Promise<void> {
  const before = { secure: secure.connections, plain: plain.connections, dials: dialled.length };
  await action();
  expect({ secure: secure.connections, plain: plain.connections, dials: dialled.length }).toEqual(before);
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("anyPublicHost: any host name, the public-address rule on every hop", () => {
  it("fetches from a host on no list, with the Accept header it was given", async () => {
    const calls: string[] = [];
    const fetch = fetcher({
      anyPublicHost: true,
      accept: "application/json",
      allowPrivateAddresses: true, // the server is on 127.0.0.1; the host rule is what is under test
      lookup: lookup(calls),
    });
    const document = await fetch.fetch(`https://profiles.example.test:${secure.port}/profile.json`);
    expect(text(document.bytes)).toBe(PROFILE);
    expect(calls).toEqual(["profiles.example.test"]);
    const seen = secure.requests.at(-1);
    expect(seen?.headers.accept).toBe("application/json");
    expect(seen?.servername).toBe("profiles.example.test");
  });

  it("still refuses a loopback address with address_not_public, before dialling", async () => {
    await withoutTraffic(() =>
      refusal(
        fetcher({ anyPublicHost: true }).fetch(`https://profiles.example.test:${secure.port}/profile.json`),
        "address_not_public",
      ),
    );
  });

  it("still refuses http and IP-address hosts, before resolving", async () => {
    const calls: string[] = [];
    await withoutTraffic(async () => {
      const fetch = fetcher({ anyPublicHost: true, allowPrivateAddresses: true, lookup: lookup(calls) });
      await refusal(fetch.fetch(`http://profiles.example.test:${plain.port}/profile.json`), "url_not_https");
      await refusal(fetch.fetch(`https://127.0.0.1:${secure.port}/profile.json`), "host_not_allowed");
    });
    expect(calls).toEqual([]);
  });

  it("refuses a redirect to a host with a private address, without dialling it", async () => {
    const to = encodeURIComponent("https://intranet.example.test:PORT/profile.json");
    const dials = dialled.length;
    const requests = secure.requests.length;
    const fetch = fetcher({ anyPublicHost: true, privateHosts: [`dev.example.test:${secure.port}`] });
    const error = await refusal(
      fetch.fetch(`https://dev.example.test:${secure.port}/redirect?to=${to}`),
      "address_not_public",
    );
    expect(error.message).toBe("intranet.example.test does not resolve to a public address");
    expect(dialled.slice(dials)).toEqual(["127.0.0.1"]);
    expect(secure.requests.length).toBe(requests + 1);
  });
});

describe("privateHosts: development hosts over http and at private addresses", () => {
  it("fetches over http from an IP-address entry", async () => {
    const calls: string[] = [];
    const fetch = fetcher({
      allowHosts: [],
      privateHosts: [`127.0.0.1:${plain.port}`],
      accept: "application/json",
      lookup: lookup(calls),
    });
    const document = await fetch.fetch(`http://127.0.0.1:${plain.port}/profile.json`);
    expect(text(document.bytes)).toBe(PROFILE);
    expect(document.finalUrl).toBe(`http://127.0.0.1:${plain.port}/profile.json`);
    expect(calls).toEqual([]);
    const seen = plain.requests.at(-1);
    expect(seen?.headers.host).toBe(`127.0.0.1:${plain.port}`);
    expect(seen?.headers.accept).toBe("application/json");
    expect(seen?.headers.cookie).toBeUndefined();
  });

  it("reaches a named entry at a loopback address over https and http, without allowPrivateAddresses", async () => {
    const fetch = fetcher({
      allowHosts: [],
      privateHosts: [`dev.example.test:${secure.port}`, `dev.example.test:${plain.port}`],
    });
    const overTls = await fetch.fetch(`https://dev.example.test:${secure.port}/profile.json`);
    expect(text(overTls.bytes)).toBe(PROFILE);
    expect(secure.requests.at(-1)?.servername).toBe("dev.example.test");
    const overHttp = await fetch.fetch(`http://dev.example.test:${plain.port}/profile.json`);
    expect(text(overHttp.bytes)).toBe(PROFILE);
    expect(plain.requests.at(-1)?.headers.host).toBe(`dev.example.test:${plain.port}`);
  });

  it("admits only the listed host and port: others are refused before any traffic", async () => {
    await withoutTraffic(async () => {
      const fetch = fetcher({ allowHosts: [], privateHosts: [`127.0.0.1:${plain.port}`] });
      await refusal(fetch.fetch(`http://127.0.0.1:${secure.port}/profile.json`), "url_not_https");
      await refusal(fetch.fetch(`http://dev.example.test:${plain.port}/profile.json`), "url_not_https");
      await refusal(fetch.fetch(`https://dev.example.test:${secure.port}/profile.json`), "host_not_allowed");
      await refusal(fetch.fetch(`http://[::1]:${plain.port}/profile.json`), "url_not_https");
    });
  });

  it("refuses a redirect from a private host to a host that is not one", async () => {
    const to = encodeURIComponent("http://profiles.example.test:PORT/profile.json");
    const fetch = fetcher({ anyPublicHost: true, privateHosts: [`127.0.0.1:${plain.port}`] });
    const error = await refusal(
      fetch.fetch(`http://127.0.0.1:${plain.port}/redirect?to=${to}`),
      "redirect_not_allowed",
    );
    expect(error.url).toBe(`http://profiles.example.test:${plain.port}/profile.json`);
  });
});

describe("host options", () => {
  const base = { maxBytes: 100, timeoutMs: 1000 };

  function codeOf(options: unknown): FetchErrorCode | false {
    try {
      createSafeFetcher(options as SafeFetchOptions);
    } catch (error) {
      return FetchError.isInstance(error) && error.code;
    }
    return false;
  }

  it("takes allowHosts or anyPublicHost, exactly one of them", () => {
    expect(codeOf({ ...base, anyPublicHost: true })).toBe(false);
    expect(codeOf({ ...base, allowHosts: ["files.example.com"] })).toBe(false);
    expect(codeOf({ ...base })).toBe("invalid_options");
    expect(codeOf({ ...base, anyPublicHost: false })).toBe("invalid_options");
    expect(codeOf({ ...base, anyPublicHost: true, allowHosts: [] })).toBe("invalid_options");
    expect(codeOf({ ...base, anyPublicHost: "yes" })).toBe("invalid_options");
  });

  it("refuses an Accept value that is not one printable header line", () => {
    expect(codeOf({ ...base, anyPublicHost: true, accept: "application/json, */*;q=0.1" })).toBe(false);
    for (const accept of ["", "application/json\r\nx-injected: 1", " application/json", 42, "é"]) {
      expect(codeOf({ ...base, anyPublicHost: true, accept }), JSON.stringify(accept)).toBe(
        "invalid_options",
      );
    }
  });

  it("refuses a malformed privateHosts entry with invalid_host_entry", () => {
    expect(codeOf({ ...base, anyPublicHost: true, privateHosts: ["localhost:8080"] })).toBe(false);
    expect(codeOf({ ...base, anyPublicHost: true, privateHosts: ["http://localhost:8080"] })).toBe(
      "invalid_host_entry",
    );
    expect(codeOf({ ...base, anyPublicHost: true, privateHosts: "localhost" })).toBe("invalid_options");
  });
});

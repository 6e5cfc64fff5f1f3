import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialled } from "./dial-log.fixture.ts";
import { FetchError } from "./errors.ts";
import { refusal } from "./refusal.fixture.ts";
import { createSafePoster, type SafePostOptions } from "./safe-poster.ts";
import {
  createCertificate,
  endlessRoute,
  type Route,
  startTestServer,
  type TestServer,
  tableLookup,
} from "./test-server.fixture.ts";

/** Names and the addresses the tests' resolver gives them: only 127.0.0.1 is ever dialled. */
const ADDRESSES: Record<string, string> = {
  "hooks.example.test": "127.0.0.1",
  "public.example.test": "93.184.216.34",
  "intranet.example.test": "10.0.0.7",
  "metadata.example.test": "169.254.169.254",
};
const BODY = JSON.stringify({ id: "evt_1", type: "service.letter.delivered" });

let server: TestServer;
const bodies: string[] = [];
const endless = endlessRoute();

const answer =
  (status: number, extra: Record<string, string> = {}): Route =>
  (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(status, extra);
      response.end("ok");
    });
  };

beforeAll(async () => {
  server = await startTestServer(await createCertificate(["hooks.example.test", "intranet.example.test"]), {
    "/ok": answer(200),
    "/accepted": answer(202),
    "/gone": answer(410),
    "/error": answer(500),
    "/moved": answer(302, { location: "https://hooks.example.test/ok" }),
    "/silent": () => {},
    "/endless": endless.route,
    "/stalled-body": (_request, response) => {
      response.writeHead(200, { "content-length": "1000" });
      response.write(Buffer.alloc(10));
    },
  });
});

afterAll(async () => {
  await server?.close();
});

/** A poster for any public host, with the test server admitted as a private host. */
function poster(options: Partial<SafePostOptions> = {}) {
  return createSafePoster({
    anyPublicHost: true,
    privateHosts: [`hooks.example.test:${server.port}`],
    timeoutMs: 5000,
    lookup: tableLookup(ADDRESSES),
    tls: { ca: server.ca },
    ...options,
  });
}

const url = (path: string) => `https://hooks.example.test:${server.port}${path}`;

/** Runs `action` and asserts that the server saw no connection and nothing was dialled meanwhile. */
async function withoutTraffic(action: () => Promise<unknown>): Promise<void> {
  const before = { connections: server.connections, dials: dialled.length };
  await action();
  expect({ connections: server.connections, dials: dialled.length }).toEqual(before);
}

describe("createSafePoster: the exchange", () => {
  it("POSTs the body with the caller's headers and answers the status", async () => {
    const result = await poster().post(url("/accepted?x=1"), {
      body: BODY,
      headers: { "Content-Type": "application/json", "Service-Signature": "t=1,v1=ab" },
    });
    expect(result).toEqual({ url: url("/accepted?x=1"), status: 202, bytesRead: 2, truncated: false });
    const seen = server.requests.at(-1);
    expect(seen?.method).toBe("POST");
    expect(seen?.path).toBe("/accepted?x=1");
    expect(seen?.servername).toBe("hooks.example.test");
    expect(seen?.headers.host).toBe(`hooks.example.test:${server.port}`);
    expect(seen?.headers["content-type"]).toBe("application/json");
    expect(seen?.headers["service-signature"]).toBe("t=1,v1=ab");
    expect(seen?.headers["content-length"]).toBe(String(Buffer.byteLength(BODY)));
    expect(seen?.headers.cookie).toBeUndefined();
    expect(seen?.headers.authorization).toBeUndefined();
    expect(bodies.at(-1)).toBe(BODY);
  });

  it("answers any other status as it is: 410, 500, and a redirect that is never followed", async () => {
    expect((await poster().post(url("/gone"), { body: BODY })).status).toBe(410);
    expect((await poster().post(url("/error"), { body: BODY })).status).toBe(500);
    const before = server.requests.length;
    expect((await poster().post(url("/moved"), { body: BODY })).status).toBe(302);
    expect(server.requests.length).toBe(before + 1);
  });

  it("reads at most maxResponseBytes of the answer, then drops the connection", async () => {
    const result = await poster({ maxResponseBytes: 1024 }).post(url("/endless"), { body: BODY });
    expect(result).toMatchObject({ status: 200, bytesRead: 1024, truncated: true });
    expect(await endless.closedEarly()).toBe(true);
  });

  it("times out when no status comes, and keeps a status whose body stalls", async () => {
    const error = await refusal(poster().post(url("/silent"), { body: BODY, timeoutMs: 200 }), "timeout");
    expect(error.url).toBe(url("/silent"));
    // The budget covers the handshake and the status; the body then stalls until the budget runs out.
    const stalled = await poster({ timeoutMs: 1500 }).post(url("/stalled-body"), { body: BODY });
    expect(stalled).toMatchObject({ status: 200, truncated: true });
  });
});

describe("createSafePoster: the address rules", () => {
  it("refuses a host that resolves to a private or link-local address before dialling", async () => {
    await withoutTraffic(async () => {
      for (const host of ["intranet.example.test", "metadata.example.test"]) {
        const error = await refusal(
          poster().post(`https://${host}/hook`, { body: BODY }),
          "address_not_public",
        );
        expect(error.message).not.toMatch(/10\.0\.0\.7|169\.254/);
      }
    });
  });

  it("refuses the loopback test server itself unless it is a private host", async () => {
    await withoutTraffic(() =>
      refusal(poster({ privateHosts: [] }).post(url("/ok"), { body: BODY }), "address_not_public"),
    );
  });

  it("refuses http, IP-address hosts and credentials before resolving", async () => {
    const calls: string[] = [];
    await withoutTraffic(async () => {
      const post = poster({ lookup: tableLookup(ADDRESSES, calls) });
      await refusal(post.post("http://public.example.test/hook", { body: BODY }), "url_not_https");
      await refusal(post.post("https://127.0.0.1/hook", { body: BODY }), "host_not_allowed");
      await refusal(post.post("https://[::1]/hook", { body: BODY }), "host_not_allowed");
      await refusal(post.post("https://user:pw@public.example.test/hook", { body: BODY }), "url_invalid");
    });
    expect(calls).toEqual([]);
  });

  it("checks a URL without connecting: public addresses pass, private ones are refused", async () => {
    await withoutTraffic(async () => {
      await expect(poster().check("https://public.example.test/hook")).resolves.toBeUndefined();
      await refusal(poster().check("https://intranet.example.test/hook"), "address_not_public");
      await refusal(poster().check("https://unknown.example.test/hook"), "connection_failed");
      await refusal(poster().check("http://public.example.test/hook"), "url_not_https");
    });
  });
});

describe("createSafePoster: what the caller gives", () => {
  it("refuses headers the poster sets, credentials and malformed values with invalid_request, before any traffic", async () => {
    await withoutTraffic(async () => {
      const refused: Record<string, string>[] = [
        { Host: "elsewhere.test" },
        { "content-length": "1" },
        { Cookie: "a=b" },
        { Authorization: "Bearer x" },
        { "Proxy-Foo": "x" },
        { "x-bad": "line\r\nInjected: yes" },
        { "bad name": "x" },
      ];
      for (const headers of refused) {
        await refusal(poster().post(url("/ok"), { body: BODY, headers }), "invalid_request");
      }
      await refusal(poster({ maxBodyBytes: 10 }).post(url("/ok"), { body: BODY }), "invalid_request");
      await refusal(poster().post(url("/ok"), { body: 5 as unknown as string }), "invalid_request");
      await refusal(poster().post(url("/ok"), { body: BODY, timeoutMs: 0 }), "invalid_request");
    });
  });

  it("refuses malformed options with invalid_options", () => {
    const codeOf = (options: Partial<SafePostOptions>) => {
      try {
        poster(options);
        return false;
      } catch (error) {
        return FetchError.isInstance(error) && error.code;
      }
    };
    expect(codeOf({ maxResponseBytes: 0 })).toBe("invalid_options");
    expect(codeOf({ maxBodyBytes: 1.5 })).toBe("invalid_options");
    expect(codeOf({ timeoutMs: -1 })).toBe("invalid_options");
    expect(codeOf({ allowHosts: ["hooks.example.test"] })).toBe("invalid_options");
    expect(codeOf({ privateHosts: ["http://x"] })).toBe("invalid_host_entry");
  });
});

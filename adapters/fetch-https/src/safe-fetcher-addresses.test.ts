import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialled } from "./dial-log.fixture.ts";
import { FetchError, type FetchErrorCode } from "./errors.ts";
import type { ResolvedAddress } from "./resolve-addresses.ts";
import { createSafeFetcher, type SafeFetchOptions } from "./safe-fetcher.ts";
import { createCertificate, startTestServer, type TestServer } from "./test-server.fixture.ts";

let server: TestServer;

beforeAll(async () => {
  const certificate = await createCertificate(["files.example.test"]);
  server = await startTestServer(certificate, {
    "/doc.pdf": (_request, response) => {
      response.end("%PDF-1.7\n%%EOF\n");
    },
  });
});

afterAll(async () => {
  await server?.close();
});

function fetcher(overrides: Partial<SafeFetchOptions>) {
  return createSafeFetcher({
    allowHosts: [`files.example.test:${server.port}`],
    maxBytes: 1024,
    timeoutMs: 5000,
    tls: { ca: server.ca },
    ...overrides,
  });
}

/**
 * Asserts the fetch is refused with `code` (address_not_public unless told) and that nothing was dialled or seen by
 * the server. Returns the error.
 */
async function refusedBeforeConnecting(
  promise: Promise<unknown>,
  code: FetchErrorCode = "address_not_public",
): Promise<FetchError> {
  const connections = server.connections;
  const requests = server.requests.length;
  const dials = dialled.length;
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(FetchError.isInstance(error) && error.code, String(error)).toBe(code);
  expect(dialled.length).toBe(dials);
  expect(server.connections).toBe(connections);
  expect(server.requests.length).toBe(requests);
  return error as FetchError;
}

describe("createSafeFetcher: addresses that are not public", () => {
  it("reaches the local server when allowPrivateAddresses is set (the guard lets 127.0.0.1 through)", async () => {
    const lookup = async (): Promise<ResolvedAddress[]> => [{ address: "127.0.0.1", family: 4 }];
    const document = await fetcher({ allowPrivateAddresses: true, lookup }).fetch(
      `https://files.example.test:${server.port}/doc.pdf`,
    );
    expect(new TextDecoder().decode(document.bytes)).toBe("%PDF-1.7\n%%EOF\n");
    expect(dialled.at(-1)).toBe("127.0.0.1");
  });

  const refused: ResolvedAddress[] = [
    { address: "127.0.0.1", family: 4 },
    { address: "127.8.9.10", family: 4 },
    { address: "10.1.2.3", family: 4 },
    { address: "172.16.0.1", family: 4 },
    { address: "192.168.1.10", family: 4 },
    { address: "100.64.0.1", family: 4 },
    { address: "169.254.169.254", family: 4 },
    { address: "0.0.0.0", family: 4 },
    { address: "255.255.255.255", family: 4 },
    { address: "224.0.0.1", family: 4 },
    { address: "203.0.113.5", family: 4 },
    { address: "::1", family: 6 },
    { address: "::", family: 6 },
    { address: "::ffff:127.0.0.1", family: 6 },
    { address: "::ffff:a9fe:a9fe", family: 6 },
    { address: "fd00::1", family: 6 },
    { address: "fe80::1", family: 6 },
    { address: "ff02::1", family: 6 },
    { address: "2001:db8::1", family: 6 },
    { address: "100.127.255.254", family: 4 },
    { address: "192.175.48.1", family: 4 },
    { address: "::ffff:100.64.0.1", family: 6 },
    { address: "::127.0.0.1", family: 6 },
    { address: "::ffff:0:7f00:1", family: 6 },
    { address: "64:ff9b::a00:1", family: 6 },
    { address: "64:ff9b:1::808:808", family: 6 },
    { address: "2002:7f00:1::1", family: 6 },
    { address: "2002:808:808::1", family: 6 },
    { address: "2001:0:4136:e378:8000:63bf:3fff:fdd2", family: 6 },
    { address: "fec0::1", family: 6 },
    { address: "4000::1", family: 6 },
  ];

  for (const resolved of refused) {
    it(`refuses ${resolved.address} with address_not_public before connecting`, async () => {
      const lookup = async (): Promise<ResolvedAddress[]> => [resolved];
      const error = await refusedBeforeConnecting(
        fetcher({ allowPrivateAddresses: false, lookup }).fetch(
          `https://files.example.test:${server.port}/doc.pdf`,
        ),
      );
      expect(error.message).toBe("files.example.test does not resolve to a public address");
    });
  }

  it("refuses a host when any one of its addresses is not public", async () => {
    const lookup = async (): Promise<ResolvedAddress[]> => [
      { address: "8.8.8.8", family: 4 },
      { address: "2606:4700:4700::1111", family: 6 },
      { address: "10.0.0.1", family: 4 },
    ];
    const error = await refusedBeforeConnecting(
      fetcher({ lookup }).fetch(`https://files.example.test:${server.port}/doc.pdf`),
    );
    expect(error.message).not.toMatch(/8\.8\.8\.8|2606|10\.0\.0\.1/);
  });

  it("refuses an IP-address host with host_not_allowed without resolving it", async () => {
    const calls: string[] = [];
    const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
      calls.push(hostname);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const loose = { lookup, allowPrivateAddresses: true };
    for (const host of ["127.0.0.1", "[::1]", "0x7f.1", "[::ffff:127.0.0.1]"]) {
      await refusedBeforeConnecting(
        fetcher(loose).fetch(`https://${host}:${server.port}/doc.pdf`),
        "host_not_allowed",
      );
    }
    expect(calls).toEqual([]);
  });

  it("refuses the local server itself when allowPrivateAddresses is left unset", async () => {
    const lookup = async (): Promise<ResolvedAddress[]> => [{ address: "127.0.0.1", family: 4 }];
    await refusedBeforeConnecting(
      fetcher({ lookup }).fetch(`https://files.example.test:${server.port}/doc.pdf`),
    );
  });
});

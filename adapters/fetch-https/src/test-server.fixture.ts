import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createPlainServer } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { generate } from "selfsigned";
import type { LookupFunction } from "./resolve-addresses.ts";

/** A request the test server received. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The SNI name the client sent, or false/null when it sent none. */
  servername: string | false | null;
}

export type Route = (request: IncomingMessage, response: ServerResponse, server: TestServer) => void;

export interface TestServer {
  readonly port: number;
  /** The server's self-signed certificate, PEM; pass it as `tls.ca` ("" for a plain http server). */
  readonly ca: string;
  /** TCP connections accepted so far. */
  connections: number;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/** A self-signed certificate for the given DNS names (and nothing else). */
export async function createCertificate(names: readonly string[]): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: "commonName", value: names[0] ?? "files.example.test" }], {
    keyType: "ec",
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: names.map((value) => ({ type: 2 as const, value })) },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}

/** An HTTPS server on 127.0.0.1 (random port) that answers by path; unknown paths get 404. */
export function startTestServer(
  certificate: { key: string; cert: string },
  routes: Readonly<Record<string, Route>>,
): Promise<TestServer> {
  return listen(createServer({ key: certificate.key, cert: certificate.cert }), certificate.cert, routes);
}

/** A plain http server on 127.0.0.1 (random port), as startTestServer; its requests have no SNI name. */
export function startPlainTestServer(routes: Readonly<Record<string, Route>>): Promise<TestServer> {
  return listen(createPlainServer(), "", routes);
}

async function listen(
  server: Server,
  ca: string,
  routes: Readonly<Record<string, Route>>,
): Promise<TestServer> {
  const state: TestServer = {
    port: 0,
    ca,
    connections: 0,
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on("connection", () => {
    state.connections += 1;
  });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? "/";
    state.requests.push({
      method: request.method ?? "",
      path,
      headers: request.headers,
      servername: (request.socket as TLSSocket).servername ?? null,
    });
    const route = routes[path.split("?")[0] ?? path];
    if (route) {
      route(request, response, state);
    } else {
      response.statusCode = 404;
      response.end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(state, { port: (server.address() as AddressInfo).port });
}

/**
 * A route that streams up to 64 MiB of body as fast as the client reads it. `closedEarly()` is the last response's
 * end: true when the connection closed before the body was complete (the client cut it off).
 */
export function endlessRoute(status = 200): { route: Route; closedEarly(): Promise<boolean> } {
  let closed: Promise<boolean> = Promise.resolve(false);
  const route: Route = (_request, response) => {
    closed = new Promise((resolve) => response.on("close", () => resolve(!response.writableFinished)));
    const chunk = Buffer.alloc(16 * 1024, 1);
    let sent = 0;
    response.writeHead(status);
    const pump = () => {
      while (!response.destroyed && sent < 64 * 1024 * 1024) {
        sent += chunk.length;
        if (!response.write(chunk)) {
          response.once("drain", pump);
          return;
        }
      }
      if (!response.destroyed) response.end();
    };
    pump();
  };
  return { route, closedEarly: () => closed };
}

/** A resolver from a table of names to IPv4 addresses; it records each name asked, and fails for any other. */
export function tableLookup(
  addresses: Readonly<Record<string, string>>,
  calls: string[] = [],
): LookupFunction {
  return async (hostname) => {
    calls.push(hostname);
    const address = addresses[hostname];
    if (address) return [{ address, family: 4 }];
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  };
}

import { randomBytes } from "node:crypto";
import { type LoopbackServer, serveOnLoopback } from "@mailpiece/conformance";
import type { MailpieceCore } from "@mailpiece/core";
import {
  createLogger,
  createServerApp,
  loadConfig,
  type RunningServer,
  startServer,
} from "@mailpiece/server";

/** The operator token of the fuzzed deployment: no answer may ever contain it. */
export const ADMIN_TOKEN = `fuzz-admin-${randomBytes(24).toString("base64url")}`;

/** Largest JSON body of the machine API here: small, so that bodies near and past it are cheap to send. */
export const MAX_BODY_BYTES = 256 * 1024;

/** The platform profile the UCP calls name, and the variants the profile server answers by path. */
export const PLATFORM_PROFILE = {
  ucp: {
    version: "2026-01-11",
    capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2026-01-11" }],
  },
};

/** Paths the loopback platform answers, each a different kind of profile (good, refused, broken). */
export const PROFILE_PATHS = [
  "/profile.json",
  "/older.json",
  "/not-ucp.json",
  "/bad-json",
  "/empty",
  "/missing",
  "/huge",
  "/html",
] as const;

function platformAnswer(path: string): Response {
  switch (path) {
    case "/profile.json":
      return Response.json(PLATFORM_PROFILE);
    case "/older.json":
      return Response.json({
        ucp: {
          version: "2025-10-01",
          capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2025-10-01" }],
        },
      });
    case "/not-ucp.json":
      return Response.json({ hello: "world" });
    case "/bad-json":
      return new Response('{"ucp": {"version": ', { headers: { "content-type": "application/json" } });
    case "/empty":
      return new Response("", { headers: { "content-type": "application/json" } });
    case "/huge":
      return new Response(`{"ucp":{"version":"2026-01-11","x":"${"x".repeat(300 * 1024)}"}}`, {
        headers: { "content-type": "application/json" },
      });
    case "/html":
      return new Response("<html>profile</html>", { headers: { "content-type": "text/html" } });
    default:
      return new Response("no such profile", { status: 404 });
  }
}

/** One answer of the deployment, read whole. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The media type without parameters, lower case ("" when absent). */
  type: string;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: unknown;
}

/** A request to send, as the properties generate it. */
export interface Call {
  method: string;
  /** Path and query, starting with "/". */
  path: string;
  headers?: [string, string][];
  body?: string | Uint8Array;
  /** The client's address (127.0.0.0/8), so that per-client limits can be spread; default 127.0.0.1. */
  ip?: string;
  /** Declare the body's length in Content-Length, as an HTTP client does (fetch in-process leaves it out). */
  contentLength?: boolean;
}

export interface FuzzServer {
  /** The public URL the app answers as (the loopback server started with it). */
  base: string;
  /** host:port of `base`: the Host header every in-process request carries. */
  host: string;
  core: MailpieceCore;
  /** The loopback platform serving UCP profiles, e.g. http://127.0.0.1:41234 */
  platform: string;
  /** How often each method, path and status came up (FUZZ_STATS=1 prints it when the file ends). */
  statuses: Map<string, number>;
  /** Sends a request to the in-process app and reads the answer. */
  send(call: Call): Promise<Answer>;
  /** Sends a ready Request to the in-process app (the MCP client's transport uses this). */
  fetch(request: Request): Promise<Response>;
  /** Every secret handed out so far: the admin token and each API key issued to the fuzzer. */
  secrets: Set<string>;
  /** A new workspace; its test key is recorded as a secret. */
  workspace(name?: string): Promise<{ id: string; test_api_key: string }>;
  /** Error-level log lines written since the last call (unexpected errors of the app). */
  takeErrors(): string[];
  close(): Promise<void>;
}

/**
 * The reference server as `mailpiece-server` starts it with STORE=memory (simulated rails, printer, florist and card
 * payments, the embedded address sample, an admin token, a loopback UCP platform admitted by UCP_PROFILE_HOSTS), and
 * a second app over the same core built with createServerApp, which the properties call in-process with app.fetch.
 * Limits per client are raised so that a fuzz run meets them only where it aims at them.
 */
export async function startFuzzServer(): Promise<FuzzServer> {
  const platform: LoopbackServer = await serveOnLoopback((request) =>
    platformAnswer(new URL(request.url).pathname),
  );
  const errors: string[] = [];
  const logger = createLogger("error", (line) => errors.push(line));
  const config = loadConfig({
    STORE: "memory",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "error",
    FULFILMENT_INTERVAL_MS: "0",
    ADMIN_TOKEN,
    UCP_PROFILE_HOSTS: new URL(platform.url).host,
    MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    UNPAID_ORDERS_PER_HOUR: "1000000",
    VALIDATE_PER_MINUTE: "100000000",
    MCP_REQUESTS_PER_MINUTE: "100000000",
    UPLOADS_PER_HOUR: "1000000",
    UPLOAD_BYTES_PER_HOUR: String(2 ** 50),
    PREVIEW_SECRET: randomBytes(32).toString("base64url"),
  });
  let running: RunningServer;
  try {
    running = await startServer(config, logger);
  } catch (error) {
    await platform.close();
    throw error;
  }
  const base = running.url;
  const host = new URL(base).host;
  const app = createServerApp(running.core, {
    publicUrl: base,
    maxBodyBytes: config.maxBodyBytes,
    maxInflightBodyBytes: config.maxInflightBodyBytes,
    logger,
    version: "fuzz",
    mcpRequestsPerMinute: config.mcpRequestsPerMinute,
    adminToken: ADMIN_TOKEN,
    ucp: { profileHosts: config.ucp.profileHosts },
  });
  const secrets = new Set<string>([ADMIN_TOKEN]);

  const fetchApp = async (request: Request): Promise<Response> => {
    if (!request.headers.has("host")) {
      const headers = new Headers(request.headers);
      headers.set("host", host);
      request = new Request(request, { headers });
    }
    return app.fetch(request);
  };

  const send = async (call: Call): Promise<Answer> => {
    const headers = new Headers();
    let hasHost = false;
    for (const [name, value] of call.headers ?? []) {
      headers.append(name, value);
      if (name.toLowerCase() === "host") hasHost = true;
    }
    if (!hasHost) headers.set("host", host);
    if (call.contentLength && call.body !== undefined && !headers.has("content-length")) {
      const length = typeof call.body === "string" ? Buffer.byteLength(call.body) : call.body.byteLength;
      headers.set("content-length", String(length));
    }
    const bodyless = call.method === "GET" || call.method === "HEAD";
    const request = new Request(`${base}${call.path}`, {
      method: call.method,
      headers,
      ...(bodyless || call.body === undefined ? {} : { body: call.body }),
    });
    // srvx gives each request the peer's address as `ip`; h3 reads the client key from it.
    Object.defineProperty(request, "ip", { value: call.ip ?? "127.0.0.1" });
    const response = await app.fetch(request);
    const text = await readText(response);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    let json: unknown;
    if (type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, type, text, json };
  };

  const statuses = new Map<string, number>();
  const sendCounted = async (call: Call): Promise<Answer> => {
    const answer = await send(call);
    const route = call.path
      .split("?")[0]!
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}|(doc|qt)_[0-9a-f]{32}/gi, "{id}")
      .slice(0, 60);
    const key = `${call.method} ${route} -> ${answer.status}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    return answer;
  };

  return {
    base,
    host,
    statuses,
    core: running.core,
    platform: platform.url,
    send: sendCounted,
    fetch: fetchApp,
    secrets,
    async workspace(name = "Fuzz Mailroom") {
      const made = await running.core.workspaces.create(name);
      secrets.add(made.test_api_key);
      return { id: made.id, test_api_key: made.test_api_key };
    },
    takeErrors() {
      return errors.splice(0, errors.length);
    },
    async close() {
      if (process.env.FUZZ_STATS) {
        const lines = [...statuses]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${String(n).padStart(5)} ${k}`);
        console.log(lines.join("\n"));
      }
      await app.close();
      await running.close();
      await platform.close();
    },
  };
}

/**
 * The body of an answer as text. An event stream that stays open (an MCP session's GET stream) is read for at most
 * half a second, then cancelled: what it said by then is the answer.
 */
async function readText(response: Response): Promise<string> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream") || !response.body) return response.text();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 500;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    let timer: NodeJS.Timeout | undefined;
    const next = await Promise.race([
      reader.read(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), left);
      }),
    ]);
    clearTimeout(timer);
    if (next === undefined || next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

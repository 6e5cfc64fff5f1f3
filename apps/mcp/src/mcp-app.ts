import type { MailpieceCore } from "@mailpiece/core";
import { createLocalRateLimiter } from "@mailpiece/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { H3Event } from "h3";
import { getRequestIP, H3 } from "h3";
import { isToolCall, surfaceRateLimit } from "./tool-rate-limit.ts";

/** How an MCP server is served over streamable HTTP (see createMcpHttpApp). */
export interface McpHttpOptions {
  /** Absolute base URL of the deployment: its host (and origin) are the only ones the endpoint answers. */
  publicUrl: string;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you trust). */
  trustProxy?: boolean;
  /** More Host values to answer besides the public URL's (host or host:port), e.g. a load balancer's name. */
  allowedHosts?: string[];
  /** Requests to the endpoint one client may send per minute (default 600); past it: 429 with Retry-After. */
  requestsPerMinute?: number;
  /** Open sessions at most (default 1000); past it a new session is refused with 503. */
  maxSessions?: number;
  /** A session unused this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Called with every unexpected error; never with request bodies. */
  onUnexpectedError?: (error: unknown) => void;
}

export interface McpAppOptions extends McpHttpOptions {
  version: string;
}

/** An MCP app over streamable HTTP: an h3 app whose close() ends every open session. */
export type McpHttpApp = H3 & { close(): Promise<void> };

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
}

const SESSION_HEADER = "mcp-session-id";

/**
 * The agent tools (spec 1) at /mcp, over createMcpHttpApp. The tool server's module loads with the first session,
 * so a deployment whose agents never call it does not hold it.
 */
export function createMcpApp(core: MailpieceCore, options: McpAppOptions): McpHttpApp {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  return createMcpHttpApp(
    "/mcp",
    async () =>
      (await import("./mcp-server.ts")).createToolServer(
        (clientKey) => ({ core, publicUrl, clientKey, version: options.version }),
        { version: options.version },
      ),
    options,
  );
}

/**
 * Serves MCP servers over the streamable HTTP transport at `path`: POST for JSON-RPC, GET for the server's SSE
 * stream, DELETE to end a session. Each session gets its own server from `createServer`, which is given the
 * caller's client key (also passed to every request handler as `extra.authInfo.clientId`). Requests whose Host (or
 * Origin) is not the deployment's own are refused (DNS rebinding); a client past its request budget, or a tool call
 * answered with a rate-limited JSON-RPC error (see tool-rate-limit.ts), gets 429 with Retry-After and a JSON-RPC
 * error body. The MCP SDK loads with the first request.
 */
export function createMcpHttpApp(
  path: string,
  createServer: (clientKey: string) => Server | Promise<Server>,
  options: McpHttpOptions,
): McpHttpApp {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const own = new URL(publicUrl);
  const hosts = new Set([
    own.host.toLowerCase(),
    ...(options.allowedHosts ?? []).map((h) => h.toLowerCase()),
  ]);
  const limiter = createLocalRateLimiter({ limit: options.requestsPerMinute ?? 600, windowMs: 60_000 });
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const sessions = new Map<string, Session>();
  const sdk = loadSdk();
  const clientKeyOf = (event: H3Event) =>
    getRequestIP(event, { xForwardedFor: options.trustProxy === true }) ?? "unknown";

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) {
        if (now - session.lastUsed > idleMs) {
          sessions.delete(id);
          session.transport.close().catch(() => {});
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  const handle = async (event: H3Event): Promise<Response> => {
    const request = event.req;
    const refusal = checkOrigin(request, hosts, own.origin);
    if (refusal) return refusal;
    const clientKey = clientKeyOf(event);
    const rate = limiter.consume(clientKey, Date.now());
    if (!rate.allowed) {
      return rpcError(429, -32000, "Too many requests to /mcp; slow down.", {
        "retry-after": String(rate.retryAfterSeconds),
      });
    }
    const transports = await sdk;
    const authInfo = { token: "", clientId: clientKey, scopes: [] };
    const sessionId = request.headers.get(SESSION_HEADER);
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) return rpcError(404, -32001, "Session not found: initialize a new session.");
      session.lastUsed = Date.now();
      if (request.method !== "POST") return session.transport.handleRequest(request, { authInfo });
      const parsed = await jsonBody(request);
      if (!parsed.ok) return parsed.refusal;
      const misfit = transports.paramsMisfit(parsed.body);
      if (misfit) return misfit;
      const answer = await session.transport.handleRequest(request, { parsedBody: parsed.body, authInfo });
      return isToolCall(parsed.body) ? surfaceRateLimit(answer) : answer;
    }
    if (request.method !== "POST") {
      return rpcError(400, -32000, "Bad Request: no mcp-session-id; initialize a session with a POST first.");
    }
    const parsed = await jsonBody(request);
    if (!parsed.ok) return parsed.refusal;
    const body = parsed.body;
    const misfit = transports.paramsMisfit(body);
    if (misfit) return misfit;
    if (!transports.isInitialize(body)) {
      return rpcError(
        400,
        -32000,
        "Bad Request: no mcp-session-id; the first request of a session is initialize.",
      );
    }
    if (sessions.size >= maxSessions) {
      return rpcError(503, -32000, "Too many open sessions; try again shortly.", { "retry-after": "5" });
    }
    const transport: WebStandardStreamableHTTPServerTransport = new transports.Transport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await (await createServer(clientKey)).connect(transport);
    return transport.handleRequest(request, { parsedBody: body, authInfo });
  };

  const app = new H3({
    onError: (error) => {
      options.onUnexpectedError?.(error);
      return rpcError(500, -32603, "Internal error.");
    },
  });
  app.all(path, handle);
  return Object.assign(app, {
    async close() {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.transport.close()));
    },
  });
}

/** The MCP SDK's transport, loaded once, on the first request. */
async function loadSdk() {
  const [{ WebStandardStreamableHTTPServerTransport }, { isInitializeRequest, ClientRequestSchema }] =
    await Promise.all([
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
  const requests = new Map<string, { safeParse(value: unknown): { success: boolean; error?: unknown } }>(
    ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
  );
  /**
   * A request of a method MCP defines whose params do not fit it, answered as invalid params (-32602) with the
   * request's id; undefined for anything else. The SDK's server would answer such a request with internal error
   * (-32603), as if it had failed.
   */
  const paramsMisfit = (body: unknown): Response | undefined => {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
    const { method, id } = body as { method?: unknown; id?: unknown };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) return undefined;
    const schema = requests.get(method);
    const parsed = schema?.safeParse(body);
    if (!parsed || parsed.success) return undefined;
    const issues =
      (parsed.error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues ?? [];
    const detail = issues
      .slice(0, 5)
      .map((issue) => `${issue.path.map(String).join(".") || "(request)"}: ${issue.message}`)
      .join("; ");
    return Response.json(
      { jsonrpc: "2.0", id, error: { code: -32602, message: `Invalid params for ${method}: ${detail}` } },
      { status: 200 },
    );
  };
  return {
    Transport: WebStandardStreamableHTTPServerTransport,
    isInitialize: isInitializeRequest,
    paramsMisfit,
  };
}

async function jsonBody(
  request: Request,
): Promise<{ ok: true; body: unknown } | { ok: false; refusal: Response }> {
  try {
    return { ok: true, body: await request.json() };
  } catch {
    return { ok: false, refusal: rpcError(400, -32700, "Parse error: the body is not JSON.") };
  }
}

/** 403 for a Host that is not the deployment's, or an Origin from another site (DNS rebinding); else undefined. */
function checkOrigin(request: Request, hosts: Set<string>, origin: string): Response | undefined {
  const host = (request.headers.get("host") ?? "").toLowerCase();
  if (!hosts.has(host)) return rpcError(403, -32000, `Forbidden: ${host || "no"} Host is not this server's.`);
  const from = request.headers.get("origin");
  if (from !== null && from !== origin && !hosts.has(hostOf(from))) {
    return rpcError(403, -32000, "Forbidden: requests from another origin are not accepted.");
  }
  return undefined;
}

function hostOf(origin: string): string {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return "";
  }
}

/** A JSON-RPC error answered before any message is read (its id is null). */
function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

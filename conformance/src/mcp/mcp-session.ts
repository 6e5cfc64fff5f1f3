import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { HttpTarget } from "../machine/http-target.ts";

/**
 * The base of the URL the MCP client is given. It is never contacted: every request the client makes goes through
 * the target with the URL's path and query (`.invalid` is a reserved top-level domain).
 */
const NOWHERE = "http://mcp-target.invalid";

/** The client name a conformance run introduces itself with. */
const CLIENT_INFO = { name: "mailpiece-conformance", version: "1.0.0" };

/** The answers a JSON-RPC request at an MCP endpoint needs to accept: JSON and server-sent events. */
export const MCP_ACCEPT = "application/json, text/event-stream";

/** An MCP session opened through a target with the MCP SDK's client. */
export interface McpSession {
  client: Client;
  /** The mcp-session-id the server assigned at initialize, if any. */
  sessionId: string | undefined;
  /** The tools the server listed at the start of the session. */
  tools: Tool[];
  /**
   * Calls a tool, with `meta` as the request's `_meta`. Resolves the tool's result (an `isError` result included);
   * rejects with the JSON-RPC error of a refused call. A result whose structured content does not fit the tool's
   * listed output schema is refused by the client.
   */
  call(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<CallToolResult>;
}

/** The fetch the MCP client uses: each request goes to the target, at the path (and query) of its URL. */
function targetFetch(target: HttpTarget) {
  return (url: string | URL, init?: RequestInit): Promise<Response> => {
    const parsed = new URL(url);
    return target.fetch(`${parsed.pathname}${parsed.search}`, init);
  };
}

/**
 * Opens an MCP session at `path` of the target (initialize, then tools/list), runs `body` with it, then ends the
 * session (DELETE) and closes the client, whatever `body` did. A failure to end the session does not hide the
 * outcome of `body`.
 */
export async function withMcpSession<T>(
  target: HttpTarget,
  path: string,
  body: (session: McpSession) => Promise<T>,
): Promise<T> {
  const transport = new StreamableHTTPClientTransport(new URL(path, NOWHERE), { fetch: targetFetch(target) });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return await body({
      client,
      sessionId: transport.sessionId,
      tools,
      call: async (name, args = {}, meta) =>
        (await client.callTool({
          name,
          arguments: args,
          ...(meta === undefined ? {} : { _meta: meta }),
        })) as CallToolResult,
    });
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

/** The text parts of a tool result, joined by newlines. */
export function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/**
 * Sends one JSON-RPC message to an MCP endpoint outside the SDK's client, with the headers a client sends (and
 * `mcp-session-id` when given), for the checks of the transport's own answers.
 */
export function postRpc(
  target: HttpTarget,
  path: string,
  message: Record<string, unknown>,
  sessionId?: string,
): Promise<Response> {
  return target.fetch(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: MCP_ACCEPT,
      ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", ...message }),
  });
}

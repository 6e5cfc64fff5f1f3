import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { HttpTarget } from "../machine/http-target.ts";
import { postRpc, textOf, withMcpSession } from "./mcp-session.ts";

/** An in-process MCP endpoint with one tool, `echo`, that answers its arguments and `_meta`; it logs every request. */
function echoEndpoint() {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const requests: string[] = [];
  const target: HttpTarget = {
    label: "echo",
    async fetch(path, init) {
      const request = new Request(`http://127.0.0.1${path}`, init);
      requests.push(`${request.method} ${path}`);
      const id = request.headers.get("mcp-session-id");
      if (id) {
        const session = sessions.get(id);
        return session ? session.handleRequest(request) : new Response(null, { status: 404 });
      }
      const transport: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, transport);
          },
          onsessionclosed: (sessionId) => {
            sessions.delete(sessionId);
          },
        });
      const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: "echo", inputSchema: { type: "object" } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (call) => ({
        content: [
          { type: "text", text: JSON.stringify({ args: call.params.arguments, meta: call.params._meta }) },
        ],
      }));
      await server.connect(transport);
      return transport.handleRequest(request);
    },
  };
  return { target, requests, sessions };
}

describe("an MCP session through a target", () => {
  it("sends every request through the target at the endpoint's path, and ends the session with DELETE", async () => {
    const endpoint = echoEndpoint();
    const answer = await withMcpSession(endpoint.target, "/agents/mcp", async (session) => {
      expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(endpoint.sessions.has(session.sessionId!)).toBe(true);
      expect(session.tools.map((tool) => tool.name)).toEqual(["echo"]);
      return JSON.parse(
        textOf(await session.call("echo", { a: 1 }, { ucp: { profile: "https://p.example/x" } })),
      );
    });
    expect(answer).toEqual({ args: { a: 1 }, meta: { ucp: { profile: "https://p.example/x" } } });
    expect(endpoint.requests.every((request) => request.endsWith(" /agents/mcp"))).toBe(true);
    expect(endpoint.requests[0]).toBe("POST /agents/mcp");
    expect(endpoint.requests).toContain("DELETE /agents/mcp");
    expect(endpoint.sessions.size).toBe(0);
  });

  it("ends the session when the body fails, and passes the failure on", async () => {
    const endpoint = echoEndpoint();
    await expect(
      withMcpSession(endpoint.target, "/mcp", async () => {
        throw new Error("the check failed");
      }),
    ).rejects.toThrow("the check failed");
    expect(endpoint.requests).toContain("DELETE /mcp");
    expect(endpoint.sessions.size).toBe(0);
  });

  it("posts a raw JSON-RPC message with the session id when given", async () => {
    const endpoint = echoEndpoint();
    const response = await postRpc(
      endpoint.target,
      "/mcp",
      { id: 1, method: "tools/list" },
      "no-such-session",
    );
    expect(response.status).toBe(404);
    expect(endpoint.requests).toEqual(["POST /mcp"]);
  });
});

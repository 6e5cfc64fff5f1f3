/** What a fake deployment declares, for the discovery and CLI tests. */
export interface FakeDeployment {
  /** Paths of /openapi.json; absent: 404. */
  openapiPaths?: string[];
  /** Resources of /.well-known/x402; absent: 404. */
  x402Resources?: string[];
  /** Capability names of /.well-known/ucp; absent: 404. */
  ucpCapabilities?: string[];
  /** Tools listed at /mcp (answered as SSE, as the reference server does); absent: 404. */
  mcpTools?: string[];
  /** A string every other answer carries, to check that reports hide what they must. */
  leak?: string;
}

const sse = (message: unknown, headers: Record<string, string> = {}) =>
  new Response(`event: message\ndata: ${JSON.stringify(message)}\n\n`, {
    headers: { "content-type": "text/event-stream", ...headers },
  });

/** A fetch handler that answers discovery as `fake` says, and 404 with a JSON error for the rest. */
export function fakeDeployment(fake: FakeDeployment): (request: Request) => Promise<Response> {
  return async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/openapi.json" && fake.openapiPaths) {
      const paths = Object.fromEntries(
        fake.openapiPaths.map((p) => [p, { get: { responses: { "200": { description: "ok" } } } }]),
      );
      return Response.json({ openapi: "3.1.0", info: { title: "fake", version: "1" }, paths });
    }
    if (path === "/.well-known/x402" && fake.x402Resources) {
      return Response.json({ version: 1, resources: fake.x402Resources });
    }
    if (path === "/.well-known/ucp" && fake.ucpCapabilities) {
      return Response.json({
        ucp: { version: "2026-01-11", capabilities: fake.ucpCapabilities.map((name) => ({ name })) },
      });
    }
    if (path === "/mcp" && fake.mcpTools) {
      if (request.method === "DELETE") return new Response(null, { status: 200 });
      const call = (await request.json()) as { id?: number; method: string };
      if (call.method === "initialize") {
        const result = {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "fake" },
        };
        return sse({ jsonrpc: "2.0", id: call.id, result }, { "mcp-session-id": "session-1" });
      }
      if (request.headers.get("mcp-session-id") !== "session-1") return new Response(null, { status: 400 });
      if (call.method === "notifications/initialized") return new Response(null, { status: 202 });
      if (call.method === "tools/list") {
        const tools = fake.mcpTools.map((name) => ({ name, inputSchema: { type: "object" } }));
        return sse({ jsonrpc: "2.0", id: call.id, result: { tools } });
      }
    }
    return Response.json({ error: "not_found", message: `nothing here ${fake.leak ?? ""}` }, { status: 404 });
  };
}

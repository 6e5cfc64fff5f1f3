import type { HttpTarget } from "../machine/http-target.ts";
import type { SurfaceDiscovery, SurfaceName } from "./surfaces.ts";

type Json = Record<string, unknown>;

/** The MCP protocol version the discovery speaks. */
const MCP_PROTOCOL_VERSION = "2025-06-18";

/**
 * Asks a deployment which surfaces it declares, the way a client finds them:
 * - machine: paths under /api/machine/ in GET /openapi.json (or, without a description, resources in GET
 *   /.well-known/x402);
 * - v1: paths under /api/v1/ in GET /openapi.json;
 * - ucp: a `ucp` profile at GET /.well-known/ucp;
 * - mcp: at least one tool in `tools/list` after `initialize` at POST /mcp (the session is ended with DELETE).
 * Never throws for a surface that is missing or answers badly: that surface is not declared, with the reason.
 */
export async function discoverSurfaces(target: HttpTarget, mcpPath = "/mcp"): Promise<SurfaceDiscovery[]> {
  const [openapi, x402, ucp, mcp] = await Promise.all([
    getJson(target, "/openapi.json"),
    getJson(target, "/.well-known/x402"),
    getJson(target, "/.well-known/ucp"),
    mcpTools(target, mcpPath),
  ]);
  const paths =
    typeof openapi.json?.paths === "object" && openapi.json.paths ? Object.keys(openapi.json.paths) : [];
  const under = (prefix: string) => paths.filter((path) => path.startsWith(prefix)).length;
  const inOpenapi = (surface: SurfaceName, prefix: string): SurfaceDiscovery => {
    const count = under(prefix);
    return count > 0
      ? { surface, declared: true, evidence: `${count} paths under ${prefix} in /openapi.json` }
      : {
          surface,
          declared: false,
          evidence: openapi.why
            ? `no OpenAPI description (${openapi.why})`
            : `none of the ${paths.length} paths in /openapi.json is under ${prefix}`,
        };
  };

  let machine = inOpenapi("machine", "/api/machine/");
  const resources = Array.isArray(x402.json?.resources) ? x402.json.resources.length : 0;
  if (machine.declared && resources > 0) machine.evidence += `; ${resources} resources in /.well-known/x402`;
  if (!machine.declared && resources > 0) {
    machine = { surface: "machine", declared: true, evidence: `${resources} resources in /.well-known/x402` };
  }

  const profile = ucp.json?.ucp as { capabilities?: unknown } | undefined;
  const capabilities = Array.isArray(profile?.capabilities)
    ? (profile.capabilities as { name?: unknown }[]).map((c) => String(c?.name)).join(", ")
    : "";
  const ucpFound: SurfaceDiscovery =
    typeof profile === "object" && profile !== null
      ? {
          surface: "ucp",
          declared: true,
          evidence: `/.well-known/ucp profile${capabilities ? `: ${capabilities}` : ""}`,
        }
      : { surface: "ucp", declared: false, evidence: `/.well-known/ucp: ${ucp.why ?? "no ucp profile"}` };

  const mcpFound: SurfaceDiscovery =
    mcp.tools.length > 0
      ? { surface: "mcp", declared: true, evidence: `${mcp.tools.length} tools at ${mcpPath}` }
      : { surface: "mcp", declared: false, evidence: `${mcpPath}: ${mcp.why ?? "no tools"}` };

  return [machine, mcpFound, ucpFound, inOpenapi("v1", "/api/v1/")];
}

async function getJson(target: HttpTarget, path: string): Promise<{ json?: Json; why?: string }> {
  try {
    const res = await target.fetch(path, { headers: { accept: "application/json" } });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { why: `GET ${path} answered ${res.status}` };
    }
    const json = (await res.json()) as unknown;
    return typeof json === "object" && json !== null
      ? { json: json as Json }
      : { why: `GET ${path} is not an object` };
  } catch (error) {
    return { why: `GET ${path} failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The tools an MCP server at `path` lists, over the streamable HTTP transport (answers in JSON or SSE). */
async function mcpTools(target: HttpTarget, path: string): Promise<{ tools: string[]; why?: string }> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  const post = (body: Json, extra: Record<string, string> = {}) =>
    target.fetch(path, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) });
  try {
    const opened = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: MCP_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "mailpiece-conformance", version: "1" },
      },
    });
    const initialized = await rpcResult(opened, 1);
    if (!initialized.result) return { tools: [], why: `initialize: ${initialized.why}` };
    const session = opened.headers.get("mcp-session-id");
    const later: Record<string, string> = {
      "mcp-protocol-version": String(initialized.result.protocolVersion ?? MCP_PROTOCOL_VERSION),
      ...(session ? { "mcp-session-id": session } : {}),
    };
    try {
      const notified = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, later);
      await notified.body?.cancel();
      const listed = await rpcResult(await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, later), 2);
      if (!listed.result) return { tools: [], why: `tools/list: ${listed.why}` };
      const tools = Array.isArray(listed.result.tools) ? (listed.result.tools as { name?: unknown }[]) : [];
      return { tools: tools.map((tool) => String(tool?.name)) };
    } finally {
      if (session) {
        const ended = await target.fetch(path, { method: "DELETE", headers: later }).catch(() => undefined);
        await ended?.body?.cancel();
      }
    }
  } catch (error) {
    return { tools: [], why: `failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The `result` of the JSON-RPC answer with `id`, read from a JSON body or from the events of an SSE stream. */
async function rpcResult(res: Response, id: number): Promise<{ result?: Json; why?: string }> {
  if (res.status !== 200) {
    await res.body?.cancel();
    return { why: `answered ${res.status}` };
  }
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const messages: unknown[] = [];
  try {
    if (type.includes("text/event-stream")) {
      for (const event of text.split(/\r?\n\r?\n/)) {
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        if (data) messages.push(JSON.parse(data));
      }
    } else {
      messages.push(...([] as unknown[]).concat(JSON.parse(text)));
    }
  } catch {
    return { why: "the answer is not JSON-RPC" };
  }
  const answer = messages.find((m) => (m as Json | null)?.id === id) as Json | undefined;
  if (!answer) return { why: "no answer to the request" };
  if (typeof answer.result !== "object" || answer.result === null) {
    return { why: `error ${JSON.stringify(answer.error ?? null).slice(0, 200)}` };
  }
  return { result: answer.result as Json };
}

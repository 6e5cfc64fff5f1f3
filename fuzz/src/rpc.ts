import type { CoreErrorCode } from "@mailpiece/core";
import { RATE_LIMITED_RPC_CODE } from "@mailpiece/mcp";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Answer, FuzzServer } from "./harness.ts";
import { fieldNames, type Schema } from "./schema-arbitrary.ts";

/**
 * JSON-RPC error codes the MCP endpoints (/mcp, /ucp/mcp) may answer with: parse error, invalid request, method not
 * found, invalid params, the transport's refusals (-32000: no session, another host or origin, too many sessions or
 * requests), an unknown session (-32001, also UCP's failed discovery) and a call past a per-client limit. Internal
 * error (-32603) is not among them: it is what an unexpected failure becomes.
 */
export const RPC_CODES: ReadonlySet<number> = new Set([
  -32700,
  -32600,
  -32601,
  -32602,
  -32000,
  -32001,
  RATE_LIMITED_RPC_CODE,
]);

/** Every code of the core's errors (CoreErrorCode), which a tool's failure text begins with. */
export const CORE_ERROR_CODES = [
  "validation_failed",
  "request_id_conflict",
  "rate_limited",
  "not_found",
  "unauthorized",
  "forbidden",
  "permission_denied",
  "approval_required",
  "idempotency_key_required",
  "insufficient_credits",
  "payment_method_required",
  "preview_link_invalid",
  "upload_token_invalid",
  "upload_token_expired",
  "upload_already_filled",
  "upload_too_large",
  "upload_not_pdf",
  "invalid_query",
  "payment_rail_unavailable",
  "florist_unavailable",
  "address_search_unavailable",
  "checkout_expired",
  "checkout_canceled",
  "checkout_completed",
  "state_conflict",
  "service_busy",
  "storage_unavailable",
  "internal_error",
] as const satisfies readonly CoreErrorCode[];

/** Fails to compile when the core gains a code this list lacks. */
export const CORE_CODES_COMPLETE: Exclude<CoreErrorCode, (typeof CORE_ERROR_CODES)[number]> extends never
  ? true
  : false = true;

/** The JSON-RPC messages of an answer: its JSON body, or the data lines of its event stream. */
export function rpcMessages(answer: Answer): unknown[] {
  if (answer.type === "text/event-stream") {
    return answer.text
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => {
        try {
          return JSON.parse(line.slice(5).trim()) as unknown;
        } catch {
          return { unparsable: line };
        }
      });
  }
  if (answer.json === undefined) return [];
  return Array.isArray(answer.json) ? answer.json : [answer.json];
}

/** An MCP client of the SDK, connected to `path` of the in-process app. */
export async function connectClient(server: FuzzServer, path: "/mcp" | "/ucp/mcp"): Promise<Client> {
  const client = new Client({ name: "mailpiece-fuzz", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.base}${path}`), {
      fetch: (url, init) => server.fetch(new Request(url, init)),
    }),
  );
  return client;
}

/**
 * The field names a machine order may be refused at: every property of the machine API's request schemas, and the
 * field ids of every published workflow form (an order's form.fields are checked against the form's own schema).
 */
export async function machineFieldNames(server: FuzzServer, into = new Set<string>()): Promise<Set<string>> {
  const doc = (await server.send({ method: "GET", path: "/openapi.json" })).json as Schema;
  for (const item of Object.values(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const op of Object.values(item)) {
      const content = ((op.requestBody as Schema | undefined)?.content ?? {}) as Record<
        string,
        { schema: Schema }
      >;
      for (const media of Object.values(content)) fieldNames(media.schema, doc, into);
      for (const parameter of (op.parameters as { name: string }[] | undefined) ?? [])
        into.add(parameter.name);
    }
  }
  const forms = await server.send({ method: "GET", path: "/api/machine/forms?limit=200" });
  for (const form of (forms.json as { forms: { slug: string }[] }).forms) {
    const schema = await server.send({ method: "GET", path: `/api/machine/forms/${form.slug}/schema` });
    collectNames(schema.json, into);
  }
  return into;
}

/** Every `id` value and every object key of a document: the names its fields go by. */
export function collectNames(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) collectNames(item, into);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      if (key === "id" && typeof item === "string") into.add(item);
      collectNames(item, into);
    }
  }
}

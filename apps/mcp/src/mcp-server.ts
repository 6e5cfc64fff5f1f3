import { CoreError } from "@mailpiece/core";
import {
  createSchemaCheck,
  formatPath,
  type Issue,
  MAX_JSON_DEPTH,
  pathSegments,
  type SchemaCheck,
  tooDeepPath,
} from "@mailpiece/orders";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { TOOLS } from "./catalog.ts";
import { RATE_LIMITED, RATE_LIMITED_RPC_CODE } from "./tool-rate-limit.ts";
import type { ToolContext, ToolDefinition } from "./tools.ts";
import { ToolFailure } from "./tools.ts";

/** The checks of every tool's arguments, compiled once per process. */
const checks = new Map<string, SchemaCheck>(
  TOOLS.map((tool) => [tool.name, createSchemaCheck(tool.inputSchema)]),
);

/**
 * One MCP server (one per session): it lists the tools with their input and output schemas and annotations, and runs
 * a call through the core. Arguments that do not fit a tool's schema, and every refusal of the core, answer a tool
 * result with `isError: true` and a text that names the field and says what to change, so that a model can correct
 * itself; an unknown tool is a JSON-RPC error (invalid params), and so is a call past one of the core's per-client
 * limits (code RATE_LIMITED_RPC_CODE, `data: {error: "rate_limited", retry_after_seconds}`).
 */
export function createToolServer(
  context: (clientKey: string) => ToolContext,
  info: { version: string },
): Server {
  const server = new Server(
    { name: "mailpiece", title: "Mailpiece", version: info.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "Mailpiece prints and mails letters and postcards. Pay per order with svc.create_machine_order (x402 or MPP), follow it with svc.get_order_status. Forms: svc.list_forms, then svc.get_form_schema.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((tool) => ({
      name: tool.name,
      title: tool.annotations.title,
      description: tool.description,
      inputSchema: jsonSchema(tool.inputSchema),
      outputSchema: jsonSchema(tool.outputSchema),
      annotations: tool.annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS.find((candidate) => candidate.name === request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. The tools are ${TOOLS.map((t) => t.name).join(", ")}.`,
      );
    }
    // The HTTP app passes the caller's client key (its IP) as the request's auth info.
    return callTool(tool, request.params.arguments ?? {}, context(extra.authInfo?.clientId ?? "unknown"));
  });
  return server;
}

/** Runs one tool: its answer as structured content and a text copy, or a readable failure. */
export async function callTool(
  tool: ToolDefinition,
  args: unknown,
  ctx: ToolContext,
): Promise<CallToolResult> {
  const deep = tooDeepPath(args);
  if (deep !== undefined) {
    return failure(
      `The arguments of ${tool.name} nest deeper than ${MAX_JSON_DEPTH} levels:\n${lines([{ path: deep, code: "too_deep", message: `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays.` }])}`,
    );
  }
  const issues = checks.get(tool.name)?.(args) ?? [];
  if (issues.length > 0)
    return failure(`The arguments of ${tool.name} do not fit its schema:\n${lines(issues)}`);
  try {
    const result = await tool.run(ctx, args as never);
    return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }], structuredContent: result };
  } catch (error) {
    if (error instanceof ToolFailure) return failure(error.message, error.structured);
    if (CoreError.isInstance(error) && error.code === "rate_limited") {
      // Past a per-client limit of spec 1: a JSON-RPC error, which the HTTP app answers with 429 and Retry-After.
      const seconds = error.retryAfterSeconds ?? 1;
      throw new McpError(RATE_LIMITED_RPC_CODE, `${tool.name}: ${error.message}`, {
        error: RATE_LIMITED,
        retry_after_seconds: seconds,
      });
    }
    if (CoreError.isInstance(error)) return failure(coreMessage(tool, error));
    throw error;
  }
}

function coreMessage(tool: ToolDefinition, error: CoreError): string {
  const issues = error.issues ?? [];
  const detail =
    issues.length > 0
      ? `\n${lines(issues.map((issue) => ({ ...issue, path: orderPath(tool, issue.path) })))}`
      : "";
  const retry = error.retryAfterSeconds === undefined ? "" : ` Try again in ${error.retryAfterSeconds} s.`;
  return `${error.code}: ${error.message}${retry}${detail}`;
}

/**
 * An order's field, as the caller named it: inside `order` for svc.create_machine_order; at the top level for the
 * form draft, whose slug, fields and attachments are the order's `form`.
 */
function orderPath(tool: ToolDefinition, path: string): string {
  if (tool.name === "svc.create_machine_order") return formatPath(["order", ...pathSegments(path)]);
  if (tool.name === "svc.create_form_order_draft") {
    const [first, ...rest] = pathSegments(path);
    if (first === "form" && rest.length > 0) return formatPath(rest);
  }
  return path;
}

function lines(issues: readonly Issue[]): string {
  return issues
    .map((issue) => `- ${issue.path || "(arguments)"}: ${issue.message} [${issue.code}]`)
    .join("\n");
}

function failure(text: string, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text }],
    isError: true,
    ...(structured ? { structuredContent: structured } : {}),
  };
}

/** A TypeBox schema as plain JSON Schema (TypeBox schemas are JSON Schema with symbol-keyed extras). */
function jsonSchema(schema: unknown): { type: "object"; [key: string]: unknown } {
  return JSON.parse(JSON.stringify(schema)) as { type: "object"; [key: string]: unknown };
}

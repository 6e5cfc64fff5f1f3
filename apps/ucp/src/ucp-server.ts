import type { MailpieceCore } from "@mailpiece/core";
import { CoreError } from "@mailpiece/core";
import { RATE_LIMITED, RATE_LIMITED_RPC_CODE } from "@mailpiece/mcp";
import { createSchemaCheck, MAX_JSON_DEPTH, type SchemaCheck, tooDeepPath } from "@mailpiece/orders";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { ucpCheckouts } from "./checkouts.ts";
import { jsonPath, UcpError } from "./errors.ts";
import { negotiate, type ProfileResolver } from "./platform-profile.ts";
import { checkoutObject, type RenderContext } from "./render.ts";
import { UCP_TOOL_LIST } from "./tools.ts";

const checks = new Map<string, SchemaCheck>(
  UCP_TOOL_LIST.map((tool) => [tool.name, createSchemaCheck(tool.inputSchema)]),
);

/** What every checkout answer has, for clients that check structured content. */
const CheckoutOutput = {
  type: "object",
  required: ["ucp", "id", "status", "currency", "line_items", "totals", "links"],
  properties: {
    ucp: { type: "object" },
    id: { type: "string" },
    status: {
      enum: [
        "incomplete",
        "requires_escalation",
        "ready_for_complete",
        "complete_in_progress",
        "completed",
        "canceled",
      ],
    },
  },
  additionalProperties: true,
} as const;

export interface UcpServerContext {
  core: MailpieceCore;
  profiles: ProfileResolver;
  render: RenderContext;
  version: string;
  onUnexpectedError?: (error: unknown) => void;
}

/**
 * One MCP server (one per session) with the five checkout tools. Each call resolves the platform profile named by
 * `_meta.ucp.profile` and negotiates first, then checks the arguments against the tool's schema, then runs.
 */
export function createUcpToolServer(ctx: UcpServerContext, clientKey: string): Server {
  const checkouts = ucpCheckouts(ctx.core);
  const server = new Server(
    { name: "mailpiece-ucp", title: "Mailpiece UCP checkout", version: ctx.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "UCP checkout (2026-01-11) for mailed PDFs: create_checkout, update_checkout, complete_checkout with a shared payment token, get_checkout, cancel_checkout. Find address ids with svc.search_addresses and upload PDFs with svc.create_pdf_upload at /mcp.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: UCP_TOOL_LIST.map((tool) => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: JSON.parse(JSON.stringify(tool.inputSchema)),
      outputSchema: CheckoutOutput as unknown as { type: "object" },
      annotations: { title: tool.title, ...tool.annotations },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = UCP_TOOL_LIST.find((candidate) => candidate.name === request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${request.params.name}. The tools are ${UCP_TOOL_LIST.map((t) => t.name).join(", ")}.`,
      );
    }
    const meta = request.params._meta as { ucp?: { profile?: unknown } } | undefined;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    try {
      const ucp = negotiate(await ctx.profiles.resolve(meta?.ucp?.profile));
      const deep = tooDeepPath(args);
      if (deep !== undefined) {
        throw UcpError.one(
          "too_deep",
          `${deep || "arguments"}: nests deeper than ${MAX_JSON_DEPTH} levels.`,
          {
            path: jsonPath(deep),
          },
        );
      }
      const issues = checks.get(tool.name)?.(args) ?? [];
      if (issues.length > 0) {
        throw new UcpError(
          issues.map((issue) => ({
            code: issue.code,
            message: `${issue.path || "arguments"}: ${issue.message}`,
            severity: "recoverable",
            path: jsonPath(issue.path),
          })),
        );
      }
      const state = await tool.run(checkouts, args, extra.authInfo?.clientId ?? clientKey);
      const checkout = checkoutObject(ucp, state, ctx.render);
      return { content: [{ type: "text", text: JSON.stringify(checkout) }], structuredContent: checkout };
    } catch (error) {
      throw rpcError(tool.name, error, ctx.onUnexpectedError);
    }
  });
  return server;
}

/** A refusal as the JSON-RPC error UCP prescribes; a rate limit as the host's 429 error; anything else internal. */
function rpcError(tool: string, error: unknown, onUnexpectedError?: (error: unknown) => void): McpError {
  if (UcpError.isInstance(error)) {
    const first = error.errors[0]!;
    return new McpError(error.rpcCode, `${first.code}: ${error.message}`, error.data);
  }
  if (CoreError.isInstance(error) && error.code === "rate_limited") {
    return new McpError(RATE_LIMITED_RPC_CODE, `${tool}: ${error.message}`, {
      error: RATE_LIMITED,
      retry_after_seconds: error.retryAfterSeconds ?? 1,
    });
  }
  if (error instanceof McpError) return error;
  onUnexpectedError?.(error);
  return new McpError(ErrorCode.InternalError, "Internal error.", {
    status: "error",
    errors: [
      {
        code: "internal_error",
        message: "The checkout could not be processed; try again.",
        severity: "recoverable",
      },
    ],
  });
}

export { TOOLS } from "./catalog.ts";
export type { McpAppOptions, McpHttpApp, McpHttpOptions } from "./mcp-app.ts";
export { createMcpApp, createMcpHttpApp } from "./mcp-app.ts";
export { RATE_LIMITED, RATE_LIMITED_RPC_CODE } from "./tool-rate-limit.ts";
export type { ToolDefinition } from "./tools.ts";

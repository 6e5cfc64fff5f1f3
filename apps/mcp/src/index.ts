export { TOOLS } from "./catalog.ts";
export type { McpAppOptions } from "./mcp-app.ts";
export { createMcpApp } from "./mcp-app.ts";
export type { ToolDefinition } from "./tools.ts";

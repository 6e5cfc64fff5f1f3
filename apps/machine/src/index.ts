export * from "./app.ts";
export * from "./errors.ts";
export * from "./openapi.ts";
export * from "./read-json.ts";
export * as schemas from "./schemas.ts";
export * from "./status-table.ts";

export * from "./config.ts";
export * from "./logger.ts";
export * from "./server-app.ts";
export * from "./start.ts";

export * from "./canonical-json.ts";
export * from "./claim-store.ts";
export * from "./claims.ts";
export * from "./errors.ts";
export * from "./fingerprint.ts";

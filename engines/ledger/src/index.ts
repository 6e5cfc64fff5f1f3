export * from "./errors.ts";
export { isBookId, isIdempotencyKey } from "./keys.ts";
export * from "./ledger.ts";
export * from "./ledger-store.ts";
export * from "./types.ts";

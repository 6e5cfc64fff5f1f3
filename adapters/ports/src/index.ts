export * from "./blob-store.ts";
export * from "./errors.ts";
export * from "./florist-provider.ts";
export * from "./payment-rail.ts";
export * from "./print-provider.ts";
export * from "./runtime.ts";
export * from "./serialise-json.ts";
export * from "./store.ts";

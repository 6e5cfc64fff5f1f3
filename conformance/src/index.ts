export * from "./kit.ts";
export * from "./machine/fixtures.ts";
export * from "./machine/http-target.ts";
export * from "./machine/machine-suite.ts";
export * from "./store/blob-store-contract.ts";
export * from "./store/store-contract.ts";
export * from "./payment/payment-rail-contract.ts";

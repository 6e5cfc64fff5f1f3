export { SIMULATED_CAPABILITIES } from "./default-capabilities.ts";
export type { Pace } from "./pace.ts";
export { DEFAULT_PACE } from "./pace.ts";
export type { SimulatedJobRecord } from "./simulated-job.ts";
export type { SimulatedPrinter, SimulatedPrinterOptions } from "./simulated-printer.ts";
export { createSimulatedPrinter, DEFAULT_TRACKING_URL_BASE } from "./simulated-printer.ts";
export type { SimulatedOutcome } from "./test-addresses.ts";
export { TEST_ADDRESS_PHRASES } from "./test-addresses.ts";
export { trackingNumberFor } from "./tracking-number.ts";

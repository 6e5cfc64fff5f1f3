// A server process for crash tests: the real server, started with test hooks instead of product flags.
// - STALL_ORDER_MARKER: a file path. The first Projects API order record this process is about to write is never
//   written: the process writes the marker (so the test knows the reservation was made) and waits forever.
//   With STALL_WHEN=machine_paid instead, the first machine order this process is about to record as paid (its
//   payment settled, the answer not yet recorded) is never recorded: it writes the marker and waits forever.
// - ORDER_INTENT_GRACE_MS: the core's grace for order intents (how soon a lost order request is undone).
import "./memory-profile.ts";
import { writeFileSync } from "node:fs";
import type { Store } from "@mailpiece/ports";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { startServer } from "./start.ts";

const marker = process.env.STALL_ORDER_MARKER;
const when = process.env.STALL_WHEN ?? "project_order";
const grace = process.env.ORDER_INTENT_GRACE_MS;

function stallingStore(store: Store, markerPath: string): Store {
  let stalled = false;
  const stall = async (key: string): Promise<never> => {
    stalled = true;
    writeFileSync(markerPath, key);
    return new Promise<never>(() => {});
  };
  const isOrder = (key: string, value: unknown): value is Record<string, unknown> =>
    key.startsWith("orders:") && typeof value === "object" && value !== null;
  return {
    ...store,
    async create(key, value, options) {
      if (!stalled && when === "project_order" && isOrder(key, value) && "project" in value) await stall(key);
      return store.create(key, value, options);
    },
    async put(key, value, options) {
      if (!stalled && when === "machine_paid" && isOrder(key, value) && value.payment_status === "paid") {
        await stall(key);
      }
      return store.put(key, value, options);
    },
  };
}

const config = loadConfig();
const running = await startServer(config, createLogger(config.logLevel), {
  ...(marker ? { wrapStore: (store: Store) => stallingStore(store, marker) } : {}),
  ...(grace ? { core: { orderIntentGraceMs: Number(grace) } } : {}),
});
process.once("SIGTERM", () => {
  void running.close().then(() => process.exit(0));
});

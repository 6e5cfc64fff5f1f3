// A server process for crash tests: the real server, started with test hooks instead of product flags.
// - STALL_ORDER_MARKER: a file path; the first Projects API order record this process is about to write is never
//   written: the process writes the marker (so the test knows the reservation was made) and waits forever.
// - ORDER_INTENT_GRACE_MS: the core's grace for order intents (how soon a lost order request is undone).
import "./memory-profile.ts";
import { writeFileSync } from "node:fs";
import type { Store } from "@mailpiece/ports";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { startServer } from "./start.ts";

const marker = process.env.STALL_ORDER_MARKER;
const grace = process.env.ORDER_INTENT_GRACE_MS;

function stallingStore(store: Store, markerPath: string): Store {
  let stalled = false;
  return {
    ...store,
    async create(key, value, options) {
      const isProjectOrder =
        key.startsWith("orders:") && typeof value === "object" && value !== null && "project" in value;
      if (isProjectOrder && !stalled) {
        stalled = true;
        writeFileSync(markerPath, key);
        await new Promise<never>(() => {});
      }
      return store.create(key, value, options);
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

import { createMemoryBlobStore, createMemoryStore } from "../adapters/store-unstorage/src/index.ts";
import { FULFILMENT_QUEUE } from "../apps/core/src/fulfilment.ts";
import { createMailpieceCore } from "../apps/core/src/index.ts";
import { median, table } from "./lib.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "50");
const MANY = Number(process.env.BENCH_PENDING ?? "100000");
const FEW = 10;
const HOUR = 60 * 60 * 1000;
/** The most a round may cost with MANY orders waiting, as a multiple of its cost with FEW. */
const GROWTH_LIMIT = 5;

/**
 * A fulfilment round (`core.fulfil()`, what every server process runs each second) with FEW and with MANY orders
 * waiting for later (orders in production, asked about again in an hour), on the embedded memory store. The round
 * reads only due work, so its cost must not grow with the orders waiting: the ratio of the two medians should stay
 * near 1. The waiting orders are queued directly as fulfilment jobs (their orders need not exist: a round never
 * reads a job that is not due).
 */
export async function benchFulfilment(): Promise<string> {
  const rows: (string | number)[][] = [["orders waiting", "round median ms", `ratio to ${FEW}`]];
  let baseline = 0;
  let grew = 1;
  for (const waiting of [FEW, MANY]) {
    const store = createMemoryStore();
    const core = createMailpieceCore({ store, blobs: createMemoryBlobStore() });
    const later = Date.now() + HOUR;
    for (let i = 0; i < waiting; i++) {
      await core.jobs.enqueue({
        queue: FULFILMENT_QUEUE,
        key: `order:bench-${i}`,
        payload: { order_id: `bench-${i}` },
        runAt: later + i,
      });
    }
    await core.fulfil();
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      await core.fulfil();
      times.push(performance.now() - start);
    }
    const ms = median(times);
    if (waiting === FEW) baseline = ms;
    rows.push([waiting, ms.toFixed(3), (ms / baseline).toFixed(2)]);
    await core.close();
    grew = ms / baseline;
  }
  // A round that costs several times more with many orders waiting reads work that is not due: the run fails.
  if (grew > GROWTH_LIMIT) process.exitCode = 1;
  return `${table(rows)}${grew > GROWTH_LIMIT ? `\nGREW: ${grew.toFixed(1)} times the cost with ${MANY} orders waiting (limit ${GROWTH_LIMIT})` : ""}`;
}

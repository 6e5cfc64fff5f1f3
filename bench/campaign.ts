import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { validateCampaign } from "../apps/core/src/campaigns.ts";
import { defaultCoreConfig } from "../apps/core/src/config.ts";
import { validateOrderRequest } from "../engines/orders/src/index.ts";
import { campaignCsv, campaignOrder } from "./campaign-fixture.ts";
import { table } from "./lib.ts";

const ROWS = 10_000;
const WARM_UP = 5;
const ITERATIONS = 20;
const MEMORY_ROWS = 100_000;

/** The one papaparse call the baseline makes, read from the orders engine's own copy of papaparse. */
interface Papa {
  parse(csv: string, config: { header: true }): { data: unknown[] };
}
const papa = createRequire(new URL("../engines/orders/package.json", import.meta.url))("papaparse") as Papa;

/** Milliseconds per call of `run`, over ITERATIONS calls after WARM_UP calls. */
async function msPerCall(run: () => unknown): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await run();
  const started = performance.now();
  for (let i = 0; i < ITERATIONS; i++) await run();
  return (performance.now() - started) / ITERATIONS;
}

/**
 * Campaign validation and quoting of a 10,000-row CSV (the order engine's parse and rules, then validateCampaign:
 * page count, per-row checks and prices) against papaparse merely parsing the same CSV with header: true, in the
 * same run; then the peak memory of a 100,000-row campaign validated in a child process.
 */
export async function benchCampaign(): Promise<string> {
  const csv = campaignCsv(ROWS);
  const body = campaignOrder(csv);
  const config = defaultCoreConfig();
  let valid = 0;
  const validate = async () => {
    const checked = validateOrderRequest(body);
    if (!checked.ok) throw new Error(`the campaign order is invalid: ${JSON.stringify(checked.issues)}`);
    const outcome = await validateCampaign(checked.order, { config }, checked.warnings);
    if (!outcome.ok) throw new Error(`the campaign is refused: ${JSON.stringify(outcome.issues)}`);
    valid = outcome.view.bulk.recipient_count;
  };
  const parse = () => {
    if (papa.parse(csv, { header: true }).data.length !== ROWS) throw new Error("papaparse lost rows");
  };

  const baseline = await msPerCall(parse);
  const ours = await msPerCall(validate);
  const rows: (string | number)[][] = [
    ["case", "ms per campaign", "rows/s", "ratio to papaparse"],
    [
      "papaparse, header: true (baseline)",
      baseline.toFixed(1),
      (ROWS / (baseline / 1000)).toFixed(0),
      "1.00",
    ],
    [
      "validate + quote (order engine, then validateCampaign)",
      ours.toFixed(1),
      (ROWS / (ours / 1000)).toFixed(0),
      (ours / baseline).toFixed(2),
    ],
  ];
  const memory = await campaignMemory(MEMORY_ROWS);
  return [
    `${ROWS} rows (${(Buffer.byteLength(csv) / 2 ** 20).toFixed(1)} MiB of CSV, ${valid} valid), ${ITERATIONS} iterations after ${WARM_UP} warm-up`,
    table(rows),
    `${memory.rows} rows validated in a child process in ${memory.ms.toFixed(0)} ms: peak memory (maxRSS) ${memory.peakRssMiB.toFixed(0)} MiB, of which ${memory.startRssMiB.toFixed(0)} MiB before the campaign (node, tsx and the modules)`,
  ].join("\n");
}

interface MemoryReport {
  rows: number;
  valid: number;
  ms: number;
  startRssMiB: number;
  peakRssMiB: number;
}

/** Runs bench/campaign-memory.ts in its own process, so its peak memory is the campaign's alone. */
async function campaignMemory(rows: number): Promise<MemoryReport> {
  const script = fileURLToPath(new URL("./campaign-memory.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, String(rows)], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`campaign-memory.ts exited with ${code}`);
  return JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as MemoryReport;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${await benchCampaign()}\n`);

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { letterOrder, longBody, makePdf, pdfDataUrl } from "../conformance/src/machine/fixtures.ts";
import type { LoadResult } from "./lib.ts";
import { load, median, startChild, startServer, table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "5");
/** Rounds of (bare h3, then every server case): each ratio compares measurements taken seconds apart. */
const ROUNDS = 3;
const CONNECTIONS = 8;
/** The goal for a repeated 1-page letter, as a share of bare h3's requests per second. */
const TARGET_RATIO = 0.25;
const TARGET_PEAK_MIB = 200;

/**
 * Validate+quote throughput of the running server (embedded file store, default configuration) against a bare h3
 * handler, in interleaved rounds so that both see the same machine; and both processes' peak memory.
 */
export async function benchValidate(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-bench-"));
  const bare = await startChild("bench/bare-h3-server.mjs");
  // The benchmark is one client on loopback: lift the per-client validate limit it would otherwise measure.
  const server = await startServer({
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    VALIDATE_PER_MINUTE: "100000000",
  });
  try {
    const pdf = pdfDataUrl(await makePdf(2));
    const same = [JSON.stringify(letterOrder())];
    // A letter never sent before on every request, so that none is answered from the document cache.
    const template = JSON.stringify(letterOrder({ letter: `${longBody(1)}\n\nReference REF` }));
    const unique = (n: number) => template.replace("REF", `${n}-${crypto.randomUUID()}`);
    const pdfBodies = [JSON.stringify(letterOrder({ letter: undefined, pdf }))];
    const cases: [string, string[] | ((n: number) => string)][] = [
      ["validate: same 1-page letter, repeated", same],
      ["validate: a different letter every request", unique],
      ["validate: 2-page PDF data URL", pdfBodies],
    ];
    const run = (url: string, bodies: string[] | ((n: number) => string), seconds = SECONDS) =>
      load(`${url}/api/machine/orders/validate`, bodies, { seconds, connections: CONNECTIONS });

    // Warm-up, not counted: the document workers start, the letter is typeset once, the JIT settles.
    await run(bare.url, same, 2);
    for (const [, bodies] of cases) await run(server.url, bodies, 2);

    const baseline: LoadResult[] = [];
    const results = cases.map(() => [] as LoadResult[]);
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(await run(bare.url, same));
      for (const [i, [, bodies]] of cases.entries()) results[i]!.push(await run(server.url, bodies));
    }

    const rows: (string | number)[][] = [
      ["case", "req/s", "p50 ms", "p99 ms", "ratio to bare h3 (median, range)", "non-2xx + errors"],
      row("bare h3 handler (baseline)", baseline, baseline),
      ...cases.map(([name], i) => row(name, results[i]!, baseline)),
    ];
    const letterRatio = median(
      results[0]!.map((r, i) => r.requestsPerSecond / baseline[i]!.requestsPerSecond),
    );
    const serverPeak = server.peakRssMiB();
    const barePeak = bare.peakRssMiB();
    return [
      `validate + quote, ${ROUNDS} rounds of ${SECONDS} s per case, ${CONNECTIONS} connections, file store; medians over rounds`,
      table(rows),
      `same 1-page letter: ${letterRatio.toFixed(2)}x bare h3 req/s (goal >= ${TARGET_RATIO}); p50 ${median(results[0]!.map((r) => r.p50ms))} ms vs ${median(baseline.map((r) => r.p50ms))} ms, p99 ${median(results[0]!.map((r) => r.p99ms))} ms vs ${median(baseline.map((r) => r.p99ms))} ms`,
      `peak memory (VmHWM): server ${serverPeak.toFixed(0)} MiB (goal < ${TARGET_PEAK_MIB}), bare h3 ${barePeak.toFixed(0)} MiB; now: server ${server.rssMiB().toFixed(0)} MiB`,
    ].join("\n");
  } finally {
    await Promise.all([bare.stop(), server.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function row(name: string, runs: LoadResult[], baseline: LoadResult[]): (string | number)[] {
  const ratios = runs.map((r, i) => r.requestsPerSecond / baseline[i]!.requestsPerSecond);
  const range = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
  return [
    name,
    median(runs.map((r) => r.requestsPerSecond)).toFixed(0),
    median(runs.map((r) => r.p50ms)),
    median(runs.map((r) => r.p99ms)),
    `${median(ratios).toFixed(2)} (${range})`,
    runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  ];
}

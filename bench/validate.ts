import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { letterOrder, longBody, makePdf, pdfDataUrl } from "../conformance/src/machine/fixtures.ts";
import { load, startChild, table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "8");
const CONNECTIONS = 8;

/**
 * Validate+quote throughput of the running server (embedded file store) against a bare h3 handler, measured in the
 * same run; and the server's peak memory.
 */
export async function benchValidate(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-bench-"));
  const bare = await startChild("bench/bare-h3-server.ts");
  // The benchmark is one client on loopback: lift the per-client validate limit it would otherwise measure.
  const server = await startChild("apps/server/src/main.ts", {
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    VALIDATE_PER_MINUTE: "100000000",
  });
  try {
    const pdf = pdfDataUrl(await makePdf(2));
    const same = [JSON.stringify(letterOrder())];
    const unique = Array.from({ length: 500 }, (_, i) =>
      JSON.stringify(letterOrder({ letter: `${longBody(1)}\n\nReference ${i}: ${crypto.randomUUID()}` })),
    );
    const pdfBodies = [JSON.stringify(letterOrder({ letter: undefined, pdf }))];
    const rows: (string | number)[][] = [
      ["case", "req/s", "p50 ms", "p99 ms", "ratio to bare h3", "non-2xx"],
    ];
    const baseline = await load(`${bare.url}/api/machine/orders/validate`, same, {
      seconds: SECONDS,
      connections: CONNECTIONS,
    });
    rows.push([
      "bare h3 handler (baseline)",
      baseline.requestsPerSecond.toFixed(0),
      baseline.p50ms,
      baseline.p99ms,
      "1.00",
      baseline.non2xx,
    ]);
    const cases: [string, string[]][] = [
      ["validate: same letter, repeated", same],
      ["validate: a different letter every request", unique],
      ["validate: 2-page PDF data URL", pdfBodies],
    ];
    for (const [name, bodies] of cases) {
      const r = await load(`${server.url}/api/machine/orders/validate`, bodies, {
        seconds: SECONDS,
        connections: CONNECTIONS,
      });
      rows.push([
        name,
        r.requestsPerSecond.toFixed(0),
        r.p50ms,
        r.p99ms,
        (r.requestsPerSecond / baseline.requestsPerSecond).toFixed(2),
        r.non2xx,
      ]);
    }
    return [
      `validate + quote, ${SECONDS} s each, ${CONNECTIONS} connections, file store`,
      table(rows),
      `server peak memory (VmHWM): ${server.peakRssMiB().toFixed(0)} MiB; bare h3: ${bare.peakRssMiB().toFixed(0)} MiB`,
    ].join("\n");
  } finally {
    await Promise.all([bare.stop(), server.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { letterOrder } from "../conformance/src/machine/fixtures.ts";
import { type Child, startServer, table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "8");

/** Long but valid markdown letters, each different (so none is answered from the document cache). */
const HEAVY = Array.from({ length: 1_000 }, (_, n) =>
  JSON.stringify(
    letterOrder({
      letter: {
        format: "markdown",
        body: Array.from(
          { length: 60 },
          (_, i) =>
            `## Part ${i + 1} of letter ${n}\n\nThis paragraph wraps across several printed lines, with *emphasis*, **strong words** and a table:\n\n| a | b |\n|---|---|\n| ${i} | ${n} |`,
        )
          .join("\n\n")
          .slice(0, 20_000),
      },
    }),
  ),
);

async function smallRequests(url: string, seconds: number) {
  const result = await autocannon({ url: `${url}/api/machine/forms`, connections: 2, duration: seconds });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
  };
}

async function heavyLoad(url: string, seconds: number) {
  let i = 0;
  return autocannon({
    url: `${url}/api/machine/orders/validate`,
    method: "POST",
    headers: { "content-type": "application/json" },
    connections: 4,
    duration: seconds,
    requests: [{ setupRequest: (request) => ({ ...request, body: HEAVY[i++ % HEAVY.length]! }) }],
  });
}

/**
 * Latency of small requests (the forms catalogue) while heavy letters are validated on other connections: with the
 * document workers, and with the work on the event loop (PDF_WORKERS=0), each as a ratio to the same small requests
 * on an idle server, measured in the same run.
 */
export async function benchHostile(): Promise<string> {
  const rows: (string | number)[][] = [
    ["case", "small req/s", "p50 ms", "p99 ms", "max ms", "p99 / idle p99", "heavy validates/s"],
  ];
  let idleP99 = 0;
  for (const [name, workers] of [
    ["document workers (PDF_WORKERS=2)", "2"],
    ["on the event loop (PDF_WORKERS=0)", "0"],
  ] as const) {
    const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-bench-"));
    let server: Child | undefined;
    try {
      server = await startServer({
        DATA_DIR: dataDir,
        LOG_LEVEL: "info",
        VALIDATE_PER_MINUTE: "100000000",
        PDF_WORKERS: workers,
      });
      if (idleP99 === 0) {
        const idle = await smallRequests(server.url, SECONDS);
        idleP99 = Math.max(idle.p99, 1);
        rows.push(["idle server (baseline)", idle.rps.toFixed(0), idle.p50, idle.p99, idle.max, "1.00", "-"]);
      }
      const [small, heavy] = await Promise.all([
        smallRequests(server.url, SECONDS),
        heavyLoad(server.url, SECONDS),
      ]);
      rows.push([
        name,
        small.rps.toFixed(0),
        small.p50,
        small.p99,
        small.max,
        (small.p99 / idleP99).toFixed(1),
        heavy.requests.average.toFixed(1),
      ]);
    } finally {
      await server?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return [
    `small requests while 20 000-character markdown letters are validated on 4 other connections, ${SECONDS} s each`,
    table(rows),
  ].join("\n");
}

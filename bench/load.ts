import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client, x402HTTPClient } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { letterOrder } from "../conformance/src/machine/fixtures.ts";
import { startPostgres } from "../conformance/src/servers/postgres-server.ts";
import { type Child, type LoadResult, load, startChild, startServer, table } from "./lib.ts";

function setting(name: "BENCH_LOAD_SECONDS" | "BENCH_LOAD_CONNECTIONS", fallback: number): number {
  const raw =
    name === "BENCH_LOAD_SECONDS" ? process.env.BENCH_LOAD_SECONDS : process.env.BENCH_LOAD_CONNECTIONS;
  const value = Number(raw ?? String(fallback));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

const SECONDS = setting("BENCH_LOAD_SECONDS", 60);
const CONNECTIONS = Math.round(setting("BENCH_LOAD_CONNECTIONS", 100));
/** Load before each measured case, not counted: the JIT settles, caches fill, payment libraries load. */
const WARMUP_SECONDS = Math.min(3, SECONDS);
const VALIDATE_PATH = "/api/machine/orders/validate";
const CREATE_PATH = "/api/machine/orders";
const JSON_HEADERS = { "content-type": "application/json" };
/**
 * BENCH_LOAD_SINGLE_CLIENT=1: every paid-create worker is the same client (the loopback address). By default each
 * worker is a client of its own (TRUST_PROXY and an X-Forwarded-For address per worker), as concurrent orders come from
 * many agents: one client's unpaid-creation counter is a single store record that every creation of that client
 * updates by compare-and-set.
 */
const SINGLE_CLIENT = process.env.BENCH_LOAD_SINGLE_CLIENT === "1";
/**
 * The server's limits, raised: the rate limits (the bench's clients would otherwise pass them within seconds) and the
 * documents that may wait for a PDF worker (PDF_QUEUE, 64 by default: past it a new letter gets 503), so that every
 * concurrent paid creation waits its turn.
 */
const SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: "info",
  VALIDATE_PER_MINUTE: "100000000",
  UNPAID_ORDERS_PER_HOUR: "1000000",
  PDF_QUEUE: String(Math.max(64, 2 * CONNECTIONS)),
  ...(SINGLE_CLIENT ? {} : { TRUST_PROXY: "true" }),
};

/** One measured case: rate, latency percentiles, and every request that did not answer its success status. */
interface Measured {
  requestsPerSecond: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  /** The errors by kind (status or socket error). */
  failures: Map<string, number>;
  /** Further figures of the case, printed below the table. */
  note?: string;
}

/** An autocannon run: its non-2xx answers and its socket errors and timeouts are the errors. */
function fromAutocannon(result: LoadResult): Measured {
  const failures = new Map<string, number>();
  if (result.non2xx > 0) failures.set("non-2xx status", result.non2xx);
  if (result.errors > 0) failures.set("socket error or timeout", result.errors);
  return {
    requestsPerSecond: result.requestsPerSecond,
    p50ms: result.p50ms,
    p99ms: result.p99ms,
    errors: result.non2xx + result.errors,
    failures,
  };
}

/** A request that answered, but not with the status it must. */
class WrongStatus extends Error {}

function failureKind(error: unknown): string {
  if (error instanceof WrongStatus) return error.message;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return `socket error: ${cause?.code ?? cause?.message ?? String(error)}`;
}

/**
 * An order never sent before: a new request_id and a letter of its own. Orders with the same document, sender,
 * recipient and options are one mailing until paid, so concurrent creations must differ in their letter.
 */
function uniqueOrder(n: number): string {
  const letter = `Dear Grace,\n\nThank you for the kind note. Reference ${n}-${crypto.randomUUID()}.\n\nBest wishes`;
  return JSON.stringify(letterOrder({ letter }));
}

/** The value at percentile `p` (0-1) of ascending `sorted`, nearest rank. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * `workers` loops, each running `step` one after another until `seconds` have passed. A step's latency is recorded
 * when it succeeds; a step that throws is an error. The rate counts successful steps over the whole run, the steps
 * still in flight at the deadline included.
 */
async function workerLoop(
  seconds: number,
  workers: number,
  step: (worker: number) => Promise<void>,
): Promise<Measured> {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (performance.now() < deadline) {
        const began = performance.now();
        try {
          await step(worker);
          latencies.push(performance.now() - began);
        } catch (error) {
          const kind = failureKind(error);
          failures.set(kind, (failures.get(kind) ?? 0) + 1);
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50ms: percentile(latencies, 0.5),
    p99ms: percentile(latencies, 0.99),
    errors: [...failures.values()].reduce((sum, n) => sum + n, 0),
    failures,
  };
}

/** One POST of `body` that must answer 200; the body is read to the end. */
function postStep(url: string, body: string): () => Promise<void> {
  return async () => {
    const response = await fetch(url, { method: "POST", headers: JSON_HEADERS, body });
    await response.arrayBuffer();
    if (response.status !== 200) throw new WrongStatus(`answered ${response.status}, not 200`);
  };
}

/**
 * A complete paid x402 creation of a new order, as an agent makes it: POST the order (402 with the challenge naming
 * the new order), sign the payment with the x402 client, POST the byte-for-byte identical body again with
 * PAYMENT-SIGNATURE (202). Records the paid retry's latency and the time spent signing.
 */
function paidCreation(baseUrl: string): {
  step: (worker: number) => Promise<void>;
  retryMs: number[];
  signMs: number[];
} {
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
  const http = new x402HTTPClient(client);
  const url = `${baseUrl}${CREATE_PATH}`;
  const retryMs: number[] = [];
  const signMs: number[] = [];
  let created = 0;
  const step = async (worker: number) => {
    const body = uniqueOrder(created++);
    const client: Record<string, string> = SINGLE_CLIENT
      ? {}
      : { "x-forwarded-for": `10.${(worker >> 16) & 255}.${(worker >> 8) & 255}.${worker & 255}` };
    const unpaid = await fetch(url, { method: "POST", headers: { ...JSON_HEADERS, ...client }, body });
    const text = await unpaid.text();
    if (unpaid.status !== 402) throw new WrongStatus(`unpaid create answered ${unpaid.status}, not 402`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {}
    const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), parsed);
    const signing = performance.now();
    const payload = await http.createPaymentPayload(required);
    const headers = { ...JSON_HEADERS, ...client, ...http.encodePaymentSignatureHeader(payload) };
    const sent = performance.now();
    signMs.push(sent - signing);
    const paid = await fetch(url, { method: "POST", headers, body });
    await paid.arrayBuffer();
    if (paid.status !== 201 && paid.status !== 202)
      throw new WrongStatus(`paid create answered ${paid.status}, not 201/202`);
    retryMs.push(performance.now() - sent);
  };
  return { step, retryMs, signMs };
}

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const ms = (value: number) =>
  Number.isNaN(value) ? "-" : Number.isInteger(value) ? String(value) : value.toFixed(1);

interface Row {
  store: string;
  name: string;
  result: Measured;
}

/** Runs `run` and swallows what it throws (a warm-up request): the measured run shows any fault as errors. */
async function quietly(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch {}
}

/** Validate and paid create on one server (one store), each warmed up first. */
async function measureServer(store: string, server: Child, rows: Row[]): Promise<void> {
  const validateUrl = `${server.url}${VALIDATE_PATH}`;
  const body = JSON.stringify(letterOrder());
  // One request of each kind alone first, so that the letter is typeset once and the payment libraries load before
  // the concurrent requests arrive.
  const paid = paidCreation(server.url);
  await quietly(postStep(validateUrl, body));
  await quietly(() => paid.step(0));

  await load(validateUrl, [body], { seconds: WARMUP_SECONDS, connections: CONNECTIONS });
  rows.push({
    store,
    name: "validate, the same letter every request",
    result: fromAutocannon(await load(validateUrl, [body], { seconds: SECONDS, connections: CONNECTIONS })),
  });
  await load(validateUrl, uniqueOrder, { seconds: WARMUP_SECONDS, connections: CONNECTIONS });
  rows.push({
    store,
    name: "validate, a new letter every request",
    result: fromAutocannon(
      await load(validateUrl, uniqueOrder, { seconds: SECONDS, connections: CONNECTIONS }),
    ),
  });

  await workerLoop(WARMUP_SECONDS, CONNECTIONS, paidCreation(server.url).step);
  const measured = paidCreation(server.url);
  const result = await workerLoop(SECONDS, CONNECTIONS, measured.step);
  const retry = [...measured.retryMs].sort((a, b) => a - b);
  result.note =
    `paid retry alone p50 ${ms(percentile(retry, 0.5))} ms, p99 ${ms(percentile(retry, 0.99))} ms; ` +
    `client signing ${mean(measured.signMs).toFixed(2)} ms a payment (mean); ` +
    `server peak memory (VmHWM) ${server.peakRssMiB().toFixed(0)} MiB`;
  rows.push({ store, name: "paid create, a new letter every order", result });
}

/**
 * `pnpm bench load`: the server under sustained concurrent load, validate and paid x402 creation, on the embedded
 * file store and on PostgreSQL, as ratios to a bare h3 handler measured in the same run on the same machine.
 */
export async function benchLoad(): Promise<string> {
  // What else the machine was doing: the figures are only comparable on an otherwise idle machine.
  const loadBefore = loadavg()[0]!;
  const rows: Row[] = [];
  const broken: string[] = [];
  const cleanup: (() => Promise<void>)[] = [];
  const dataDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `mailpiece-bench-load-${name}-`));
    cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  /** Starts a server with the bench's settings and registers its stop. */
  const server = async (env: Record<string, string>) => {
    const child = await startServer({ ...SERVER_ENV, ...env });
    cleanup.push(() => child.stop());
    return child;
  };

  try {
    const bare = await startChild("bench/bare-h3-server.mjs");
    cleanup.push(() => bare.stop());
    const body = JSON.stringify(letterOrder());
    await load(bare.url, [body], { seconds: WARMUP_SECONDS, connections: CONNECTIONS });
    rows.push({
      store: "-",
      name: "bare h3 handler, validate body (baseline)",
      result: fromAutocannon(await load(bare.url, [body], { seconds: SECONDS, connections: CONNECTIONS })),
    });
    await workerLoop(WARMUP_SECONDS, CONNECTIONS, postStep(bare.url, body));
    rows.push({
      store: "-",
      name: "bare h3 handler, fetch-worker client (client ceiling)",
      result: await workerLoop(SECONDS, CONNECTIONS, postStep(bare.url, body)),
    });
    await bare.stop();

    const stores: [string, () => Promise<Record<string, string>>][] = [
      ["file", async () => ({ STORE: "file", DATA_DIR: dataDir("file") })],
      [
        "postgres",
        async () => {
          const postgres = await startPostgres();
          cleanup.push(() => postgres.stop());
          // Records in PostgreSQL; the documents stay files under DATA_DIR, as with BLOB_STORE unset.
          return { STORE: "postgres", DATABASE_URL: postgres.url, DATA_DIR: dataDir("postgres") };
        },
      ],
    ];
    for (const [store, env] of stores) {
      // A store that fails to start or to run is reported, and the other store is still measured.
      try {
        const child = await server(await env());
        try {
          await measureServer(store, child, rows);
        } finally {
          await child.stop();
        }
      } catch (error) {
        broken.push(`${store}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    for (const undo of cleanup.reverse()) {
      try {
        await undo();
      } catch (error) {
        process.stderr.write(`bench load: cleanup failed: ${String(error)}\n`);
      }
    }
  }

  const baseline = rows.find((row) => row.name.endsWith("(baseline)"))?.result;
  // Two significant digits for small ratios: a paid creation is far below a bare request.
  const ratio = (value: number, of: number | undefined) => {
    if (!of) return "-";
    const r = value / of;
    return r >= 0.1 ? r.toFixed(2) : r.toPrecision(2);
  };
  const lines = [
    `load: ${SECONDS} s per case (after ${WARMUP_SECONDS} s of warm-up) at ${CONNECTIONS} concurrent connections, ` +
      `${availableParallelism()} cores (os.availableParallelism()), shared by the bench client, the server, its PDF ` +
      `workers and PostgreSQL (1-minute load average ${loadBefore.toFixed(2)} before the bench). ` +
      "bare h3 and validate: autocannon in the bench process, 200 required; the baseline is " +
      "the bare h3 handler given the 1-page letter order that validate gets. Paid create: " +
      `${CONNECTIONS} fetch workers in the bench process (undici), each making complete x402 creations back to back: ` +
      "POST a new order with a letter of its own (402 with the challenge), sign it with @x402/fetch's x402 client " +
      "(a random viem key; the server's local facilitator), POST the same body with PAYMENT-SIGNATURE (202 " +
      "required); req/s is creations per second (two HTTP requests each), latency from the first POST to the 202, " +
      "p50/p99 over every creation. " +
      (SINGLE_CLIENT
        ? "All workers are one client (the loopback address). "
        : "Each worker is a client of its own (TRUST_PROXY, an X-Forwarded-For address per worker). ") +
      "Servers run as `pnpm start` does, with " +
      Object.entries(SERVER_ENV)
        .map(([name, value]) => `${name}=${value}`)
        .join(" ") +
      "; any other status or a socket error is an error.",
    table([
      [
        "store",
        "case",
        "req/s",
        "p50 ms",
        "p99 ms",
        "errors",
        "req/s ratio to bare h3",
        "p50 ratio to bare h3",
        "p99 ratio to bare h3",
      ],
      ...rows.map(({ store, name, result }) => [
        store,
        name,
        result.requestsPerSecond.toFixed(0),
        ms(result.p50ms),
        ms(result.p99ms),
        result.errors === 0 ? "0" : `${result.errors} << ERRORS`,
        ratio(result.requestsPerSecond, baseline?.requestsPerSecond),
        ratio(result.p50ms, baseline?.p50ms),
        ratio(result.p99ms, baseline?.p99ms),
      ]),
    ]),
  ];
  for (const { store, name, result } of rows) {
    if (result.note) lines.push(`${store}, ${name}: ${result.note}`);
    if (result.errors > 0) {
      const kinds = [...result.failures].map(([kind, n]) => `${n} x ${kind}`).join("; ");
      lines.push(`ERRORS ${store}, ${name}: ${kinds}`);
      // No error is allowed under load: the run fails.
      process.exitCode = 1;
    }
  }
  for (const message of broken) lines.push(`NOT MEASURED ${message}`);
  if (broken.length > 0) process.exitCode = 1;
  return lines.join("\n");
}

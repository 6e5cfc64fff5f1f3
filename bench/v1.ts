import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPostgresStore } from "../adapters/store-postgres/src/index.ts";
import {
  createFileBlobStore,
  createFileStore,
  createMemoryBlobStore,
  createMemoryStore,
} from "../adapters/store-unstorage/src/index.ts";
import type { MailpieceCore } from "../apps/core/src/index.ts";
import { createMailpieceCore } from "../apps/core/src/index.ts";
import { createMachineApp, MACHINE_DEFAULTS } from "../apps/machine/src/index.ts";
import { createV1App } from "../apps/v1/src/index.ts";
import { letterOrder, makePdf, pdfDataUrl } from "../conformance/src/machine/fixtures.ts";
import type { LoopbackServer } from "../conformance/src/machine/http-target.ts";
import { serveOnLoopback } from "../conformance/src/machine/http-target.ts";
import { startPostgres } from "../conformance/src/servers/postgres-server.ts";
import { median, table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "5");
const CONCURRENCIES = [1, 8] as const;
/** Rounds of (validate, then orders) per concurrency: each ratio compares measurements taken seconds apart. */
const ROUNDS = 3;
const WARM_UP_SECONDS = 2;
/** Test credits of the bench workspace, in cents: far more than every order of the run costs. */
const TEST_CREDITS_CENTS = 1_000_000_000;
/** The Projects API's per-key limit for the bench: this many requests per RATE_WINDOW_MS, far more than it sends. */
const REQUESTS_PER_WINDOW = 1_000_000;
const RATE_WINDOW_MS = 1_000;
/** The machine API's per-client validate limit for the bench, per minute. */
const VALIDATES_PER_MINUTE = 1_000_000_000;
/** Quotes made at once while preparing (in-process, outside every timed window). */
const QUOTE_BATCH = 64;

/** The same parties as conformance's letterOrder(), as Projects API addresses. */
const RECIPIENT = {
  name: "Grace Recipient",
  line1: "1600 Pennsylvania Ave NW",
  city: "Washington",
  state: "DC",
  postal_code: "20500",
  countryCode: "US",
};
const SENDER = {
  name: "Zoë Łukasz-Müller",
  line1: "350 Fifth Avenue",
  city: "New York",
  state: "NY",
  postal_code: "10118",
  countryCode: "US",
};

interface StoreKind {
  name: string;
  open(): Promise<{ core: MailpieceCore; dispose(): Promise<void> }>;
}

const coreConfig = {
  testCreditsCents: TEST_CREDITS_CENTS,
  validateRateLimit: { limit: VALIDATES_PER_MINUTE, windowMs: 60_000 },
};

const STORE_KINDS: StoreKind[] = [
  {
    name: "memory",
    async open() {
      const core = createMailpieceCore({
        store: createMemoryStore(),
        blobs: createMemoryBlobStore(),
        config: coreConfig,
      });
      return { core, dispose: () => core.close() };
    },
  },
  {
    name: "file",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "mailpiece-bench-v1-"));
      const store = await createFileStore({ dir: join(dir, "records") });
      const blobs = await createFileBlobStore({ dir: join(dir, "blobs") });
      const core = createMailpieceCore({ store, blobs, config: coreConfig });
      return {
        core,
        async dispose() {
          await core.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    // A shared store: the per-key limit is counted in it (compare-and-set), as every process of a deployment counts.
    name: "postgres",
    async open() {
      const server = await startPostgres();
      const store = await createPostgresStore({ url: server.url, maxConnections: 10 });
      const core = createMailpieceCore({ store, blobs: createMemoryBlobStore(), config: coreConfig });
      return {
        core,
        async dispose() {
          await core.close();
          await server.stop();
        },
      };
    },
  },
];

/** What the requests of one case did, summed over its timed windows. */
interface Tally {
  /** Answers with the expected status. */
  ok: number;
  /** Time spent in timed windows, in seconds. */
  seconds: number;
  /** Latency of every answer (expected or not), in ms. */
  latencies: number[];
  /** Unexpected answers by status (and the error code of the body), or "fetch failed". */
  bad: Map<string, number>;
}

const newTally = (): Tally => ({ ok: 0, seconds: 0, latencies: [], bad: new Map() });

/**
 * One timed window: `concurrency` loops POST what `next()` gives to `url` (one request in flight each) until
 * `seconds` pass or `next()` gives nothing (the prepared quotes ran out). Adds to `tally`; returns whether it ran
 * out before the time was up.
 */
async function timedWindow(
  url: string,
  concurrency: number,
  seconds: number,
  next: () => RequestInit | undefined,
  expect: number,
  tally: Tally,
): Promise<boolean> {
  let exhausted = false;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const init = next();
        if (!init) {
          exhausted = true;
          return;
        }
        const sent = performance.now();
        let outcome: string;
        try {
          const response = await fetch(url, init);
          const text = await response.text();
          outcome =
            response.status === expect
              ? ""
              : `${response.status} ${/"error":"([^"]*)"/.exec(text)?.[1] ?? ""}`;
        } catch {
          outcome = "fetch failed";
        }
        tally.latencies.push(performance.now() - sent);
        if (outcome === "") tally.ok++;
        else tally.bad.set(outcome, (tally.bad.get(outcome) ?? 0) + 1);
      }
    }),
  );
  tally.seconds += (performance.now() - start) / 1000;
  return exhausted;
}

interface Summary {
  perSecond: number;
  p50: number;
  p99: number;
  bad: Map<string, number>;
}

/** Requests per second of a tally, with p50 and p99 latency in ms. */
function summary(tally: Tally): Summary {
  const sorted = [...tally.latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { perSecond: tally.ok / tally.seconds, p50: at(0.5), p99: at(0.99), bad: tally.bad };
}

/** A table row: medians over the rounds, and the ratio of each round to the baseline of the same round. */
function row(
  store: string,
  concurrency: number,
  name: string,
  runs: Summary[],
  baseline: Summary[],
): (string | number)[] {
  const ratios = runs.map((r, i) => r.perSecond / baseline[i]!.perSecond);
  const range = `${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`;
  const bad = new Map<string, number>();
  for (const run of runs) for (const [what, count] of run.bad) bad.set(what, (bad.get(what) ?? 0) + count);
  return [
    store,
    concurrency,
    name,
    median(runs.map((r) => r.perSecond)).toFixed(0),
    median(runs.map((r) => r.p50)).toFixed(2),
    median(runs.map((r) => r.p99)).toFixed(2),
    `${median(ratios).toFixed(2)} (${range})`,
    [...bad].map(([what, count]) => `${count}x ${what.trim()}`).join(", ") || "0",
  ];
}

/** Serves `app` (built once its own URL is known) on 127.0.0.1. */
async function serve(
  build: (url: string) => { fetch(request: Request): Response | Promise<Response> },
): Promise<LoopbackServer> {
  let app: { fetch(request: Request): Response | Promise<Response> } | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  app = build(running.url);
  return running;
}

/** One store kind: the rows of its table, and how many quotes were prepared and how long that took. */
async function benchStore(kind: StoreKind): Promise<{ rows: (string | number)[][]; notes: string[] }> {
  const { core, dispose } = await kind.open();
  const unexpected: unknown[] = [];
  const onUnexpectedError = (error: unknown) => unexpected.push(error);
  const servers: LoopbackServer[] = [];
  try {
    const v1 = await serve((publicUrl) =>
      createV1App(core, {
        publicUrl,
        requestsPerMinute: REQUESTS_PER_WINDOW,
        windowMs: RATE_WINDOW_MS,
        onUnexpectedError,
      }),
    );
    servers.push(v1);
    const machine = await serve((publicUrl) =>
      createMachineApp(core, { publicUrl, maxBodyBytes: MACHINE_DEFAULTS.maxBodyBytes, onUnexpectedError }),
    );
    servers.push(machine);

    // One workspace, one 1-page document uploaded and completed over the Projects API.
    const { test_api_key: key } = await core.workspaces.create("Bench Mailroom");
    const principal = await core.workspaces.authenticate(key);
    const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const pdf = await makePdf(1);
    const intentResponse = await fetch(`${v1.url}/api/v1/documents/upload-intent`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ content_type: "application/pdf", byte_size: pdf.byteLength }),
    });
    const intent = (await intentResponse.json()) as { document_id: string; upload_url: string };
    const put = await fetch(intent.upload_url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: pdf,
    });
    const completed = await fetch(`${v1.url}/api/v1/documents/${intent.document_id}/complete`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ page_count: 1 }),
    });
    if (intentResponse.status !== 201 || put.status !== 200 || completed.status !== 200) {
      throw new Error(
        `the document was not made: intent ${intentResponse.status}, upload ${put.status}, complete ${completed.status}: ${await completed.text()}`,
      );
    }

    // Quotes, each backing one order, made in-process and never inside a timed window.
    let quotes: string[] = [];
    let used = 0;
    let prepared = 0;
    let preparingMs = 0;
    const prepare = async (count: number) => {
      const start = performance.now();
      quotes = quotes.slice(used);
      used = 0;
      for (let made = 0; made < count; made += QUOTE_BATCH) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(QUOTE_BATCH, count - made) }, () =>
            core.projects.createQuote(principal, "letter", { document_id: intent.document_id }),
          ),
        );
        quotes.push(...batch.map((quote) => quote.quote_id));
      }
      prepared += count;
      preparingMs += performance.now() - start;
    };
    const nextOrder = (): RequestInit | undefined => {
      const quoteId = quotes[used];
      if (quoteId === undefined) return undefined;
      used++;
      return {
        method: "POST",
        headers: { ...auth, "idempotency-key": crypto.randomUUID() },
        body: JSON.stringify({ quote_id: quoteId, recipient: RECIPIENT, sender: SENDER }),
      };
    };
    const ordersUrl = `${v1.url}/api/v1/letters`;
    /** Orders for `seconds`, preparing more quotes (untimed) whenever a window runs out of them. */
    const orders = async (concurrency: number, seconds: number, estimate: number) => {
      const tally = newTally();
      let remaining = seconds;
      let rate = estimate;
      while (remaining > 0.05) {
        const wanted = Math.ceil(rate * remaining * 1.25) + 8 * concurrency;
        if (quotes.length - used < wanted) await prepare(wanted - (quotes.length - used));
        const before = tally.seconds;
        await timedWindow(ordersUrl, concurrency, remaining, nextOrder, 201, tally);
        remaining -= tally.seconds - before;
        rate = Math.max(rate, tally.ok / tally.seconds);
      }
      return tally;
    };

    const validateBody = JSON.stringify(letterOrder({ letter: undefined, pdf: pdfDataUrl(pdf) }));
    const validateInit: RequestInit = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: validateBody,
    };
    const validateUrl = `${machine.url}/api/machine/orders/validate`;
    const validations = async (concurrency: number, seconds: number) => {
      const tally = newTally();
      await timedWindow(validateUrl, concurrency, seconds, () => validateInit, 200, tally);
      return tally;
    };

    // Warm-up, not counted: the JIT settles on both paths; the order rate sizes the first batches of quotes.
    await prepare(64);
    const warmOrders = await orders(8, WARM_UP_SECONDS, 64);
    await validations(8, WARM_UP_SECONDS);
    const warmRate = warmOrders.ok / warmOrders.seconds;
    const estimates = new Map<number, number>(CONCURRENCIES.map((c) => [c, warmRate]));

    const rows: (string | number)[][] = [];
    for (const concurrency of CONCURRENCIES) {
      const baseline: Summary[] = [];
      const created: Summary[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        baseline.push(summary(await validations(concurrency, SECONDS)));
        created.push(summary(await orders(concurrency, SECONDS, estimates.get(concurrency)!)));
        estimates.set(concurrency, created.at(-1)!.perSecond);
      }
      rows.push(
        row(kind.name, concurrency, "machine validate, 1-page PDF data URL (baseline)", baseline, baseline),
        row(kind.name, concurrency, "v1 POST /letters from a prepared quote", created, baseline),
      );
    }
    const notes = [
      `${kind.name}: ${prepared} quotes prepared in ${(preparingMs / 1000).toFixed(1)} s (untimed), ${quotes.length - used} left unused; unexpected errors reported by the apps: ${unexpected.length}${unexpected.length > 0 ? ` (first: ${String(unexpected[0])})` : ""}`,
    ];
    return { rows, notes };
  } finally {
    await Promise.allSettled(servers.map((server) => server.close()));
    await dispose();
  }
}

/**
 * Projects API order creations (POST /api/v1/letters, each from its own prepared quote of one completed 1-page
 * document, a fresh Idempotency-Key each) against machine API validations of an equivalent 1-page PDF letter
 * (POST /api/machine/orders/validate, a data URL), both apps over one core, served on 127.0.0.1 and driven from the
 * same process, in the same run, in alternating rounds: at 1 and 8 requests in flight, on the memory store and on
 * the file store.
 */
export async function benchV1(): Promise<string> {
  const rows: (string | number)[][] = [
    [
      "store",
      "in flight",
      "case",
      "req/s",
      "p50 ms",
      "p99 ms",
      "ratio to validate (median, range)",
      "unexpected statuses",
    ],
  ];
  const notes: string[] = [];
  for (const kind of STORE_KINDS) {
    const result = await benchStore(kind);
    rows.push(...result.rows);
    notes.push(...result.notes);
  }
  return [
    `${ROUNDS} rounds of ${SECONDS} s per case after a ${WARM_UP_SECONDS} s warm-up, medians over rounds; one core per store, the v1 and machine apps each on ` +
      "127.0.0.1, client and server in one Node process; counted: 201 for orders, 200 for validations",
    `bench settings: workspace test credits ${TEST_CREDITS_CENTS} cents (cover every order), v1 per-key limit raised to ` +
      `${REQUESTS_PER_WINDOW} requests per ${RATE_WINDOW_MS} ms, machine validate limit raised to ${VALIDATES_PER_MINUTE} per minute; ` +
      "quotes prepared in-process outside the timed windows (a window that runs out of quotes stops, more are made, the rest of its time runs)",
    table(rows),
    ...notes,
  ].join("\n");
}

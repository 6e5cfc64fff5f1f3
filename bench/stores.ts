import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Store } from "../adapters/ports/src/index.ts";
import { createPostgresStore, type PostgresConnectionOptions } from "../adapters/store-postgres/src/index.ts";
import { atomicFsDriver, createFileStore } from "../adapters/store-unstorage/src/index.ts";
import { startPostgres } from "../conformance/src/servers/postgres-server.ts";
import { table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "3");
const CALLERS = 10;
const LIST_RECORDS = 1000;
const PAGE = 100;
/** A record of about half a kilobyte, like an order's. */
const VALUE = {
  id: "ord_000000000000",
  status: "queued",
  workspace: "ws_bench:test",
  recipient: { name: "Ada Lovelace", line1: "12 Example Street", city: "London", postal_code: "N1 9GU" },
  pages: 2,
  color: false,
  price_cents: 184,
  history: [
    { at: 1_767_225_600_000, status: "quoted" },
    { at: 1_767_225_601_000, status: "paid" },
    { at: 1_767_225_602_000, status: "queued" },
  ],
  metadata: { campaign: "spring", batch: "b-0001", note: "x".repeat(120) },
};
const VALUE_JSON = JSON.stringify(VALUE);

type Sql = NonNullable<PostgresConnectionOptions["sql"]>;

/** The `postgres` package is a dependency of the Postgres adapter, not of the workspace root: load it from there. */
async function loadPostgres(): Promise<(url: string, options: Record<string, unknown>) => Sql> {
  const require = createRequire(new URL("../adapters/store-postgres/package.json", import.meta.url));
  const loaded = (await import(pathToFileURL(require.resolve("postgres")).href)) as {
    default: (url: string, options: Record<string, unknown>) => Sql;
  };
  return loaded.default;
}

/** Runs `callers` loops of `step(caller)` for `seconds`; the number of steps done per second. */
async function rate(
  seconds: number,
  callers: number,
  step: (caller: number) => Promise<void>,
): Promise<number> {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      while (performance.now() < deadline) {
        await step(caller);
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** The three workloads, each as a step of one caller; `prepare` runs once before they are measured. */
interface Workloads {
  prepare(): Promise<void>;
  /** Creates a key no step created before. */
  create(): Promise<void>;
  update(caller: number): Promise<void>;
  listPage(caller: number): Promise<void>;
}

const listKey = (i: number) => `l:${String(i).padStart(4, "0")}`;

/** Creates, compare-and-set updates and list pages through the Store port. `run` keeps keys of runs apart. */
function storeWorkloads(store: Store, run: string): Workloads {
  const versions = new Map<number, number>();
  const cursors = new Map<number, string | undefined>();
  let created = 0;
  return {
    async prepare() {
      for (let caller = 0; caller < CALLERS; caller++) {
        versions.set(caller, (await store.put(`u:${run}:${caller}`, VALUE)).version);
      }
      for (let i = 0; i < LIST_RECORDS; i += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, j) => store.put(listKey(i + j), { ...VALUE, id: listKey(i + j) })),
        );
      }
    },
    async create() {
      const result = await store.create(`c:${run}:${created++}`, VALUE);
      if (!result.created) throw new Error("a create of a fresh key did not create it");
    },
    async update(caller) {
      const record = await store.put(`u:${run}:${caller}`, VALUE, { ifVersion: versions.get(caller) ?? 0 });
      versions.set(caller, record.version);
    },
    async listPage(caller) {
      const cursor = cursors.get(caller);
      const page = await store.list("l:", cursor === undefined ? { limit: PAGE } : { limit: PAGE, cursor });
      if (page.records.length === 0) throw new Error("an empty page");
      cursors.set(caller, page.cursor);
    },
  };
}

/** The same work as plain SQL through the driver, on a table of the store's shape, on the same database. */
function rawSqlWorkloads(sql: Sql, run: string): Workloads {
  const versions = new Map<number, number>();
  const cursors = new Map<number, string | undefined>();
  let created = 0;
  const t = sql("bench_raw");
  return {
    async prepare() {
      await sql`create table if not exists ${t} (
        key text collate "C" primary key, value json not null, version bigint not null,
        updated_at bigint not null, expires_at bigint)`;
      for (let caller = 0; caller < CALLERS; caller++) {
        await sql`insert into ${t} values (${`u:${run}:${caller}`}, ${VALUE_JSON}::text::json, 1, ${Date.now()}, null)`;
        versions.set(caller, 1);
      }
      for (let i = 0; i < LIST_RECORDS; i++) {
        await sql`insert into ${t} values (${listKey(i)}, ${VALUE_JSON}::text::json, 1, ${Date.now()}, null)
          on conflict (key) do nothing`;
      }
      // Current statistics for every table of the database, the store's included (it is prepared first), so both
      // sides list with the plans of a table autovacuum has analysed.
      await sql`analyze`;
    },
    async create() {
      await sql`insert into ${t} values (${`c:${run}:${created++}`}, ${VALUE_JSON}::text::json, 1, ${Date.now()}, null)`;
    },
    async update(caller) {
      const version = versions.get(caller) ?? 0;
      const rows = await sql`update ${t} set value = ${VALUE_JSON}::text::json, version = version + 1,
        updated_at = ${Date.now()} where key = ${`u:${run}:${caller}`} and version = ${version} returning version`;
      if (rows.length !== 1) throw new Error("a raw compare-and-set lost");
      versions.set(caller, version + 1);
    },
    async listPage(caller) {
      const cursor = cursors.get(caller) ?? "";
      const rows = await sql<{ key: string; value: string; version: string; updated_at: string }[]>`
        select key, value::text as value, version, updated_at, expires_at from ${t}
        where key >= 'l:' and key < ${"l:\u007f"} and key > ${cursor}
          and (expires_at is null or expires_at > ${Date.now()})
        order by key limit ${PAGE + 1}`;
      // The page as a caller uses it: values parsed.
      const records = rows.slice(0, PAGE).map((row) => ({
        key: row.key,
        value: JSON.parse(row.value) as unknown,
        version: Number(row.version),
        updatedAt: Number(row.updated_at),
      }));
      if (records.length === 0) throw new Error("an empty page");
      cursors.set(caller, rows.length > PAGE ? records.at(-1)?.key : undefined);
    },
  };
}

/** The same work straight on the file store's own unstorage driver (atomic writes, no envelope, no versions). */
function rawFileWorkloads(dir: string, run: string): Workloads {
  const driver = atomicFsDriver({ base: dir });
  const cursors = new Map<number, number>();
  let created = 0;
  const setItem = driver.setItemRaw?.bind(driver);
  const getItem = driver.getItemRaw?.bind(driver);
  if (!setItem || !getItem) throw new Error("the atomic driver has no raw items");
  return {
    async prepare() {
      for (let caller = 0; caller < CALLERS; caller++) await setItem(`u:${run}:${caller}`, VALUE_JSON, {});
      for (let i = 0; i < LIST_RECORDS; i += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, j) => setItem(listKey(i + j), VALUE_JSON, {})));
      }
    },
    async create() {
      const key = `c:${run}:${created++}`;
      if ((await driver.hasItem(key, {})) === true) throw new Error("a fresh key exists");
      await setItem(key, VALUE_JSON, {});
    },
    async update(caller) {
      const key = `u:${run}:${caller}`;
      await getItem(key, {});
      await setItem(key, VALUE_JSON, {});
    },
    async listPage(caller) {
      // A listing reads the keys under the prefix, sorts them, and reads and parses one page of items.
      const keys = (await driver.getKeys("l", {})).sort();
      const from = cursors.get(caller) ?? 0;
      const page = keys.slice(from, from + PAGE);
      if (page.length === 0) throw new Error("an empty page");
      const values = await Promise.all(page.map(async (key) => JSON.parse(String(await getItem(key, {})))));
      if (values.length !== page.length) throw new Error("a page lost items");
      cursors.set(caller, from + PAGE >= keys.length ? 0 : from + PAGE);
    },
  };
}

interface Backend {
  name: string;
  baseline: string;
  open(): Promise<{ store: Workloads; raw: Workloads; dispose(): Promise<void> }>;
}

let runs = 0;
const nextRun = () => `r${++runs}`;

function fileBackend(): Backend {
  return {
    name: "file (store-unstorage)",
    baseline: "its atomic-fs unstorage driver",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "mailpiece-bench-stores-"));
      const store = await createFileStore({ dir: join(dir, "store") });
      return {
        store: storeWorkloads(store, nextRun()),
        raw: rawFileWorkloads(join(dir, "raw"), nextRun()),
        async dispose() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

function postgresBackend(
  url: string,
  postgres: (url: string, options: Record<string, unknown>) => Sql,
): Backend {
  return {
    name: "postgres (store-postgres)",
    baseline: "plain SQL through the postgres driver",
    async open() {
      const store = await createPostgresStore({ url, maxConnections: CALLERS });
      const sql = postgres(url, { max: CALLERS, onnotice: () => undefined });
      return {
        store: storeWorkloads(store, nextRun()),
        raw: rawSqlWorkloads(sql, nextRun()),
        async dispose() {
          await store.close();
          await sql.end();
        },
      };
    },
  };
}

const OPERATIONS: [string, (w: Workloads) => (caller: number) => Promise<void>][] = [
  ["create", (w) => () => w.create()],
  ["compare-and-set update", (w) => (caller) => w.update(caller)],
  [`list page of ${PAGE}`, (w) => (caller) => w.listPage(caller)],
];

async function measure(backend: Backend, rows: (string | number)[][]): Promise<void> {
  const { store, raw, dispose } = await backend.open();
  try {
    await store.prepare();
    await raw.prepare();
    for (const [name, step] of OPERATIONS) {
      // Warm-up, not counted: the JIT and the server's caches settle on both paths.
      await rate(0.3, CALLERS, step(store));
      await rate(0.3, CALLERS, step(raw));
      const rawRate = await rate(SECONDS, CALLERS, step(raw));
      const storeRate = await rate(SECONDS, CALLERS, step(store));
      rows.push([
        backend.name,
        name,
        storeRate.toFixed(0),
        rawRate.toFixed(0),
        (storeRate / rawRate).toFixed(3),
      ]);
    }
  } finally {
    await dispose();
  }
}

/**
 * Store operations per second (creates, compare-and-set updates, list pages) on the embedded file store and on the
 * Postgres store, each against the same work done raw in the same run: on the file store's own unstorage driver, and
 * as plain SQL through the `postgres` driver on the same database. Starts its own PostgreSQL.
 */
export async function benchStores(): Promise<string> {
  const server = await startPostgres();
  const rows: (string | number)[][] = [["store", "operation", "store ops/s", "raw ops/s", "ratio to raw"]];
  try {
    const backends = [fileBackend(), postgresBackend(server.url, await loadPostgres())];
    for (const backend of backends) await measure(backend, rows);
    return [
      `${SECONDS} s a case, ${CALLERS} concurrent callers; records of ${VALUE_JSON.length} bytes of JSON. ` +
        "Raw baselines, measured in the same run: the file store's atomic-fs unstorage driver (write, or read + " +
        "write, without envelope or versions; a list page lists the keys and reads and parses 100 items), and plain SQL " +
        "through the postgres driver on a table of the same shape on the same database (insert, update where " +
        "version matches, select of one page of live records with its values parsed, after analyze). PostgreSQL runs as the bench started it: a local server with " +
        "default settings (fsync on).",
      table(rows),
    ].join("\n");
  } finally {
    await server.stop();
  }
}

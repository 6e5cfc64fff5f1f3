import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Store } from "../adapters/ports/src/index.ts";
import { keyToPath } from "../adapters/store-unstorage/src/fs-key-path.ts";
import type { UnstorageStoreOptions } from "../adapters/store-unstorage/src/index.ts";
import {
  atomicFsDriver,
  createFileStore,
  createMemoryStore,
  createUnstorageStore,
  DEFAULT_CACHE_BYTES,
} from "../adapters/store-unstorage/src/index.ts";
import { median, table } from "./lib.ts";

/** `unstorage` is a dependency of the store adapter, not of the workspace root: load it from there. */
const { createStorage } = createRequire(new URL("../adapters/store-unstorage/package.json", import.meta.url))(
  "unstorage",
) as { createStorage(options?: { driver?: unknown }): UnstorageStoreOptions["storage"] };

const FEW = 10;
const MANY = 100_000;
const LIMIT = 10;
/** Records under the listed prefix: two pages' worth, so the page has a cursor. */
const LISTED = 20;
const PREFIX = "l:m";
/** Time measured per case at most, and list calls at most and at least. */
const BUDGET_MS = 2000;
const MAX_CALLS = 500;
const MIN_CALLS = 5;
const VALUE = { status: "queued", note: "x".repeat(200) };

const pad = (n: number) => String(n).padStart(6, "0");
/** The other keys share the listed keys' directory, half sorting before the prefix and half after. */
const otherKey = (i: number) => (i % 2 === 0 ? `l:a${pad(i)}` : `l:z${pad(i)}`);
const listedKey = (i: number) => `${PREFIX}${pad(i)}`;

/** Median ms of one `list(PREFIX, {limit: 10})`, after a few calls not counted. */
async function listMs(store: Store): Promise<{ ms: number; calls: number }> {
  const once = async () => {
    const page = await store.list(PREFIX, { limit: LIMIT });
    if (page.records.length !== LIMIT || page.cursor === undefined) throw new Error("a wrong page");
  };
  for (let i = 0; i < 3; i++) await once();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < MAX_CALLS && (times.length < MIN_CALLS || performance.now() - start < BUDGET_MS)) {
    const began = performance.now();
    await once();
    times.push(performance.now() - began);
  }
  return { ms: median(times), calls: times.length };
}

interface Case {
  store: string;
  /** The store as it lists now (a sorted index of its keys) and as it listed before (a scan of the keys). */
  indexed: number;
  scanning: number;
}

async function memoryCase(others: number): Promise<Case> {
  const stores = {
    indexed: createMemoryStore(),
    scanning: createUnstorageStore({
      storage: createStorage(),
      name: "memory",
      capabilities: { durable: false, shared: false },
    }),
  };
  const result: Case = { store: "memory", indexed: 0, scanning: 0 };
  for (const kind of ["indexed", "scanning"] as const) {
    const store = stores[kind];
    for (let start = 0; start < others; start += 1000) {
      await Promise.all(
        Array.from({ length: Math.min(1000, others - start) }, (_, i) =>
          store.put(otherKey(start + i), VALUE),
        ),
      );
    }
    for (let i = 0; i < LISTED; i++) await store.put(listedKey(i), VALUE);
    result[kind] = (await listMs(store)).ms;
    await store.close();
  }
  return result;
}

/**
 * The records are written as files in the store's layout without a store (a fsync each would take minutes for
 * 100 000), then the file store opens on them; the scanning store is the file store's storage without its index.
 */
async function fileCase(others: number): Promise<Case> {
  const root = mkdtempSync(join(tmpdir(), "mailpiece-bench-list-"));
  const dir = join(root, "records");
  try {
    const text = JSON.stringify({ v: 1, updatedAt: Date.now(), value: VALUE });
    const keys = [
      ...Array.from({ length: others }, (_, i) => otherKey(i)),
      ...Array.from({ length: LISTED }, (_, i) => listedKey(i)),
    ];
    mkdirSync(dirname(join(dir, ...keyToPath(listedKey(0)))), { recursive: true });
    for (let start = 0; start < keys.length; start += 1000) {
      await Promise.all(
        keys.slice(start, start + 1000).map((key) => writeFile(join(dir, ...keyToPath(key)), text)),
      );
    }
    const result: Case = { store: "file", indexed: 0, scanning: 0 };
    const indexed = await createFileStore({ dir });
    result.indexed = (await listMs(indexed)).ms;
    await indexed.close();
    const scanning = createUnstorageStore({
      storage: createStorage({ driver: atomicFsDriver({ base: dir }) }),
      name: "file",
      capabilities: { durable: true, shared: false },
      cacheBytes: DEFAULT_CACHE_BYTES,
    });
    result.scanning = (await listMs(scanning)).ms;
    await scanning.close();
    return result;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The cost of one list page (`list(prefix, {limit: 10})`) with 10 and with 100 000 other keys in the store, on the
 * memory store and on the file store, as a ratio (≈1 when a page costs its own records); beside it the same
 * store listing by a scan of its keys, as both did before they kept a sorted index, measured in the same run.
 */
export async function benchListCost(): Promise<string> {
  const rows: (string | number)[][] = [
    ["store", "other keys", "list ms", "ratio", "list ms by a scan (before)", "ratio"],
  ];
  for (const open of [memoryCase, fileCase]) {
    const few = await open(FEW);
    const many = await open(MANY);
    for (const [count, figures] of [
      [FEW, few],
      [MANY, many],
    ] as const) {
      rows.push([
        figures.store,
        count,
        figures.indexed.toFixed(4),
        (figures.indexed / few.indexed).toFixed(2),
        figures.scanning.toFixed(3),
        (figures.scanning / few.scanning).toFixed(2),
      ]);
    }
  }
  return [
    `one list page (limit ${LIMIT}) of the ${LISTED} keys under "${PREFIX}", median of up to ${MAX_CALLS} calls ` +
      `(${BUDGET_MS / 1000} s a case); the other keys share its directory ("l:a…", "l:z…"), so a scan reads them; ` +
      `ratio to the same store with ${FEW} other keys. File records are written as files, then the store opens on them.`,
    table(rows),
  ].join("\n");
}

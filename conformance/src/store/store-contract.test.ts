import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock, CreateResult, ListPage, Store, StoredRecord } from "@mailpiece/ports";
import { isValidKey, PortError } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite, type SuiteReport, type TestOutcome } from "../kit.ts";
import { openSharedReferenceStore, type SharedFault } from "./shared-reference-store.fixture.ts";
import type { StoreContractName } from "./store-contract.ts";
import { STORE_CONTRACT_NAMES, storeContract } from "./store-contract.ts";

/** Ways to break the small reference store below, each of which one contract test must catch. */
type Fault =
  | "no key check"
  | "lax values"
  | "shared values"
  | "racy create"
  | "racy compare-and-set"
  | "versions from zero"
  | "delete always true"
  | "ttl ignored"
  | "ttl inclusive"
  | "segment prefix"
  | "inclusive cursor"
  | "unbounded limit"
  | "offset cursor";

interface Entry {
  json: string;
  version: number;
  updatedAt: number;
  expiresAt?: number;
}

/** A deliberately plain in-memory Store: correct with no faults, so every contract test passes on it. */
function referenceStore(clock: Clock, faults: ReadonlySet<Fault>, data = new Map<string, Entry>()): Store {
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  const shared = new Map<string, unknown>();
  const check = (key: unknown) => {
    if (!faults.has("no key check") && !isValidKey(key)) throw new PortError("invalid_key", "invalid key");
  };
  const serialise = (value: unknown): string => {
    if (faults.has("lax values")) return JSON.stringify(value) ?? "null";
    if (typeof value === "function" || value === undefined)
      throw new PortError("value_not_serializable", "bad");
    try {
      return JSON.stringify(value);
    } catch {
      throw new PortError("value_not_serializable", "bad");
    }
  };
  const live = (entry: Entry | undefined): Entry | undefined => {
    if (!entry || entry.expiresAt === undefined || faults.has("ttl ignored")) return entry;
    const alive = faults.has("ttl inclusive")
      ? clock.now() <= entry.expiresAt
      : clock.now() < entry.expiresAt;
    return alive ? entry : undefined;
  };
  const record = <T>(key: string, entry: Entry): StoredRecord<T> => {
    let value = JSON.parse(entry.json) as T;
    if (faults.has("shared values")) {
      if (!shared.has(`${key}@${entry.version}`)) shared.set(`${key}@${entry.version}`, value);
      value = shared.get(`${key}@${entry.version}`) as T;
    }
    const out: StoredRecord<T> = { key, value, version: entry.version, updatedAt: entry.updatedAt };
    if (entry.expiresAt !== undefined) out.expiresAt = entry.expiresAt;
    return out;
  };
  const write = (key: string, json: string, version: number, ttlMs: number | undefined): Entry => {
    const entry: Entry = { json, version, updatedAt: clock.now() };
    if (ttlMs !== undefined) entry.expiresAt = entry.updatedAt + ttlMs;
    data.set(key, entry);
    return entry;
  };
  const conflict = () => new PortError("version_conflict", "conflict");
  return {
    name: "reference",
    capabilities: { durable: false, shared: false },
    async get<T>(key: string) {
      check(key);
      const entry = live(data.get(key));
      return entry ? record<T>(key, entry) : undefined;
    },
    async create<T>(key: string, value: T, options?: { ttlMs?: number }): Promise<CreateResult<T>> {
      check(key);
      const json = serialise(value);
      const existing = live(data.get(key));
      if (faults.has("racy create")) await tick();
      if (existing) return { created: false, record: record<T>(key, existing) };
      const current = live(data.get(key));
      if (current && !faults.has("racy create")) return { created: false, record: record<T>(key, current) };
      return { created: true, record: record<T>(key, write(key, json, 1, options?.ttlMs)) };
    },
    async put<T>(key: string, value: T, options?: { ttlMs?: number; ifVersion?: number }) {
      check(key);
      const json = serialise(value);
      const existing = live(data.get(key));
      if (options?.ifVersion !== undefined && existing?.version !== options.ifVersion) throw conflict();
      if (faults.has("racy compare-and-set")) await tick();
      const base = faults.has("versions from zero") && !existing ? -1 : (existing?.version ?? 0);
      return record<T>(key, write(key, json, base + 1, options?.ttlMs));
    },
    async delete(key: string, options?: { ifVersion?: number }) {
      check(key);
      const existing = live(data.get(key));
      if (options?.ifVersion !== undefined && existing?.version !== options.ifVersion) throw conflict();
      const had = data.delete(key);
      return faults.has("delete always true") ? true : had && existing !== undefined;
    },
    async list<T>(prefix: string, options?: { cursor?: string; limit?: number }): Promise<ListPage<T>> {
      const limit = faults.has("unbounded limit")
        ? Number.POSITIVE_INFINITY
        : Math.min(options?.limit ?? 100, 1000);
      const matches = (key: string) =>
        faults.has("segment prefix")
          ? key === prefix || key.startsWith(`${prefix}:`)
          : key.startsWith(prefix);
      const after = (key: string) => {
        if (options?.cursor === undefined || faults.has("offset cursor")) return true;
        return faults.has("inclusive cursor") ? key >= options.cursor : key > options.cursor;
      };
      const keys = [...data.keys()].filter((key) => matches(key) && after(key) && live(data.get(key))).sort();
      // The "offset cursor" fault counts positions instead of remembering the last key.
      const start = faults.has("offset cursor") && options?.cursor !== undefined ? Number(options.cursor) : 0;
      const page = keys.slice(start, start + limit);
      const records = page.map((key) => record<T>(key, data.get(key) as Entry));
      const last = page.at(-1);
      if (keys.length <= start + page.length || last === undefined) return { records };
      return { records, cursor: faults.has("offset cursor") ? String(start + page.length) : last };
    },
    async close() {},
  };
}

const DURABLE: StoreContractName = "durable: acknowledged writes survive reopen";
const SHARED: StoreContractName =
  "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost";

/** The tests that answered not applicable, with their reasons. */
const notApplicableIn = (report: SuiteReport) =>
  report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);

async function failuresWith(faults: Fault[]): Promise<Map<string, string>> {
  const set = new Set(faults);
  const report = await runSuite(storeContract({ create: async ({ clock }) => referenceStore(clock, set) }));
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

describe("storeContract", () => {
  it("has one test per name, in the order of STORE_CONTRACT_NAMES", () => {
    const suite = storeContract({ create: async ({ clock }) => referenceStore(clock, new Set()) });
    expect(suite.tests.map((t) => t.name)).toEqual([...STORE_CONTRACT_NAMES]);
    expect(new Set(STORE_CONTRACT_NAMES).size).toBe(STORE_CONTRACT_NAMES.length);
  });

  it("passes a correct store", async () => {
    expect(await failuresWith([])).toEqual(new Map());
  });

  const caught: Array<[Fault, StoreContractName]> = [
    ["no key check", "rejects invalid keys with invalid_key"],
    ["lax values", "rejects non-serialisable values"],
    ["shared values", "get returns a copy"],
    ["racy create", "create is atomic under concurrent callers"],
    ["racy compare-and-set", "put with ifVersion: exactly one of many concurrent callers succeeds"],
    ["versions from zero", "put stores the previous version + 1, and 1 when absent"],
    ["delete always true", "delete returns whether a live record was removed"],
    ["ttl ignored", "ttl: expired records are absent from get, list and create"],
    ["ttl inclusive", "ttl: a record is live until ttlMs has passed on the store's clock"],
    ["segment prefix", "list returns exactly the live records whose key starts with the prefix"],
    ["inclusive cursor", "list pages in key order and the cursor continues after the last key"],
    ["unbounded limit", "list returns at most limit records: 100 by default, never more than 1000"],
    ["offset cursor", "list: a key present for the whole listing appears exactly once"],
  ];
  for (const [fault, test] of caught) {
    it(`catches a store with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("answers not applicable for durability and sharing, saying why, for a store that declares neither", async () => {
    const reopens = [undefined, async (previous: Store) => previous];
    for (const reopen of reopens) {
      const report = await runSuite(
        storeContract({
          create: async ({ clock }) => referenceStore(clock, new Set()),
          ...(reopen ? { reopen } : {}),
        }),
      );
      expect(report.failed).toBe(0);
      expect(notApplicableIn(report)).toEqual([
        [DURABLE, "the store declares durable: false"],
        [SHARED, "the store declares shared: false"],
      ]);
    }
  });

  it("fails the durability test of a durable store when reopen is missing, saying so", async () => {
    const report = await runSuite(
      storeContract({
        create: async ({ clock }) => ({
          ...referenceStore(clock, new Set()),
          capabilities: { durable: true, shared: false },
        }),
      }),
    );
    const durable = report.outcomes.find((o) => o.name === DURABLE);
    expect(durable?.status).toBe("failed");
    expect(durable?.reason).toMatch(/pass reopen/);
  });

  it("checks durability through reopen: a store that forgets fails, one that keeps its data passes", async () => {
    const run = async (keep: boolean) => {
      const datas = new WeakMap<Store, { data: Map<string, Entry>; clock: Clock }>();
      const open = (clock: Clock, data: Map<string, Entry>): Store => {
        const store = {
          ...referenceStore(clock, new Set(), data),
          capabilities: { durable: true, shared: false },
        };
        datas.set(store, { data, clock });
        return store;
      };
      const report = await runSuite(
        storeContract({
          create: async ({ clock }) => open(clock, new Map()),
          reopen: async (previous) => {
            const was = datas.get(previous);
            if (!was) throw new Error("unknown store");
            return open(was.clock, keep ? was.data : new Map());
          },
        }),
      );
      return report.outcomes.find((o) => o.name === DURABLE)?.status === "passed";
    };
    expect(await run(true)).toBe(true);
    expect(await run(false)).toBe(false);
  });
});

describe("storeContract: the shared test", () => {
  /** Runs the shared test alone on the file-shared reference store, with `fault` in every process. */
  async function sharedOutcome(fault: SharedFault | undefined, withOpening = true): Promise<TestOutcome> {
    const root = await mkdtemp(join(tmpdir(), "mailpiece-shared-store-"));
    try {
      const dirs = new WeakMap<Store, string>();
      let opened = 0;
      const suite = storeContract({
        async create({ clock }) {
          const dir = join(root, `store-${++opened}`);
          const store = await openSharedReferenceStore({ dir, clock, ...(fault ? { fault } : {}) });
          dirs.set(store, dir);
          return store;
        },
        ...(withOpening
          ? {
              sharedOpening: (store: Store) => ({
                module: new URL("./shared-reference-store.fixture.ts", import.meta.url).href,
                export: "openSharedReferenceStore",
                options: { dir: dirs.get(store), fault },
              }),
            }
          : {}),
      });
      const report = await runSuite({
        name: suite.name,
        tests: suite.tests.filter((t) => t.name === SHARED),
      });
      const [outcome] = report.outcomes;
      if (!outcome) throw new Error("the suite has no shared test");
      return outcome;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }

  it("passes a store that several processes really share", async () => {
    const outcome = await sharedOutcome(undefined);
    expect(outcome.reason).toBeUndefined();
    expect(outcome.status).toBe("passed");
  }, 60_000);

  const faults: Array<[SharedFault, RegExp]> = [
    ["process-local data", /absent in this process|exactly one/],
    ["in-process lock", /exactly once|exactly one|none is lost/],
  ];
  for (const [fault, message] of faults) {
    it(`catches a store declared shared with the fault "${fault}"`, async () => {
      const outcome = await sharedOutcome(fault);
      expect(outcome.status).toBe("failed");
      expect(outcome.reason).toMatch(message);
    }, 60_000);
  }

  it("fails a store that declares shared: true without sharedOpening, saying so", async () => {
    const outcome = await sharedOutcome(undefined, false);
    expect(outcome.status).toBe("failed");
    expect(outcome.reason).toMatch(/pass sharedOpening/);
  }, 60_000);
});

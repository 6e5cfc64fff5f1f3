/**
 * A small Store that several processes share through one JSON file, for the kit's own tests of the shared-store
 * test: correct with no fault (every operation holds a lock directory that `mkdir` takes atomically across
 * processes), and broken on purpose with one.
 */
import { mkdir, readFile, rename, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Clock,
  type CreateResult,
  isValidKey,
  type ListPage,
  PortError,
  type Store,
  type StoredRecord,
  systemClock,
} from "@mailpiece/ports";

export type SharedFault =
  /** Each process keeps its own file: nothing is shared at all. */
  | "process-local data"
  /** The lock only orders operations within one process, so processes overwrite each other's writes. */
  | "in-process lock";

export interface SharedReferenceStoreOptions {
  dir: string;
  fault?: SharedFault;
  clock?: Clock;
}

interface Entry {
  value: unknown;
  version: number;
  updatedAt: number;
}

type Data = Record<string, Entry>;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let writes = 0;

export async function openSharedReferenceStore(options: SharedReferenceStoreOptions): Promise<Store> {
  const clock = options.clock ?? systemClock;
  const dir = options.fault === "process-local data" ? join(options.dir, `pid-${process.pid}`) : options.dir;
  await mkdir(dir, { recursive: true });
  const file = join(dir, "data.json");
  const lockDir = join(dir, "lock");
  let local: Promise<unknown> = Promise.resolve();

  async function locked<T>(action: (data: Data) => Promise<{ result: T; changed: boolean }>): Promise<T> {
    if (options.fault === "in-process lock") {
      const run = local.then(async () => {
        const data = await read();
        // Another process reads the same data meanwhile; the write below then loses its changes.
        await pause(5);
        const { result, changed } = await action(data);
        if (changed) await save(data);
        return result;
      });
      local = run.catch(() => undefined);
      return run;
    }
    for (;;) {
      try {
        await mkdir(lockDir);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST") throw error;
        await pause(2);
      }
    }
    try {
      const data = await read();
      const { result, changed } = await action(data);
      if (changed) await save(data);
      return result;
    } finally {
      await rmdir(lockDir);
    }
  }

  async function read(): Promise<Data> {
    try {
      return JSON.parse(await readFile(file, "utf8")) as Data;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return {};
      throw error;
    }
  }

  async function save(data: Data): Promise<void> {
    const temporary = `${file}.${process.pid}.${++writes}.tmp`;
    await writeFile(temporary, JSON.stringify(data));
    await rename(temporary, file);
  }

  const check = (key: string) => {
    if (!isValidKey(key)) throw new PortError("invalid_key", `invalid key ${JSON.stringify(key)}`);
  };
  const copy = (value: unknown): unknown => {
    const json = JSON.stringify(value);
    if (json === undefined) throw new PortError("value_not_serializable", "not JSON");
    return JSON.parse(json);
  };
  const record = <T>(key: string, entry: Entry): StoredRecord<T> => ({
    key,
    value: copy(entry.value) as T,
    version: entry.version,
    updatedAt: entry.updatedAt,
  });
  const conflict = () => new PortError("version_conflict", "the stored version differs");

  return {
    name: "shared-reference",
    capabilities: { durable: true, shared: true },
    async get<T>(key: string) {
      check(key);
      return locked(async (data) => {
        const entry = data[key];
        return { result: entry ? record<T>(key, entry) : undefined, changed: false };
      });
    },
    async create<T>(key: string, value: T): Promise<CreateResult<T>> {
      check(key);
      const stored = copy(value);
      return locked(async (data): Promise<{ result: CreateResult<T>; changed: boolean }> => {
        const entry = data[key];
        if (entry) return { result: { created: false, record: record<T>(key, entry) }, changed: false };
        const created: Entry = { value: stored, version: 1, updatedAt: clock.now() };
        data[key] = created;
        return { result: { created: true, record: record<T>(key, created) }, changed: true };
      });
    },
    async put<T>(key: string, value: T, putOptions?: { ifVersion?: number }) {
      check(key);
      const stored = copy(value);
      return locked(async (data) => {
        const entry = data[key];
        if (putOptions?.ifVersion !== undefined && entry?.version !== putOptions.ifVersion) throw conflict();
        const written: Entry = { value: stored, version: (entry?.version ?? 0) + 1, updatedAt: clock.now() };
        data[key] = written;
        return { result: record<T>(key, written), changed: true };
      });
    },
    async delete(key: string, deleteOptions?: { ifVersion?: number }) {
      check(key);
      return locked(async (data) => {
        const entry = data[key];
        if (deleteOptions?.ifVersion !== undefined && entry?.version !== deleteOptions.ifVersion)
          throw conflict();
        if (!entry) return { result: false, changed: false };
        delete data[key];
        return { result: true, changed: true };
      });
    },
    async list<T>(prefix: string, listOptions?: { cursor?: string; limit?: number }): Promise<ListPage<T>> {
      const limit = Math.min(listOptions?.limit ?? 100, 1000);
      return locked(async (data) => {
        const keys = Object.keys(data)
          .filter(
            (key) =>
              key.startsWith(prefix) && (listOptions?.cursor === undefined || key > listOptions.cursor),
          )
          .sort();
        const page = keys.slice(0, limit);
        const records = page.map((key) => record<T>(key, data[key] as Entry));
        const last = page.at(-1);
        return {
          result: keys.length > page.length && last !== undefined ? { records, cursor: last } : { records },
          changed: false,
        };
      });
    },
    async close() {},
  };
}

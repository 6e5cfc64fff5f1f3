/**
 * A small Store that several processes share through one JSON file, for the kit's own tests of the shared-store
 * test: correct with no fault (every operation holds a lock directory that `mkdir` takes atomically across
 * processes), and broken on purpose with one.
 */
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
import { openSharedFile, type SharedFileFault } from "../processes/shared-file.ts";

export type SharedFault = SharedFileFault;

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

export async function openSharedReferenceStore(options: SharedReferenceStoreOptions): Promise<Store> {
  const clock = options.clock ?? systemClock;
  const locked = await openSharedFile<Data>(options.dir, "data.json", () => ({}), options.fault);

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

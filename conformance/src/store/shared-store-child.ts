/**
 * One of the processes of the shared-store test: runs each phase the suite asks for on the store the adapter's test
 * opens, and reports what every operation returned.
 */
import type { Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { servePortPhases } from "../processes/port-child.ts";
import {
  type ClaimsResult,
  type DeletesResult,
  type IncrementsResult,
  type PutsResult,
  type ReadsResult,
  SHARED_PLAN,
  type SharedPhase,
  type SharedResults,
  sharedKeys,
} from "./shared-store-plan.ts";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const isConflict = (error: unknown) => PortError.isInstance(error) && error.code === "version_conflict";

const phases: { [P in SharedPhase]: (store: Store, worker: number) => Promise<SharedResults[P]> } = {
  async claims(store, worker): Promise<ClaimsResult> {
    const claims = await Promise.all(
      range(SHARED_PLAN.claims).map(async (i) => {
        const result = await store.create(sharedKeys.claim(i), { worker, i });
        return { i, created: result.created, version: result.record.version, value: result.record.value };
      }),
    );
    return { claims };
  },

  async puts(store, worker): Promise<PutsResult> {
    const [puts] = await Promise.all([
      Promise.all(
        range(SHARED_PLAN.puts).map(async (j) => {
          const record = await store.put(sharedKeys.put, { worker, j });
          return { version: record.version, value: record.value };
        }),
      ),
      Promise.all(range(SHARED_PLAN.own).map((j) => store.create(sharedKeys.own(worker, j), { worker, j }))),
    ]);
    return { puts };
  },

  async increments(store): Promise<IncrementsResult> {
    const versions: number[] = [];
    let conflicts = 0;
    while (versions.length < SHARED_PLAN.increments) {
      if (conflicts > 10_000) throw new Error("10000 compare-and-set conflicts without progress");
      const current = await store.get<{ n: number }>(sharedKeys.counter);
      if (!current) {
        throw new Error(
          `${sharedKeys.counter}, written by the suite before this phase, is absent in this process`,
        );
      }
      try {
        const written = await store.put(
          sharedKeys.counter,
          { n: current.value.n + 1 },
          { ifVersion: current.version },
        );
        versions.push(written.version);
      } catch (error) {
        if (!isConflict(error)) throw error;
        conflicts += 1;
      }
    }
    return { versions, conflicts };
  },

  async deletes(store): Promise<DeletesResult> {
    const keys = range(SHARED_PLAN.deletes);
    const [plain, conditional] = await Promise.all([
      Promise.all(keys.map((i) => store.delete(sharedKeys.deleted(i)))),
      Promise.all(
        keys.map(async (i): Promise<"deleted" | "version_conflict"> => {
          try {
            if (await store.delete(sharedKeys.casDeleted(i), { ifVersion: 1 })) return "deleted";
            throw new Error(
              `delete(${sharedKeys.casDeleted(i)}, ifVersion 1) returned false instead of throwing`,
            );
          } catch (error) {
            if (isConflict(error)) return "version_conflict";
            throw error;
          }
        }),
      ),
    ]);
    return { plain, conditional };
  },

  async reads(store): Promise<ReadsResult> {
    const claims = await Promise.all(
      range(SHARED_PLAN.claims).map(async (i) => (await store.get(sharedKeys.claim(i)))?.value ?? null),
    );
    const own: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await store.list(
        sharedKeys.ownPrefix,
        cursor === undefined ? { limit: 4 } : { limit: 4, cursor },
      );
      own.push(...page.records.map((r) => r.key));
      cursor = page.cursor;
      if (cursor === undefined) break;
    }
    return { claims, own };
  },
};

servePortPhases<Store, SharedPhase>("store", phases);

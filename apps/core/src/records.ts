import type { Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { CoreError } from "./errors.ts";

/**
 * Applies `change` to the record under `key` with compare-and-set, re-reading and re-applying on a conflict, so
 * concurrent updates (also from other processes sharing the store) never lose each other. `change` gets a copy and
 * returns undefined to leave the record as it is.
 */
export async function updateRecord<T extends { updated_at: number }>(
  store: Store,
  key: string,
  now: () => number,
  change: (record: T) => T | undefined,
  /** Makes the record when it is absent (the change is then applied to it); without it, absent is an error. */
  initial?: () => T,
  /**
   * The time to live of the changed record, in ms, for a record that expires (a put replaces its expiry):
   * undefined keeps it for good.
   */
  ttlMsOf?: (record: T) => number | undefined,
): Promise<T> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const current = await store.get<T>(key);
    if (!current) {
      if (!initial) throw new CoreError("internal_error", `${key} vanished while being updated`);
      await store.create(key, initial());
      continue;
    }
    const next = change(structuredClone(current.value));
    if (!next) return current.value;
    next.updated_at = now();
    const ttlMs = ttlMsOf?.(next);
    try {
      return (
        await store.put<T>(key, next, {
          ifVersion: current.version,
          ...(ttlMs === undefined ? {} : { ttlMs }),
        })
      ).value;
    } catch (error) {
      if (PortError.isInstance(error) && error.code === "version_conflict") continue;
      throw error;
    }
  }
  throw new CoreError("storage_unavailable", `${key} is too contended to update; try again`);
}

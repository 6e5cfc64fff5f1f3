import { PortError } from "./errors.ts";
import { serialiseJson } from "./serialise-json.ts";
import type { WriteOptions } from "./store.ts";
import { isValidKey } from "./store.ts";

/*
 * Shared by the Store and BlobStore adapters: one message format, one set of argument checks and one open/closed
 * lifecycle, so every store refuses the same input with the same code and words.
 */

/** The message prefix of one store, e.g. `[mailpiece] [file-store]`. */
export function messageTag(name: string, kind: "store" | "blob-store"): string {
  return `[mailpiece] [${name}-${kind}]`;
}

export function invalidKeyError(tag: string, key: unknown): PortError {
  const shown =
    typeof key === "string" ? JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key) : String(key);
  return new PortError(
    "invalid_key",
    `${tag} invalid key ${shown}: use 1 to 512 letters, digits, '.', '_', '-' or ':', starting with a letter or digit`,
  );
}

export function closedError(tag: string): PortError {
  return new PortError("store_unavailable", `${tag} the store is closed`);
}

/** Wraps a failure of the underlying storage; a PortError passes through unchanged. */
export function storageError(tag: string, action: string, cause: unknown): PortError {
  if (PortError.isInstance(cause)) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new PortError("store_unavailable", `${tag} could not ${action}: ${reason}`, { cause });
}

/**
 * Open/closed state of a store: refuses calls after `close()`, and lets `close()` wait for every call and
 * background task still running before it releases anything.
 */
export interface StoreLifecycle {
  /** Runs a call of the store's API; rejects with `store_unavailable` once the store is closing. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Starts best-effort work (its failure is ignored) that `close()` still waits for. */
  background(task: () => Promise<unknown>): void;
  /** Idempotent: waits for running work, then calls `release` once. */
  close(release: () => Promise<void>): Promise<void>;
}

export function createStoreLifecycle(tag: string): StoreLifecycle {
  let closing: Promise<void> | undefined;
  const running = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    running.add(promise);
    const done = () => {
      running.delete(promise);
    };
    promise.then(done, done);
    return promise;
  };
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      if (closing) return Promise.reject(closedError(tag));
      let promise: Promise<T>;
      try {
        promise = task();
      } catch (error) {
        promise = Promise.reject(error);
      }
      return track(promise);
    },
    background(task: () => Promise<unknown>): void {
      if (closing) return;
      track(
        Promise.resolve()
          .then(task)
          .catch(() => undefined),
      );
    },
    close(release: () => Promise<void>): Promise<void> {
      closing ??= (async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
        await release();
      })();
      return closing;
    },
  };
}

/** The argument checks every Store method makes, with the store's message tag. */
export function createStoreChecks(tag: string) {
  return {
    assertKey(key: unknown): string {
      if (!isValidKey(key)) throw invalidKeyError(tag, key);
      return key;
    },
    serialise(key: string, value: unknown): string {
      const result = serialiseJson(value);
      if (!result.ok) {
        throw new PortError(
          "value_not_serializable",
          `${tag} the value for ${JSON.stringify(key)} is not JSON-serialisable: it holds ${result.reason}`,
        );
      }
      return result.json;
    },
    ttlOf(options: WriteOptions | undefined): number | undefined {
      const ttlMs = options?.ttlMs;
      if (ttlMs === undefined) return undefined;
      if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs < 0) {
        throw new RangeError(
          `${tag} ttlMs must be a finite number of milliseconds, 0 or more; got ${String(ttlMs)}`,
        );
      }
      return ttlMs;
    },
  };
}

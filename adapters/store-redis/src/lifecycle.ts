import { closedError } from "./port-errors.ts";

/**
 * Open/closed state of a store: refuses calls after `close()`, and lets `close()` wait for every call and
 * background task still running before it releases anything.
 */
export interface Lifecycle {
  /** Runs a call of the store's API; rejects with `store_unavailable` once the store is closing. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Starts best-effort work (its failure is ignored) that `close()` still waits for. */
  background(task: () => Promise<unknown>): void;
  /** Idempotent: waits for running work, then calls `release` once. */
  close(release: () => Promise<void>): Promise<void>;
}

export function createLifecycle(tag: string): Lifecycle {
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

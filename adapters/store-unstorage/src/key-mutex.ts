/**
 * A mutex per key: callers for one key run one after another, callers for different keys never wait for each
 * other. Holds no state for idle keys.
 */
export interface KeyMutex {
  /** Runs `task` once every earlier task for `key` has settled; resolves or rejects with its outcome. */
  run<T>(key: string, task: () => Promise<T>): Promise<T>;
  /** How many keys have a task running or waiting. */
  readonly activeKeys: number;
}

export function createKeyMutex(): KeyMutex {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, task: () => Promise<T>): Promise<T> {
      const previous = tails.get(key);
      let release!: () => void;
      const done = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous ? previous.then(() => done) : done;
      tails.set(key, tail);
      try {
        if (previous) await previous;
        return await task();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
    get activeKeys() {
      return tails.size;
    },
  };
}

/**
 * `load` run once, on the first call, and its promise shared by every later call; a load that failed is tried again
 * by the next call. For adapters whose libraries or data a process should hold only once it uses them.
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    if (loaded === undefined) {
      const attempt = load();
      loaded = attempt;
      attempt.catch(() => {
        if (loaded === attempt) loaded = undefined;
      });
    }
    return loaded;
  };
}

/**
 * Runs the tasks given for one key one after another, and tasks of different keys side by side: within one
 * process, a second send under a key waits for the first and then finds its record, instead of racing it.
 */
export function keyLanes(): <T>(key: string, task: () => Promise<T>) => Promise<T> {
  const lanes = new Map<string, Promise<unknown>>();
  return (key, task) => {
    const previous = lanes.get(key) ?? Promise.resolve();
    const mine = previous.then(task);
    const settled = mine.then(
      () => undefined,
      () => undefined,
    );
    lanes.set(key, settled);
    void settled.then(() => {
      if (lanes.get(key) === settled) lanes.delete(key);
    });
    return mine;
  };
}

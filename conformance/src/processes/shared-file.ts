/**
 * Data that several processes share through one JSON file, for the reference ports of the kit's own multi-process
 * tests: correct with no fault (every access holds a lock directory that `mkdir` takes atomically across processes),
 * and broken on purpose with one.
 */
import { mkdir, readFile, rename, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export type SharedFileFault =
  /** Each process keeps its own file: nothing is shared at all. */
  | "process-local data"
  /** The lock only orders accesses within one process, so processes overwrite each other's changes. */
  | "in-process lock";

/** Runs `action` on the data under the lock; the data is written back when the action says it changed it. */
export type SharedFileAccess<Data> = <T>(
  action: (data: Data) => Promise<{ result: T; changed: boolean }>,
) => Promise<T>;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let writes = 0;

/** Opens the data in `name` under `dir` (made when absent); `empty` is the data before the first write. */
export async function openSharedFile<Data>(
  dir: string,
  name: string,
  empty: () => Data,
  fault?: SharedFileFault,
): Promise<SharedFileAccess<Data>> {
  const home = fault === "process-local data" ? join(dir, `pid-${process.pid}`) : dir;
  await mkdir(home, { recursive: true });
  const file = join(home, name);
  const lockDir = join(home, `${name}.lock`);
  let local: Promise<unknown> = Promise.resolve();

  const read = async (): Promise<Data> => {
    try {
      return JSON.parse(await readFile(file, "utf8")) as Data;
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return empty();
      throw error;
    }
  };
  const save = async (data: Data): Promise<void> => {
    const temporary = `${file}.${process.pid}.${++writes}.tmp`;
    await writeFile(temporary, JSON.stringify(data));
    await rename(temporary, file);
  };

  return async (action) => {
    if (fault === "in-process lock") {
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
  };
}

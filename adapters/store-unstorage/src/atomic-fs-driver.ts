import { randomBytes } from "node:crypto";
import type { Dirent } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { defineDriver } from "unstorage";
import { baseToPath, classifyName, keyToPath } from "./fs-key-path.ts";

export interface AtomicFsDriverOptions {
  /** The directory holding the items. Created when missing. */
  base: string;
}

/** Temporary files start with this; reads and listings never see them, `removeTempFiles` deletes them. */
export const TEMP_PREFIX = ".tmp-";
const DRIVER_NAME = "mailpiece-atomic-fs";

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/** Makes the directory entries written so far in `dir` durable. */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * An unstorage driver that keeps each item in its own file under `base` and never leaves a half-written one:
 * a write goes to a temporary file in the same directory, is flushed with fsync, renamed over the target, and the
 * directory is flushed too. Killed at any moment, every item holds its old or its new content; leftover temporary
 * files are ignored and removed by `removeTempFiles`. Keys map to paths with `keyToPath` (fs-key-path.ts), so no
 * key leaves `base` and listing under a base reads only that directory's subtree.
 *
 * `getItemRaw(key, { headBytes })` reads at most `headBytes` leading bytes.
 */
export const atomicFsDriver = defineDriver((options: AtomicFsDriverOptions) => {
  if (!options?.base) throw new Error(`[mailpiece] [${DRIVER_NAME}] the base option is required`);
  const root = resolve(options.base);
  const creatingDirs = new Map<string, Promise<void>>();

  const pathOf = (key: string): string => {
    try {
      return join(root, ...keyToPath(key));
    } catch (error) {
      throw new Error(`[mailpiece] [${DRIVER_NAME}] invalid key ${JSON.stringify(key)}`, { cause: error });
    }
  };

  /** Creates `dir` and its missing parents, making each new entry durable before any file is put in it. */
  const ensureDir = (dir: string): Promise<void> => {
    const pending = creatingDirs.get(dir);
    if (pending) return pending;
    const creating = (async () => {
      const first = await mkdir(dir, { recursive: true, mode: 0o700 });
      if (first === undefined) return;
      const created: string[] = [];
      for (let current = dir; ; current = dirname(current)) {
        created.push(current);
        if (current === first || current === dirname(current)) break;
      }
      for (const made of created.reverse()) await syncDirectory(dirname(made));
    })().finally(() => creatingDirs.delete(dir));
    creatingDirs.set(dir, creating);
    return creating;
  };

  const writeAtomic = async (file: string, data: string | Uint8Array): Promise<void> => {
    const dir = dirname(file);
    await ensureDir(dir);
    const temp = join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(8).toString("hex")}`);
    let handle: FileHandle | undefined = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
      await handle.close();
      handle = undefined;
      await rename(temp, file);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await syncDirectory(dir);
  };

  const readItem = async (key: string, headBytes?: number): Promise<Buffer | null> => {
    const file = pathOf(key);
    try {
      if (headBytes === undefined) return await readFile(file);
      const handle = await open(file, "r");
      try {
        const buffer = Buffer.alloc(headBytes);
        const { bytesRead } = await handle.read(buffer, 0, headBytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  const walk = async (dir: string, keyPrefix: string, pending: string, keys: string[]): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const entry of entries) {
      const name = classifyName(entry.name);
      if (name.kind === "file" && entry.isFile()) {
        keys.push(`${keyPrefix}${pending}${name.part}`);
      } else if (name.kind === "inner" && entry.isDirectory()) {
        await walk(join(dir, entry.name), `${keyPrefix}${pending}${name.part}:`, "", keys);
      } else if (name.kind === "continued" && entry.isDirectory()) {
        await walk(join(dir, entry.name), keyPrefix, `${pending}${name.part}`, keys);
      }
    }
  };

  const getKeys = async (base: string | undefined): Promise<string[]> => {
    const whole = (base ?? "").replace(/:+$/, "");
    const keys: string[] = [];
    await walk(join(root, ...baseToPath(whole)), whole === "" ? "" : `${whole}:`, "", keys);
    return keys;
  };

  const removeItem = async (key: string): Promise<void> => {
    const file = pathOf(key);
    try {
      await unlink(file);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    await syncDirectory(dirname(file));
  };

  return {
    name: DRIVER_NAME,
    options,
    async hasItem(key: string) {
      try {
        return (await stat(pathOf(key))).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    async getItem(key: string) {
      const buffer = await readItem(key);
      return buffer === null ? null : buffer.toString("utf8");
    },
    getItemRaw(key: string, opts: { headBytes?: unknown } = {}) {
      const headBytes = opts.headBytes;
      return readItem(
        key,
        typeof headBytes === "number" && headBytes > 0 ? Math.floor(headBytes) : undefined,
      );
    },
    setItem(key: string, value: string) {
      return writeAtomic(pathOf(key), value);
    },
    setItemRaw(key: string, value: unknown) {
      if (typeof value !== "string" && !(value instanceof Uint8Array)) {
        throw new Error(`[mailpiece] [${DRIVER_NAME}] setItemRaw takes a string or a Uint8Array`);
      }
      return writeAtomic(pathOf(key), value);
    },
    removeItem,
    getKeys,
    async clear(base: string) {
      for (const key of await getKeys(base)) await removeItem(key);
    },
  };
});

/**
 * Deletes the temporary files a killed writer left under `base` and the directories left empty. Only safe while
 * no other writer uses `base` (the file stores call it right after taking the directory's lock).
 * Returns how many temporary files were removed.
 */
export async function removeTempFiles(base: string): Promise<number> {
  const root = resolve(base);
  let removed = 0;
  const sweep = async (dir: string): Promise<boolean> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
    let remaining = entries.length;
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
        await unlink(path);
        removed += 1;
        remaining -= 1;
      } else if (entry.isDirectory() && (await sweep(path))) {
        const gone = await rmdir(path).then(
          () => true,
          () => false,
        );
        if (gone) remaining -= 1;
      }
    }
    return remaining === 0;
  };
  await sweep(root);
  return removed;
}

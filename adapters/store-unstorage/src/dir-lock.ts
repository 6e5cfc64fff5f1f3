import { randomBytes } from "node:crypto";
import { link, open, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PortError } from "@mailpiece/ports";
import { TEMP_PREFIX } from "./atomic-fs-driver.ts";

/** An exclusive hold on a directory, for one process at a time. */
export interface DirLock {
  /** The lock file. */
  readonly path: string;
  /** Removes the lock file if it is still this hold's. Idempotent. */
  release(): Promise<void>;
}

export const LOCK_FILE = ".lock";

/**
 * Identifies this process in lock files beside its pid, so a lock left by an earlier process that happened to get
 * the same pid (common in containers) is recognised as stale. Shared by every copy of this module in the process.
 */
const TOKEN_SLOT = Symbol.for("mailpiece.store-unstorage.lock-token");
function processToken(): string {
  const slots = globalThis as Record<symbol, unknown>;
  slots[TOKEN_SLOT] ??= randomBytes(8).toString("hex");
  return slots[TOKEN_SLOT] as string;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as { code?: string }).code : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}

function parseHolder(content: string): { pid: number; token: string } | undefined {
  const match = /^(\d+)(?: ([0-9a-f]+))?\s*$/.exec(content);
  const pid = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return { pid, token: match[2] ?? "" };
}

function tempName(dir: string, purpose: string): string {
  return join(dir, `${TEMP_PREFIX}${purpose}-${process.pid}-${randomBytes(6).toString("hex")}`);
}

/**
 * Creates the lock file holding `content`, failing like O_EXCL when it exists. The content is written to a
 * temporary file first and hard-linked into place, so the lock file is never seen empty or half-written.
 * Returns false when a lock file is already there.
 */
async function createExclusive(dir: string, lockPath: string, content: string): Promise<boolean> {
  const temp = tempName(dir, "lock");
  await writeFile(temp, content, { flag: "wx", mode: 0o600 });
  try {
    await link(temp, lockPath);
    return true;
  } catch (error) {
    const code = errorCode(error);
    if (code === "EEXIST" || code === "ENOENT") return false;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP") throw error;
    // No hard links on this file system: plain O_EXCL.
    try {
      const handle = await open(lockPath, "wx", 0o600);
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      return true;
    } catch (fallbackError) {
      if (errorCode(fallbackError) === "EEXIST") return false;
      throw fallbackError;
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Moves a stale lock file away, unless it changed since it was read (then it is someone's new lock). */
async function removeStale(dir: string, lockPath: string, seen: string): Promise<void> {
  const aside = tempName(dir, "stale-lock");
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  const moved = await readFile(aside, "utf8").catch(() => undefined);
  if (moved !== seen) await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/**
 * Takes the exclusive lock of `dir` (which must exist): the file `.lock`, created exclusively, holding this
 * process's pid. A lock whose pid is no longer alive is taken over. A live holder makes it fail with
 * `store_unavailable`.
 */
export async function lockDirectory(dir: string, tag: string): Promise<DirLock> {
  const lockPath = join(dir, LOCK_FILE);
  const mine = `${process.pid} ${processToken()}\n`;
  for (let attempt = 0; attempt < 10; attempt++) {
    if (await createExclusive(dir, lockPath, mine)) {
      let released = false;
      return {
        path: lockPath,
        async release() {
          if (released) return;
          released = true;
          const content = await readFile(lockPath, "utf8").catch(() => undefined);
          if (content === mine) await unlink(lockPath).catch(() => undefined);
        },
      };
    }
    let content: string;
    try {
      content = await readFile(lockPath, "utf8");
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue;
      throw error;
    }
    const holder = parseHolder(content);
    if (holder?.pid === process.pid && holder.token === processToken()) {
      throw new PortError(
        "store_unavailable",
        `${tag} ${dir} (DATA_DIR) is already open in this process (pid ${process.pid}); close the other store first`,
      );
    }
    if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new PortError(
        "store_unavailable",
        `${tag} another process (pid ${holder.pid}) holds ${dir} (DATA_DIR); stop it first, or delete ${lockPath} if no Mailpiece process uses this directory`,
      );
    }
    // Stale: its process is gone, or it is unreadable.
    await removeStale(dir, lockPath, content);
  }
  throw new PortError(
    "store_unavailable",
    `${tag} could not take the lock ${lockPath}: other processes keep taking it`,
  );
}

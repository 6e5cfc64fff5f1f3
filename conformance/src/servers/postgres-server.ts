/**
 * A throwaway PostgreSQL server for tests: `initdb` into a fresh temporary directory, then `postgres` listening on
 * 127.0.0.1 at a free port, with trust authentication for the superuser `mailpiece`. Finds the server's programs on
 * PATH or under /usr/lib/postgresql/<version>/bin (where Debian's `postgresql` package puts them). PostgreSQL refuses
 * to run as root, so as root both programs run as the `postgres` system user (which that package creates), and the
 * directory belongs to that user.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { accessSync, chownSync, constants, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { freePort } from "./free-port.ts";

export interface PostgresServer {
  /** `postgres://mailpiece@127.0.0.1:<port>/postgres`: the superuser, no password (trust on loopback). */
  url: string;
  /** Stops the server (fast shutdown) and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const SUPERUSER = "mailpiece";
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const OUTPUT_LIMIT = 20_000;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder holding `initdb` and `postgres`: the first on PATH, else the newest /usr/lib/postgresql/<v>/bin. */
function findBinDir(): string {
  const both = (dir: string) => isExecutable(join(dir, "initdb")) && isExecutable(join(dir, "postgres"));
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && both(dir)) return dir;
  }
  let versions: string[] = [];
  try {
    versions = readdirSync("/usr/lib/postgresql");
  } catch {}
  versions.sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  for (const version of versions) {
    const dir = join("/usr/lib/postgresql", version, "bin");
    if (both(dir)) return dir;
  }
  throw new Error(
    "PostgreSQL is not installed: no initdb and postgres on PATH or under /usr/lib/postgresql/*/bin. " +
      "Install the Debian/Ubuntu package `postgresql` (apt-get install postgresql, or run scripts/system-deps.sh).",
  );
}

/** As root, the uid and gid of the `postgres` system user the server runs as; otherwise nothing to change. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => {
    try {
      return Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8", stdio: "pipe" }).trim());
    } catch {
      throw new Error(
        "PostgreSQL refuses to run as root, and there is no `postgres` system user to run it as. " +
          "Debian's `postgresql` package creates that user: install it (apt-get install postgresql).",
      );
    }
  };
  return { uid: id("-u"), gid: id("-g") };
}

/** Runs `program` to the end, as `user` when given; rejects with its output when it fails. */
function run(program: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], ...user });
    let output = "";
    const collect = (chunk: Buffer) => {
      if (output.length < OUTPUT_LIMIT) output += chunk.toString();
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${program} failed (${signal ?? `exit code ${code}`}):\n${output}`));
    });
  });
}

/** Starts `postgres` and waits until it accepts connections; rejects with its output when it stops first. */
async function startServer(
  program: string,
  args: string[],
  user: { uid: number; gid: number } | undefined,
): Promise<ChildProcess> {
  const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"], ...user });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off("data", collect);
      child.stderr?.off("data", collect);
      child.off("exit", onExit);
      child.off("error", done);
      if (error) reject(error);
      else resolve();
    };
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
      if (output.includes("database system is ready to accept connections")) done();
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`postgres exited (${signal ?? `exit code ${code}`}) before it was ready:\n${output}`));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(new Error(`postgres was not ready within ${START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, START_TIMEOUT_MS);
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("exit", onExit);
    child.once("error", done);
  });
  return child;
}

/**
 * Starts a PostgreSQL server for a test on 127.0.0.1 at a free port, in a new temporary directory: superuser
 * `mailpiece` without password, database `postgres`, encoding UTF8 and locale C. Call `stop()` when done; the server
 * is also ended if this process exits first.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findBinDir();
  const user = serverUser();
  const base = mkdtempSync(join(tmpdir(), "mailpiece-pg-"));
  const data = join(base, "data");
  const removeBase = () => rmSync(base, { recursive: true, force: true });
  let child: ChildProcess | undefined;
  let port = 0;
  try {
    if (user) chownSync(base, user.uid, user.gid);
    await run(
      join(bin, "initdb"),
      ["-D", data, "-A", "trust", "-U", SUPERUSER, "-E", "UTF8", "--locale=C", "--no-sync"],
      user,
    );
    // A port found free may be taken before the server binds it: try a few.
    for (let attempt = 1; !child; attempt++) {
      port = await freePort();
      try {
        child = await startServer(
          join(bin, "postgres"),
          ["-D", data, "-k", base, "-h", "127.0.0.1", "-p", String(port), "-c", "max_connections=200"],
          user,
        );
      } catch (error) {
        if (attempt >= 3 || !/could not (bind|create listen socket)/i.test(String(error))) throw error;
      }
    }
  } catch (error) {
    removeBase();
    throw error;
  }

  const server = child;
  // The child is the postmaster itself (spawned directly, as the `postgres` user when root), so signals reach it.
  // When this process exits without stop(): end the server at once and remove what it can of the directory.
  const killOnExit = () => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGQUIT");
    try {
      removeBase();
    } catch {}
  };
  process.once("exit", killOnExit);
  // Keep reading the server's log so that its pipes never fill up.
  server.stdout?.resume();
  server.stderr?.resume();

  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`,
    stop() {
      stopping ??= (async () => {
        process.off("exit", killOnExit);
        if (server.exitCode === null && server.signalCode === null) {
          const exited = once(server, "exit");
          // SIGINT: fast shutdown, which ends open sessions instead of waiting for them.
          server.kill("SIGINT");
          const timer = setTimeout(() => server.kill("SIGKILL"), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(timer);
        }
        removeBase();
      })();
      return stopping;
    },
  };
}

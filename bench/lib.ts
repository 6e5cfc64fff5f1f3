import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

export interface Child {
  url: string;
  pid: number;
  /** Peak resident memory of the process so far, in MiB (VmHWM). */
  peakRssMiB(): number;
  /** Resident memory of the process now, in MiB (VmRSS). */
  rssMiB(): number;
  stop(): Promise<void>;
}

let serverBuilt = false;

/**
 * Starts the Mailpiece server as `pnpm start` runs it: built to JavaScript (once per benchmark run) and run by plain
 * Node with the start script's flags (the `mailpiece-built` condition, so that every workspace package resolves to its
 * built files, and the V8 memory flags).
 */
export async function startServer(env: Record<string, string> = {}): Promise<Child> {
  if (!serverBuilt) {
    const built = spawnSync(process.execPath, ["scripts/build-package.mjs", "apps/server"], {
      stdio: "inherit",
    });
    if (built.status !== 0) throw new Error("the server did not build");
    serverBuilt = true;
  }
  const command = startCommand();
  return startChild(`apps/server/${command.at(-1)}`, env, command.slice(1, -1));
}

/** The node command that `pnpm start` runs last (apps/server/package.json): node, its flags, the entry file. */
function startCommand(): string[] {
  const manifest = JSON.parse(readFileSync("apps/server/package.json", "utf8")) as {
    scripts: { start: string };
  };
  const command = manifest.scripts.start.split("&&").at(-1)!.trim().split(/\s+/);
  if (command[0] !== "node") throw new Error(`the server's start script does not end with a node command`);
  return command;
}

/**
 * Starts a server process that prints a JSON log line with a `url` field once it listens, and waits for that line.
 * A `.ts` script runs under tsx, anything else under plain Node with `nodeArgs`.
 */
export async function startChild(
  script: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<Child> {
  const args = script.endsWith(".ts") ? ["--import", "tsx", script] : [...nodeArgs, script];
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000);
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code} before listening`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (const line of buffer.split("\n")) {
        try {
          const parsed = JSON.parse(line) as { url?: string };
          if (parsed.url) {
            clearTimeout(timer);
            resolve(parsed.url);
          }
        } catch {}
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
  });
  child.stdout!.resume();
  return {
    url,
    pid: child.pid!,
    peakRssMiB: () => statusMiB(child.pid!, "VmHWM"),
    rssMiB: () => statusMiB(child.pid!, "VmRSS"),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** A memory figure of /proc/<pid>/status, in MiB. */
function statusMiB(pid: number, field: "VmHWM" | "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return kb / 1024;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50ms: number;
  p99ms: number;
  non2xx: number;
  errors: number;
}

/**
 * Sends POST requests for `seconds` over `connections` connections, each with one of `bodies` (round robin) or the
 * body `bodies(n)` gives for the n-th request.
 */
export async function load(
  url: string,
  bodies: string[] | ((n: number) => string),
  options: { seconds: number; connections: number; expectStatus?: number },
): Promise<LoadResult> {
  let i = 0;
  const result = await autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        setupRequest(request) {
          const n = i++;
          const body = typeof bodies === "function" ? bodies(n) : bodies[n % bodies.length]!;
          return { ...request, body };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50ms: result.latency.p50,
    p99ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function table(rows: (string | number)[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((cell, c) => String(cell).padEnd(widths[c]!)).join("  ")).join("\n");
}

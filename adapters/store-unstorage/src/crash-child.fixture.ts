import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

/** Starting and killing `crash-writer.fixture.ts` in a child process, for the file store's tests. */
export interface CrashChild {
  readonly process: ChildProcess;
  /** Every complete stdout line so far. */
  readonly lines: string[];
  /** Resolves once the child printed `ready`; rejects if it ends first. */
  readonly ready: Promise<void>;
  /** Resolves with how the child ended, once its output is fully read. */
  readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const FIXTURE = fileURLToPath(new URL("./crash-writer.fixture.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export function startCrashChild(args: string[]): CrashChild {
  const child = spawn(process.execPath, ["--import", TSX, FIXTURE, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let stderr = "";
  let partial = "";
  let markReady!: () => void;
  let failReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = `${partial}${chunk}`.split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      if (line === "ready") markReady();
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => {
      child.on("close", (code, signal) => {
        failReady(
          new Error(`the child ended before it was ready (code ${code}, signal ${signal}): ${stderr}`),
        );
        resolve({ code, signal, stderr });
      });
    },
  );
  ready.catch(() => undefined);
  return { process: child, lines, ready, ended };
}

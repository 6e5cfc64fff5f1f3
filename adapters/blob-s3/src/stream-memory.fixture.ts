import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BlobInfo } from "@mailpiece/ports";

export interface StreamMemoryPlan {
  /** The module that makes the blob store (a file URL), its export, and the options it is called with. */
  module: string;
  export: string;
  options: unknown;
  bytes: number;
  /**
   * Collect garbage before a sample once this many bytes have passed: measures what the store holds rather than the
   * process's natural peak. Absent: never.
   */
  collectEveryBytes?: number;
}

export interface StepMemory {
  ms: number;
  /** Bytes of resident memory at the step's peak over those before it; null where /proc is missing. */
  peakRssGrowth: number | null;
  /** Bytes of `process.memoryUsage().arrayBuffers` at the step's largest sample over those before it. */
  peakArrayBuffersGrowth: number;
}

export interface StreamMemoryReport {
  bytes: number;
  /** Whether the blob was written with putStream and read with getStream (else put and get). */
  streamed: boolean;
  collectEveryBytes: number | null;
  sha256: string;
  write: StepMemory & { info: BlobInfo };
  read: StepMemory & { sha256: string; size: number };
}

const CHILD = fileURLToPath(new URL("./stream-memory-child.fixture.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** Runs stream-memory-child.fixture.ts on `plan` in a fresh Node process and returns what it reports. */
export async function measureStreamMemory(plan: StreamMemoryPlan): Promise<StreamMemoryReport> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", TSX, CHILD, JSON.stringify(plan)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const line = stdout.split("\n").find((l) => l.startsWith("{"));
  if (code !== 0 || line === undefined) {
    throw new Error(`the stream memory child ended with ${code}:\n${stderr.slice(-4000)}`);
  }
  return JSON.parse(line) as StreamMemoryReport;
}

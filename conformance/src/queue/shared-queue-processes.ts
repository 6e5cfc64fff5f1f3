import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { extname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type {
  FromQueueProcess,
  JobQueueOpening,
  SharedQueuePhase,
  SharedQueueResults,
  ToQueueProcess,
} from "./shared-queue-plan.ts";

/** The program each process runs, next to this module (`.ts` in the source, `.js` once built). */
const childProgram = () =>
  fileURLToPath(new URL(`./shared-queue-child${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
/** tsx's loader, so the child runs TypeScript modules (its own and the adapter's). */
const tsxLoader = () => pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** The most output of one process kept for error messages. */
const OUTPUT_LIMIT = 20_000;

interface QueueProcess {
  worker: number;
  child: ChildProcess;
  next(): Promise<FromQueueProcess>;
}

/** Several processes that each opened one queue; each phase runs in all of them at once. */
export interface QueueProcesses {
  /** Runs `phase` in every process at once and returns each process's result, by worker number. */
  run<P extends SharedQueuePhase>(phase: P): Promise<Array<SharedQueueResults[P]>>;
  /** Closes every queue and waits for every process to exit. */
  close(): Promise<void>;
  /** Ends every process still running. */
  kill(): void;
}

function start(worker: number): QueueProcess {
  const child = fork(childProgram(), [], {
    execArgv: ["--import", tsxLoader()],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    serialization: "json",
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    if (output.length < OUTPUT_LIMIT) output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const queue: FromQueueProcess[] = [];
  let waiting: { resolve(message: FromQueueProcess): void; reject(error: Error): void } | undefined;
  let ended: Error | undefined;
  child.on("message", (message: FromQueueProcess) => {
    const waiter = waiting;
    waiting = undefined;
    if (waiter) waiter.resolve(message);
    else queue.push(message);
  });
  const end = (why: string) => {
    ended ??= new Error(`queue process ${worker} ${why}${output ? `:\n${output}` : ""}`);
    const waiter = waiting;
    waiting = undefined;
    waiter?.reject(ended);
  };
  child.on("exit", (code, signal) => end(`exited (${signal ?? `code ${code}`})`));
  child.on("error", (error) => end(`failed: ${error.message}`));
  return {
    worker,
    child,
    next() {
      const message = queue.shift();
      if (message) return Promise.resolve(message);
      if (ended) return Promise.reject(ended);
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject };
      });
    },
  };
}

async function expect<T extends FromQueueProcess["type"]>(
  member: QueueProcess,
  type: T,
): Promise<Extract<FromQueueProcess, { type: T }>> {
  const message = await member.next();
  if (message.type === "failed") throw new Error(`queue process ${member.worker}: ${message.message}`);
  if (message.type !== type) {
    throw new Error(`queue process ${member.worker} answered ${message.type} where ${type} was due`);
  }
  return message as Extract<FromQueueProcess, { type: T }>;
}

function send(member: QueueProcess, message: ToQueueProcess): void {
  member.child.send(message);
}

/** Starts `count` processes and waits until each has opened the queue `opening` describes. */
export async function startQueueProcesses(opening: JobQueueOpening, count: number): Promise<QueueProcesses> {
  const processes = Array.from({ length: count }, (_, worker) => start(worker));
  const kill = () => {
    for (const { child } of processes) {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    }
  };
  try {
    for (const member of processes) send(member, { type: "open", opening, worker: member.worker });
    await Promise.all(processes.map((member) => expect(member, "ready")));
  } catch (error) {
    kill();
    throw error;
  }
  return {
    async run(phase) {
      for (const member of processes) send(member, { type: "phase", phase });
      const done = await Promise.all(processes.map((member) => expect(member, "done")));
      return done.map((message) => message.result as SharedQueueResults[typeof phase]);
    },
    async close() {
      for (const member of processes) send(member, { type: "close" });
      await Promise.all(processes.map((member) => expect(member, "closed")));
      await Promise.all(
        processes.map(
          ({ child }) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) resolve();
              else child.once("exit", () => resolve());
            }),
        ),
      );
    },
    kill,
  };
}

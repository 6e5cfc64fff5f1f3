import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { extname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FromPortProcess, PortOpening, ToPortProcess } from "./protocol.ts";

/** tsx's loader, so a child runs TypeScript modules (its own and the adapter's). */
const tsxLoader = () => pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/** The most output of one process kept for error messages. */
const OUTPUT_LIMIT = 20_000;

/** The path of the program `name` next to the module at `moduleUrl`, with that module's extension (`.ts` in the
 * source, `.js` once built). */
export function siblingProgram(moduleUrl: string, name: string): string {
  return fileURLToPath(new URL(`./${name}${extname(fileURLToPath(moduleUrl))}`, moduleUrl));
}

interface Member<Phase extends string> {
  worker: number;
  child: ChildProcess;
  next(): Promise<FromPortProcess<Phase>>;
}

/** Several processes that each opened one port; each phase runs in all of them at once. */
export interface PortProcesses<Results extends object> {
  /** Runs `phase` in every process at once and returns each process's result, by worker number. */
  run<P extends keyof Results & string>(phase: P): Promise<Array<Results[P]>>;
  /** Closes every port and waits for every process to exit. */
  close(): Promise<void>;
  /** Ends every process still running. */
  kill(): void;
}

function start<Phase extends string>(program: string, label: string, worker: number): Member<Phase> {
  const child = fork(program, [], {
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
  const queue: FromPortProcess<Phase>[] = [];
  let waiting: { resolve(message: FromPortProcess<Phase>): void; reject(error: Error): void } | undefined;
  let ended: Error | undefined;
  child.on("message", (message: FromPortProcess<Phase>) => {
    const waiter = waiting;
    waiting = undefined;
    if (waiter) waiter.resolve(message);
    else queue.push(message);
  });
  const end = (why: string) => {
    ended ??= new Error(`${label} process ${worker} ${why}${output ? `:\n${output}` : ""}`);
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

/**
 * Starts `count` processes running `program` (a child that serves its phases with `servePortPhases`) and waits until
 * each has opened the port `opening` describes. `label` names the port in errors ("store process 2 exited …").
 */
export async function startPortProcesses<Results extends object>(
  program: string,
  label: string,
  opening: PortOpening,
  count: number,
): Promise<PortProcesses<Results>> {
  type Phase = keyof Results & string;
  const processes = Array.from({ length: count }, (_, worker) => start<Phase>(program, label, worker));
  const send = (member: Member<Phase>, message: ToPortProcess<Phase>) => member.child.send(message);
  const expect = async <T extends FromPortProcess<Phase>["type"]>(member: Member<Phase>, type: T) => {
    const message = await member.next();
    if (message.type === "failed") throw new Error(`${label} process ${member.worker}: ${message.message}`);
    if (message.type !== type) {
      throw new Error(`${label} process ${member.worker} answered ${message.type} where ${type} was due`);
    }
    return message as Extract<FromPortProcess<Phase>, { type: T }>;
  };
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
      return done.map((message) => message.result as Results[typeof phase]);
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

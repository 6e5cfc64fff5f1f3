import { spawn } from "node:child_process";

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Killed after this many milliseconds; the result then has code null. */
  timeoutMs: number;
}

/** Runs a program to its end and collects what it printed; never rejects for a non-zero exit. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
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
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a program and throws, with everything it printed, unless it exits with 0. */
export async function runOk(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<Finished> {
  const finished = await run(command, args, options);
  if (finished.code !== 0) {
    const how =
      finished.code === null ? `was stopped after ${options.timeoutMs} ms` : `exited with ${finished.code}`;
    throw new Error(
      `${[command, ...args].join(" ")} (in ${options.cwd}) ${how}\n${finished.stdout}\n${finished.stderr}`,
    );
  }
  return finished;
}

/** At most `size` of the tasks given to the returned function run at once; the others wait in order. */
export function limit(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * The environment for npm and node in a consumer's project: this one without what a package manager running this
 * test sets for its own scripts (lifecycle and package variables, its user agent) and without NODE_OPTIONS, so no
 * loader or TypeScript support leaks into the project.
 */
export function consumerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_(lifecycle|package)_|pnpm_|PNPM_|VITEST|NODE_OPTIONS$|TSX_)/.test(key)) continue;
    if (/^npm_(execpath|node_execpath|command|config_user_agent)$/.test(key)) continue;
    env[key] = value;
  }
  return env;
}

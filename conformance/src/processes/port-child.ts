/**
 * The body of a process of a multi-process contract test: opens the port as the suite says, runs each phase it asks
 * for and reports what the phase returned. Run by the suite (startPortProcesses) with `node --import tsx`, an IPC
 * channel open; exits when the channel closes.
 */
import { pathToFileURL } from "node:url";
import type { FromPortProcess, ToPortProcess } from "./protocol.ts";

/** A phase: what one process does with the port, and the result it reports (as JSON). */
export type PortPhase<Port> = (port: Port, worker: number) => Promise<unknown>;

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${error.name}${typeof code === "string" ? ` (${code})` : ""}: ${error.message}`;
  }
  return String(error);
}

/** Serves the suite's messages in this process with `phases`; `label` names the port in errors. */
export function servePortPhases<Port extends { close(): Promise<void> }, Phase extends string>(
  label: string,
  phases: { [P in Phase]: PortPhase<Port> },
): void {
  let port: Port | undefined;
  let worker = -1;

  const send = (message: FromPortProcess<Phase>): Promise<void> =>
    new Promise((resolve, reject) => {
      if (!process.send) {
        reject(new Error(`this process has no IPC channel: the shared-${label} test starts it`));
        return;
      }
      process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
    });

  const handle = async (message: ToPortProcess<Phase>): Promise<void> => {
    switch (message.type) {
      case "open": {
        worker = message.worker;
        const { module, export: name, options } = message.opening;
        const url = module.startsWith("file:") ? module : pathToFileURL(module).href;
        const loaded = (await import(url)) as Record<string, unknown>;
        const open = loaded[name];
        if (typeof open !== "function") throw new Error(`${module} exports no function ${name}`);
        port = (await open(options)) as Port;
        await send({ type: "ready" });
        return;
      }
      case "phase": {
        if (!port) throw new Error(`a phase was asked for before the ${label} was opened`);
        await send({ type: "done", phase: message.phase, result: await phases[message.phase](port, worker) });
        return;
      }
      case "close": {
        await port?.close();
        port = undefined;
        await send({ type: "closed" });
        process.disconnect();
        return;
      }
    }
  };

  let chain: Promise<void> = Promise.resolve();
  process.on("message", (message: ToPortProcess<Phase>) => {
    chain = chain
      .then(() => handle(message))
      .catch((error: unknown) => send({ type: "failed", message: describe(error) }).catch(() => undefined));
  });
  process.on("disconnect", () => process.exit(0));
}

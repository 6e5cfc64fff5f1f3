/**
 * The entry of every pool worker thread. Plain JavaScript, so that Node loads it without any TypeScript loader.
 *
 * The pool passes `workerData.tasks`: the URL of the job module next to the pool module that created it, either
 * `worker-tasks.ts` (Mailpiece running from its TypeScript sources) or `worker-tasks.js` (a built `dist/`). The
 * built module is imported as it is. For the TypeScript module, tsx's ESM loader is first registered in this thread
 * through its public API (`tsx/esm/api`): worker threads get no TypeScript support from the thread that made them,
 * neither from vitest's transform nor from `tsx` running the server (on Node 20 its loader is not applied to
 * worker threads), so the registration here is always needed.
 *
 * The job module loads once per thread, starting as soon as the thread starts; piscina calls the exports below by
 * name. No top-level await: piscina may load this file with require().
 */
import { workerData } from "node:worker_threads";

const tasksUrl = String(workerData?.tasks ?? "");

const tasks = loadTasks();
// A failed load is reported by the first job that needs the module, not as an unhandled rejection.
tasks.catch(() => {});

async function loadTasks() {
  if (tasksUrl === "") throw new Error("The PDF worker was started without the URL of its job module.");
  if (/\.[cm]?ts$/.test(new URL(tasksUrl).pathname)) {
    const { register } = await import("tsx/esm/api");
    register();
  }
  return import(tasksUrl);
}

export async function typesetLetter(task) {
  return (await tasks).typesetLetter(task);
}

export async function typesetHandwritten(task) {
  return (await tasks).typesetHandwritten(task);
}

export async function inspectPdf(task) {
  return (await tasks).inspectPdf(task);
}

export async function checkPostcard(task) {
  return (await tasks).checkPostcard(task);
}

export async function buildPacket(task) {
  return (await tasks).buildPacket(task);
}

export async function watermarkPdf(task) {
  return (await tasks).watermarkPdf(task);
}

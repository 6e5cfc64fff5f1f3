/**
 * The jobs a worker thread runs, one export per operation (loaded by worker.mjs, called by piscina by name). Each
 * calls its engine and answers a WorkerReply: engine errors come back as data, PDF bytes come back transferred.
 * An engine is imported the first time a job needs it, so a fresh thread starts with only what its job uses.
 */
import { move, transferableSymbol, valueSymbol } from "piscina";
import type { PacketOptions } from "./pdf-work.ts";
import { returnableBytes } from "./transfer.ts";
import type { WorkerReply, WorkerTasks } from "./wire.ts";
import type { EngineErrorClasses } from "./wire-error.ts";
import { toWireError } from "./wire-error.ts";

/** The error classes of the engines loaded so far in this thread. */
const loaded: EngineErrorClasses = {};

async function typesetter() {
  const engine = await import("@mailpiece/typesetter");
  loaded.TypesetterError = engine.TypesetterError;
  return engine;
}

// Letters are most of the work: the typesetter starts loading with the thread, before the first job asks for it.
typesetter().catch(() => {});

async function postcard() {
  const engine = await import("@mailpiece/postcard");
  loaded.PostcardError = engine.PostcardError;
  return engine;
}

async function forms() {
  const [engine, root] = await Promise.all([
    import("@mailpiece/forms/packet"),
    import("@mailpiece/forms"),
    typesetter(),
  ]);
  loaded.FormsError = root.FormsError;
  return engine;
}

export function typesetLetter(task: WorkerTasks["typesetLetter"]): Promise<unknown> {
  return answer(async () => (await typesetter()).typesetLetter(task.input), withPdf);
}

export function typesetHandwritten(task: WorkerTasks["typesetHandwritten"]): Promise<unknown> {
  return answer(async () => (await typesetter()).typesetHandwritten(task.input), withPdf);
}

export function inspectPdf(task: WorkerTasks["inspectPdf"]): Promise<unknown> {
  return answer(async () => (await typesetter()).inspectPdf(task.bytes as Uint8Array), plain);
}

export function checkPostcard(task: WorkerTasks["checkPostcard"]): Promise<unknown> {
  return answer(
    async () => (await postcard()).checkPostcard(task.bytes as Uint8Array, task.size, task.options),
    plain,
  );
}

export function watermarkPdf(task: WorkerTasks["watermarkPdf"]): Promise<unknown> {
  return answer(async () => {
    // The mark is set by the typesetter, and its refusals are TypesetterErrors: it is loaded first.
    await typesetter();
    const { watermarkPdf: mark } = await import("./watermark-pdf.ts");
    return mark(task.bytes as Uint8Array, task.options);
  }, withPdf);
}

export function buildPacket(task: WorkerTasks["buildPacket"]): Promise<unknown> {
  const { clockNow } = task;
  const options: PacketOptions =
    clockNow === undefined ? task.options : { ...task.options, clock: { now: () => clockNow } };
  return answer(async () => (await forms()).buildPacket(task.workflow, task.input, options), withPdf);
}

type Outgoing<T> = { reply: WorkerReply<T>; transfer: ArrayBuffer[] };

async function answer<T>(run: () => Promise<T>, pack: (value: T) => Outgoing<T>): Promise<unknown> {
  let outgoing: Outgoing<T>;
  try {
    outgoing = pack(await run());
  } catch (error) {
    outgoing = { reply: { ok: false, error: toWireError(error, loaded) }, transfer: [] };
  }
  if (outgoing.transfer.length === 0) return outgoing.reply;
  // A piscina "movable": the reply is posted with the buffers in its transfer list, so they move instead of copying.
  return move({ [transferableSymbol]: outgoing.transfer, [valueSymbol]: outgoing.reply });
}

function plain<T>(value: T): Outgoing<T> {
  return { reply: { ok: true, value }, transfer: [] };
}

function withPdf<T extends { pdf: Uint8Array }>(value: T): Outgoing<T> {
  const { bytes, transfer } = returnableBytes(value.pdf);
  return { reply: { ok: true, value: { ...value, pdf: bytes } }, transfer };
}

import type {
  CheckPostcardOptions,
  HandwrittenInput,
  LetterInput,
  PacketFormInput,
  PacketOptions,
  PacketWorkflow,
  PostcardSize,
  WatermarkOptions,
} from "./pdf-work.ts";
import type { WireError } from "./wire-error.ts";

/** What the main thread posts to a worker for each operation (plain, structured-cloneable data). */
export interface WorkerTasks {
  typesetLetter: { input: LetterInput };
  typesetHandwritten: { input: HandwrittenInput };
  inspectPdf: { bytes: Uint8Array | null };
  checkPostcard: { bytes: Uint8Array | null; size: PostcardSize; options: CheckPostcardOptions | undefined };
  /**
   * A Clock cannot cross a thread: `clock` is left out of the options and `clockNow` carries the reading of its
   * `now()` taken at submission (NaN when the clock given has no `now` function), rebuilt as a fixed clock.
   */
  buildPacket: {
    workflow: PacketWorkflow;
    input: PacketFormInput;
    options: Omit<PacketOptions, "clock">;
    clockNow?: number;
  };
  watermarkPdf: { bytes: Uint8Array | null; options: WatermarkOptions };
}

export type WorkerOperation = keyof WorkerTasks;

/** What a worker answers: the engine's result, or the engine's error as data. Never a thrown error. */
export type WorkerReply<T> = { ok: true; value: T } | { ok: false; error: WireError };

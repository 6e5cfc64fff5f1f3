import type { buildPacket } from "@mailpiece/forms/packet";
import type { checkPostcard } from "@mailpiece/postcard";
import type { inspectPdf, typesetHandwritten, typesetLetter } from "@mailpiece/typesetter";
import type { WatermarkOptions, WatermarkResult } from "./watermark-pdf.ts";

// Every type is taken from the engine function it stands for, so a new (optional) input of an engine flows through.

/** The input of `typesetLetter` (@mailpiece/typesetter). */
export type LetterInput = Parameters<typeof typesetLetter>[0];
/** The typeset letter: its PDF bytes and page count. */
export type TypesetLetterResult = Awaited<ReturnType<typeof typesetLetter>>;
/** The input of `typesetHandwritten` (@mailpiece/typesetter): message, addresses, style, date, watermark. */
export type HandwrittenInput = Parameters<typeof typesetHandwritten>[0];
/** The typeset handwritten card: its PDF bytes, page count (1) and the size its message was set at. */
export type TypesetHandwrittenResult = Awaited<ReturnType<typeof typesetHandwritten>>;
/** What `inspectPdf` reads from a PDF: page count and page sizes. */
export type PdfInfo = Awaited<ReturnType<typeof inspectPdf>>;
/** A postcard size of `checkPostcard` (@mailpiece/postcard). */
export type PostcardSize = Parameters<typeof checkPostcard>[1];
/** The options of `checkPostcard` (the size tolerance). */
export type CheckPostcardOptions = NonNullable<Parameters<typeof checkPostcard>[2]>;
/** The result of a postcard check: ok, problems, page canvases. */
export type PostcardCheck = Awaited<ReturnType<typeof checkPostcard>>;
/** A workflow loaded by `loadWorkflow` (@mailpiece/forms). */
export type PacketWorkflow = Parameters<typeof buildPacket>[0];
/** The answers and attachments of a form. */
export type PacketFormInput = Parameters<typeof buildPacket>[1];
/** The options of `buildPacket`: addresses, render, watermark, stage, today or clock. */
export type PacketOptions = Parameters<typeof buildPacket>[2];
/** The printable packet: its PDF bytes and page count. */
export type PacketResult = Awaited<ReturnType<typeof buildPacket>>;
export type { WatermarkOptions, WatermarkResult };

/**
 * The heavy PDF work of Mailpiece: typesetting letters and handwritten cards, reading PDFs, checking postcards,
 * building form packets and watermarking PDFs.
 * Each method has the signature and the errors of the engine function of the same name (TypesetterError,
 * PostcardError, FormsError), `watermarkPdf` those of this package's own (TypesetterError); an implementation adds
 * PdfWorkError (`pdf_work_deadline`, `pdf_work_busy`, `pdf_work_closed`).
 */
export interface PdfWork {
  /** `typesetLetter` of @mailpiece/typesetter. */
  typesetLetter(input: LetterInput): Promise<TypesetLetterResult>;
  /** `typesetHandwritten` of @mailpiece/typesetter. */
  typesetHandwritten(input: HandwrittenInput): Promise<TypesetHandwrittenResult>;
  /** `inspectPdf` of @mailpiece/typesetter. The bytes are only read, never changed or taken. */
  inspectPdf(bytes: Uint8Array): Promise<PdfInfo>;
  /** `checkPostcard` of @mailpiece/postcard. The bytes are only read, never changed or taken. */
  checkPostcard(
    bytes: Uint8Array,
    size: PostcardSize,
    options?: CheckPostcardOptions,
  ): Promise<PostcardCheck>;
  /** `buildPacket` of @mailpiece/forms. A `clock` in the options is read once, when the job is submitted. */
  buildPacket(
    workflow: PacketWorkflow,
    input: PacketFormInput,
    options: PacketOptions,
  ): Promise<PacketResult>;
  /**
   * `watermarkPdf` of this package (watermark-pdf.ts): the typesetter's watermark over every page of a PDF. The
   * bytes are only read, never changed or taken.
   */
  watermarkPdf(bytes: Uint8Array, options: WatermarkOptions): Promise<WatermarkResult>;
  /** Stops taking jobs (later calls reject with `pdf_work_closed`), lets accepted jobs end, then frees the threads. */
  close(): Promise<void>;
}

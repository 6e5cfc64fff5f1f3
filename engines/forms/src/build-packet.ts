import type { LetterInput } from "@mailpiece/typesetter";
import { TypesetterError, typesetLetter } from "@mailpiece/typesetter";
import { PDFDocument } from "pdf-lib";
import { appendAttachments } from "./append-attachments.ts";
import type { Clock } from "./dates.ts";
import type { ComplianceStage } from "./definition-schema.ts";
import { FormsError } from "./errors.ts";
import type { FormInput } from "./evaluate-form.ts";
import { evaluateForm } from "./evaluate-form.ts";
import type { FormIssue } from "./issues.ts";
import { composePacketText } from "./packet-text.ts";
import type { Font } from "./page-overlays.ts";
import { drawFooter, embedFooter, embedWatermark } from "./page-overlays.ts";
import type { Workflow } from "./workflow.ts";

export interface PacketOptions {
  /** The return address as it prints (the order's sender; it controls the envelope). */
  sender: { lines: string[] };
  /** The recipient address as it prints (the order's recipient, not the form's recipient fields). */
  recipient: { lines: string[] };
  /** The letter's face and size; default times, 11 pt. Margins are 1 in (the footer sits below the body). */
  render?: { font?: Font; font_size?: number };
  /** e.g. "TEST MODE": set diagonally in light grey on every page, attached copies included. */
  watermark?: string;
  /** The stage the answers are checked at before printing; default "preview". */
  stage?: ComplianceStage;
  /** Today's date (YYYY-MM-DD) for the workflow's date checks; or a `clock`. */
  today?: string;
  clock?: Clock;
}

const DEFAULT_FONT_SIZE = 11;

/**
 * Builds the printable packet of a form: the answers are checked first (`evaluateForm`, every rule, eligibility
 * included), then the letter (or, for a cover-sheet workflow, the cover sheet) is typeset from the workflow's
 * packet template with `typesetLetter` — title, date, subject, the factual sections, the requested correction,
 * the closing and the signature (typed or drawn) — with the workflow's neutral footer at the bottom of each of
 * its pages; then the attached copies follow, slot by slot in the slots' print order, in the sender's order within a
 * slot. `page_count` is the page count of the PDF returned.
 *
 * Throws FormsError: `form_invalid` (with every issue) when the answers are refused, `packet_unprintable` when the
 * typesetter refuses the text or addresses (the issue carries the typesetter's code and the path "form.fields",
 * "form.fields.<signature field>", "sender" or "recipient"), `attachment_unreadable` for a file that cannot be read,
 * `invalid_options` for malformed options (a stage, `today`, `clock`, or render values out of range).
 */
export async function buildPacket(
  workflow: Workflow,
  input: FormInput,
  options: PacketOptions,
): Promise<{ pdf: Uint8Array; page_count: number }> {
  const evaluation = evaluateForm(workflow, input, {
    stage: options.stage ?? "preview",
    ...(options.today === undefined ? {} : { today: options.today }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  if (!evaluation.ok) {
    throw new FormsError(
      "form_invalid",
      `The answers to ${workflow.slug} are refused: ${evaluation.issues.length} problem${evaluation.issues.length === 1 ? "" : "s"} (see issues).`,
      { issues: evaluation.issues },
    );
  }
  const text = composePacketText(workflow, evaluation.answers, evaluation.attachments);
  const font = options.render?.font ?? "times";
  const signature: LetterInput["signature"] =
    text.signature === undefined
      ? undefined
      : text.signature.mode === "typed"
        ? { mode: "typed", text: text.signature.text }
        : { mode: "drawn", dataUrl: text.signature.printDataUrl ?? text.signature.dataUrl };

  let letter: { pdf: Uint8Array; page_count: number };
  try {
    letter = await typesetLetter({
      // Packets carry their own footer and date lines: none of the free letter's page furniture.
      furniture: "none",
      body: text.body,
      title: text.title,
      format: "text",
      ...(signature === undefined ? {} : { signature }),
      render: {
        font,
        font_size: options.render?.font_size ?? DEFAULT_FONT_SIZE,
        margin_in: 1,
        paper: "letter",
      },
      sender: options.sender,
      recipient: options.recipient,
      ...(options.watermark === undefined ? {} : { watermark: options.watermark }),
    });
  } catch (error) {
    throw unprintable(error, workflow);
  }

  const doc = await PDFDocument.load(letter.pdf, { updateMetadata: false });
  try {
    const footer = await embedFooter(doc, text.footer, font);
    for (const page of doc.getPages()) drawFooter(page, footer);
    const watermark =
      options.watermark === undefined ? undefined : await embedWatermark(doc, options.watermark, font);
    await appendAttachments(doc, evaluation.attachments, watermark);
  } catch (error) {
    if (FormsError.isInstance(error)) throw error;
    throw unprintable(error, workflow);
  }
  const pdf = await doc.save();
  return { pdf, page_count: doc.getPageCount() };
}

/** Maps a typesetter refusal to `packet_unprintable`, with the path of the value at fault where there is one. */
function unprintable(error: unknown, workflow: Workflow): FormsError {
  if (!TypesetterError.isInstance(error)) {
    return new FormsError("packet_unprintable", "The packet cannot be assembled.", { cause: error });
  }
  if (error.field === "render") {
    return new FormsError("invalid_options", `options.render: ${error.message}`, { cause: error });
  }
  const signatureField = workflow.packet.signature_field;
  const path =
    error.field === "sender" || error.field === "recipient"
      ? error.field
      : error.field === "signature" && signatureField !== undefined
        ? `form.fields.${signatureField}`
        : "form.fields";
  const issue: FormIssue = { path, code: error.code, message: error.message };
  return new FormsError("packet_unprintable", error.message, { issues: [issue], cause: error });
}

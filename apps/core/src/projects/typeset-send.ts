import { createHash } from "node:crypto";
import { TypesetterError } from "@mailpiece/typesetter/light";
import { documentWorkIssue } from "../pdf-work.ts";
import { requestProblems } from "./documents.ts";

/**
 * Runs the typesetting of a send's document (a template's letter, a handwritten proof), given as `typeset` on the
 * document workers so that it keeps their deadline, and names the PDF by its SHA-256. A document that cannot be made
 * is validation_failed at the request's field at fault: `fields` maps the typesetter's input fields to the request's
 * (an input field it does not map is at `otherwise`), and a document past the workers' time or memory limits is
 * document_too_complex at `otherwise`. Busy or closed workers are thrown on (the surface answers 503).
 */
export async function typesetSend<T extends { pdf: Uint8Array; page_count: number }>(
  typeset: () => Promise<T>,
  fields: Readonly<Record<string, string>>,
  otherwise: string,
): Promise<T & { sha256: string }> {
  try {
    const result = await typeset();
    return { ...result, sha256: createHash("sha256").update(result.pdf).digest("hex") };
  } catch (error) {
    if (TypesetterError.isInstance(error)) {
      const path =
        (error.field !== undefined && Object.hasOwn(fields, error.field) && fields[error.field]) || otherwise;
      throw requestProblems([{ path, code: error.code, message: error.message }]);
    }
    const issue = documentWorkIssue(error, otherwise);
    if (issue) throw requestProblems([issue]);
    throw error;
  }
}

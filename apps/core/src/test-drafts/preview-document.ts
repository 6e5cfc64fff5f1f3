import type { AddressAnswer, AnswerValue, FormAttachmentInput, FormIssue, Workflow } from "@mailpiece/forms";
import { evaluateForm, FormsError } from "@mailpiece/forms";
import type { Issue, NormalizedOrder, Party } from "@mailpiece/orders";
import { DEFAULT_OPTIONS, DEFAULT_RENDER } from "@mailpiece/orders";
import { TypesetterError, todayUtc } from "@mailpiece/typesetter/light";
import type { DocumentContext } from "../documents.ts";
import { resolveDocument } from "../documents.ts";
import { windowLines } from "../party-view.ts";
import { documentWorkIssue, pdfWorkOf } from "../pdf-work.ts";
import type { MailDraftRequest } from "./requests.ts";

/** What every page of a test piece carries. */
export const WATERMARK = "TEST MODE";

/** What making a preview may use: the PDF limits, the safe fetcher of PDF URLs and the document workers. */
export type PreviewContext = Pick<
  DocumentContext,
  "config" | "store" | "blobs" | "clock" | "pdf" | "fetchDocument"
>;

/** The watermarked PDF of a test piece, or every issue that stops it, each at the path of the request's field. */
export type Preview =
  | { ok: true; pdf: Uint8Array; page_count: number; warnings: Issue[] }
  | { ok: false; issues: Issue[] };

/**
 * A letter_text draft, typeset as the core typesets a letter (plain text, the default page set-up, dated by the
 * clock) through the document workers, with the two names as the window address lines and TEST MODE on every page.
 */
export async function letterPreview(
  request: Extract<MailDraftRequest, { source: "letter_text" }>,
  ctx: PreviewContext,
): Promise<Preview> {
  try {
    const letter = await pdfWorkOf(ctx).typesetLetter({
      format: "text",
      body: request.letter_text,
      date: todayUtc(new Date(ctx.clock.now())),
      render: { ...DEFAULT_RENDER },
      sender: { lines: [request.sender.name] },
      recipient: { lines: [request.recipient.name] },
      watermark: WATERMARK,
    });
    return { ok: true, pdf: letter.pdf, page_count: letter.page_count, warnings: [] };
  } catch (error) {
    const field = TypesetterError.isInstance(error) ? error.field : undefined;
    const path = field === "sender" || field === "recipient" ? `${field}.name` : "letter_text";
    return refusal(error, path);
  }
}

/**
 * A pdf_url draft: the PDF is fetched and checked exactly as an order's `pdf` URL is (the deployment's fetcher and
 * allowlist, then the letter preflight: it parses, is not encrypted, has at most maxPdfPages US letter pages), then
 * watermarked TEST MODE on every page by the document workers.
 */
export async function pdfPreview(url: string, ctx: PreviewContext): Promise<Preview> {
  // The resolution of a PDF order reads only its document and its piece type: no party of it is looked at.
  const order: NormalizedOrder = {
    request_id: "test-draft",
    buyer_email: "",
    mailpiece_type: "letter",
    document: { kind: "pdf", source: { type: "url", url } },
    sender: { name: "", country: "US", address: { type: "Address", id: "", text: "" } },
    options: { ...DEFAULT_OPTIONS },
  };
  const resolved = await resolveDocument(order, ctx);
  if (!resolved.ok) return { ok: false, issues: resolved.issues.map((issue) => atPdfUrl(issue, url)) };
  try {
    const marked = await pdfWorkOf(ctx).watermarkPdf(resolved.document.bytes, { text: WATERMARK });
    return { ok: true, pdf: marked.pdf, page_count: marked.page_count, warnings: [] };
  } catch (error) {
    return refusal(error, "pdf_url");
  }
}

/**
 * A form draft: the workflow's rules and eligibility at the preview stage (every issue at once, at `answers.<field>`
 * or `attachments[i]`), then its packet built by the document workers with TEST MODE on every page, attached copies
 * included. The window lines are the form's own sender and recipient (name, company, address) as far as it has them.
 */
export async function formPreview(
  request: { answers: Record<string, unknown>; attachments: unknown[] },
  workflow: Workflow,
  ctx: PreviewContext,
): Promise<Preview> {
  const input = {
    fields: request.answers,
    // As in a machine order, an attachment without a file name is named by its id.
    attachments: request.attachments.map((item) =>
      typeof item === "object" && item !== null && !("file_name" in item) && "id" in item
        ? { ...item, file_name: (item as { id: unknown }).id }
        : item,
    ) as FormAttachmentInput[],
  };
  const evaluation = evaluateForm(workflow, input, { stage: "preview", clock: ctx.clock });
  if (evaluation.issues.length > 0) return { ok: false, issues: evaluation.issues.map(toRequestIssue) };
  try {
    const packet = await pdfWorkOf(ctx).buildPacket(workflow, input, {
      ...formWindowLines(evaluation.answers),
      stage: "preview",
      clock: ctx.clock,
      watermark: WATERMARK,
    });
    return {
      ok: true,
      pdf: packet.pdf,
      page_count: packet.page_count,
      warnings: evaluation.warnings.map(toRequestIssue),
    };
  } catch (error) {
    if (FormsError.isInstance(error)) {
      const detail = error.issues as readonly FormIssue[];
      return {
        ok: false,
        issues:
          detail.length > 0
            ? detail.map(toRequestIssue)
            : [{ path: "answers", code: error.code, message: error.message }],
      };
    }
    return refusal(error, "answers");
  }
}

/** The names a form gives its sender and recipient (`sender_name`, `recipient_name`), where it has them. */
export function formNames(answers: Record<string, unknown>): { sender?: string; recipient?: string } {
  const name = (value: unknown) =>
    typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  const sender = name(answers.sender_name);
  const recipient = name(answers.recipient_name);
  return { ...(sender ? { sender } : {}), ...(recipient ? { recipient } : {}) };
}

/**
 * The window lines of a form's packet from its answers: each party's name (and the recipient's company), then its
 * address when the form has one for both, formatted as an order's manual addresses are (international pieces end
 * with the country).
 */
function formWindowLines(answers: Record<string, AnswerValue>): {
  sender: { lines: string[] };
  recipient: { lines: string[] };
} {
  const names = formNames(answers);
  const company =
    typeof answers.recipient_company_name === "string" ? answers.recipient_company_name : undefined;
  const parties = {
    sender: partyOf(names.sender, undefined, answers.sender_address),
    recipient: partyOf(names.recipient, company, answers.recipient_address),
  };
  if (parties.sender && parties.recipient) {
    const lines = windowLines(parties.sender, parties.recipient);
    return { sender: lines.sender, recipient: lines.recipient ?? { lines: [] } };
  }
  return {
    sender: { lines: names.sender ? [names.sender] : [] },
    recipient: { lines: [names.recipient, company].filter((line): line is string => line !== undefined) },
  };
}

function partyOf(name: string | undefined, company: string | undefined, address: unknown): Party | undefined {
  if (name === undefined || !isAddress(address)) return undefined;
  return {
    name,
    ...(company ? { company } : {}),
    country: address.countryCode,
    address: { type: "Manual", ...address },
  };
}

function isAddress(value: unknown): value is AddressAnswer {
  const address = value as Partial<AddressAnswer> | null;
  return (
    typeof address === "object" &&
    address !== null &&
    typeof address.line1 === "string" &&
    typeof address.city === "string" &&
    typeof address.zip === "string" &&
    typeof address.countryCode === "string"
  );
}

/** A form issue at the path of the test draft's body: answers.<field>, attachments[i], or answers for the form. */
function toRequestIssue(issue: FormIssue): Issue {
  return { path: requestPath(issue.path), code: issue.code, message: issue.message };
}

function requestPath(path: string): string {
  if (path.startsWith("form.fields")) return `answers${path.slice("form.fields".length)}`;
  if (path.startsWith("form.attachments")) return path.slice("form.".length);
  // The packet's window lines come from the form's own sender and recipient names.
  if (path === "sender" || path === "recipient") return `answers.${path}_name`;
  return "answers";
}

/** The path an issue of the PDF URL has here, with a message that speaks of this surface's one way to give a PDF. */
function atPdfUrl(issue: Issue, url: string): Issue {
  if (issue.code !== "pdf_host_not_allowed") return { ...issue, path: "pdf_url" };
  const host = new URL(url).hostname.toLowerCase();
  return {
    path: "pdf_url",
    code: issue.code,
    message: `PDFs are downloaded only from the HTTPS hosts this deployment allows; ${host} is not one of them.`,
  };
}

/** The issue of a typesetting or PDF refusal at `path`; anything else (busy workers, a bug) is thrown on. */
function refusal(error: unknown, path: string): Preview {
  if (TypesetterError.isInstance(error)) {
    return { ok: false, issues: [{ path, code: error.code, message: error.message }] };
  }
  const issue = documentWorkIssue(error, path);
  if (issue) return { ok: false, issues: [issue] };
  throw error;
}

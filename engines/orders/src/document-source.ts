import { decodedByteLength, isBase64, looksLikeDataUrl, parseDataUrl } from "./base64.ts";
import type { FormAttachment } from "./form-schema.ts";
import { type IssueList, joinPath } from "./issues.ts";
import {
  arrayField,
  enumField,
  field,
  isJsonObject,
  type JsonObject,
  numberField,
  objectField,
  present,
  stringField,
} from "./json-access.ts";
import { LETTER_FORMATS, type LetterFormat } from "./letter-schema.ts";
import { MAX_ATTACHMENT_BYTES, MAX_PDF_BYTES } from "./limits.ts";
import { isBlank } from "./text-length.ts";

/** Where the PDF of an order comes from. */
export type PdfSourceValue =
  | { type: "data_url"; base64: string }
  | { type: "url"; url: string }
  | { type: "upload_token"; upload_token: string }
  | { type: "download"; download_url: string; file_id: string };

export type LetterSignatureValue =
  | { mode: "typed"; text: string }
  | { mode: "drawn"; dataUrl?: string; printDataUrl?: string; text?: string };

/** Page set-up of a rendered letter, with the defaults applied. */
export interface LetterRenderValue {
  paper: "letter";
  font_size: number;
  margin_in: number;
  font: "times" | "helvetica";
}

export const DEFAULT_RENDER: Readonly<LetterRenderValue> = Object.freeze({
  paper: "letter",
  font_size: 11,
  margin_in: 1,
  font: "times",
});

/** The document of a single order, normalised. */
export type DocumentSource =
  | { kind: "pdf"; source: PdfSourceValue }
  | {
      kind: "letter";
      title?: string;
      body: string;
      format: LetterFormat;
      signature?: LetterSignatureValue;
      render: LetterRenderValue;
    }
  | { kind: "form"; slug: string; fields: Record<string, unknown>; attachments: FormAttachment[] };

export const DOCUMENT_KEYS = ["pdf", "form", "letter"] as const;

/**
 * Reads the document source of a single order: exactly one of pdf, form and letter, plus the top-level `format`
 * shorthand, which only goes with a letter. Every present source is checked, so all problems come back at once.
 */
export function readDocumentSource(body: JsonObject, issues: IssueList): DocumentSource | undefined {
  const given = DOCUMENT_KEYS.filter((key) => present(body, key));
  if (given.length === 0) {
    issues.add(
      "",
      "document_source_required",
      "A single-recipient order needs exactly one document source: pdf, form or letter.",
    );
  } else if (given.length > 1) {
    issues.add(
      "",
      "document_source_conflict",
      `A single-recipient order carries exactly one document source, but ${listNames(given)} are given; keep one.`,
    );
  }
  if (present(body, "format") && !present(body, "letter")) {
    issues.add(
      "format",
      "format_requires_letter",
      "format sets the format of `letter`; remove it or send a letter.",
    );
  }

  const pdf = present(body, "pdf") ? readPdf(field(body, "pdf"), "pdf", issues) : undefined;
  const form = present(body, "form") ? readForm(field(body, "form"), "form", issues) : undefined;
  const letter = present(body, "letter") ? readLetter(body, issues) : undefined;
  if (given.length !== 1) return undefined;
  if (pdf) return { kind: "pdf", source: pdf };
  return form ?? letter;
}

/** "pdf and form", "pdf, form and letter". */
function listNames(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * A PDF source: a data:application/pdf;base64 URL, an https:// URL, {upload_token} or {download_url, file_id}.
 * Shapes the schema already refuses read as undefined without a further issue.
 */
export function readPdf(value: unknown, path: string, issues: IssueList): PdfSourceValue | undefined {
  if (typeof value === "string") return readPdfString(value, path, issues);
  if (!isJsonObject(value)) return undefined;
  if (present(value, "download_url") || present(value, "file_id")) {
    const download_url = stringField(value, "download_url");
    const file_id = stringField(value, "file_id");
    return download_url !== undefined && file_id !== undefined
      ? { type: "download", download_url, file_id }
      : undefined;
  }
  const upload_token = stringField(value, "upload_token");
  return upload_token === undefined ? undefined : { type: "upload_token", upload_token };
}

function readPdfString(value: string, path: string, issues: IssueList): PdfSourceValue | undefined {
  if (looksLikeDataUrl(value)) {
    const parsed = parseDataUrl(value);
    if (parsed === undefined || parsed.mediaType !== "application/pdf") {
      issues.add(
        path,
        "invalid_data_url",
        "A PDF data URL reads data:application/pdf;base64, followed by the file in base64.",
      );
      return undefined;
    }
    const bytes = decodedByteLength(parsed.base64);
    if (bytes > MAX_PDF_BYTES) {
      issues.add(path, "pdf_too_large", `The PDF is ${bytes} bytes; the limit is ${MAX_PDF_BYTES} (100 MB).`);
      return undefined;
    }
    return { type: "data_url", base64: parsed.base64.replace(/\s+/g, "") };
  }
  if (/^https:\/\//i.test(value)) {
    const url = parseHttpsUrl(value);
    if (url === undefined) {
      issues.add(path, "invalid_pdf_source", "The PDF URL is not a valid https:// URL.");
      return undefined;
    }
    return { type: "url", url };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) {
    issues.add(path, "pdf_url_not_https", "PDFs are downloaded over HTTPS only; use an https:// URL.");
    return undefined;
  }
  issues.add(
    path,
    "invalid_pdf_source",
    "pdf is a data:application/pdf;base64 URL, an https:// URL, {upload_token} or {download_url, file_id}.",
  );
  return undefined;
}

function parseHttpsUrl(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === "https:" && url.hostname !== "" ? url.href : undefined;
}

/** A workflow form payload; its answers are checked against the form's own schema elsewhere. */
function readForm(value: unknown, path: string, issues: IssueList): DocumentSource | undefined {
  if (!isJsonObject(value)) return undefined;
  const slug = stringField(value, "slug");
  if (slug !== undefined && isBlank(slug))
    issues.add(joinPath(path, "slug"), "too_short", "slug must not be blank.");
  const fields = objectField(value, "fields");
  const attachments = readAttachments(
    arrayField(value, "attachments") ?? [],
    joinPath(path, "attachments"),
    issues,
  );
  if (slug === undefined || isBlank(slug) || fields === undefined || attachments === undefined)
    return undefined;
  return { kind: "form", slug, fields, attachments };
}

function readAttachments(items: unknown[], path: string, issues: IssueList): FormAttachment[] | undefined {
  const result: FormAttachment[] = [];
  let bytes = 0;
  let ok = true;
  for (const [index, item] of items.entries()) {
    if (!isJsonObject(item)) {
      ok = false;
      continue;
    }
    const itemPath = joinPath(path, index);
    const id = stringField(item, "id");
    const raw = stringField(item, "base64");
    if (id === undefined || raw === undefined) {
      ok = false;
      continue;
    }
    let base64: string;
    let contentType = stringField(item, "content_type");
    if (looksLikeDataUrl(raw)) {
      const parsed = parseDataUrl(raw);
      if (parsed === undefined) {
        issues.add(
          joinPath(itemPath, "base64"),
          "invalid_data_url",
          "The attachment is not a valid base64 data URL.",
        );
        ok = false;
        continue;
      }
      base64 = parsed.base64.replace(/\s+/g, "");
      const declared = parsed.mediaType.toLowerCase();
      if (contentType !== undefined && contentType.split(";")[0]!.trim().toLowerCase() !== declared) {
        // Two declared types that disagree: neither is dropped in silence.
        issues.add(
          joinPath(itemPath, "content_type"),
          "attachment_content_mismatch",
          `content_type says ${contentType}, but the data URL says ${parsed.mediaType}. Send one type, or two that agree.`,
        );
        ok = false;
        continue;
      }
      contentType ??= parsed.mediaType;
    } else if (isBase64(raw)) {
      base64 = raw.replace(/\s+/g, "");
    } else {
      issues.add(
        joinPath(itemPath, "base64"),
        "invalid_base64",
        "The attachment must be base64 or a base64 data URL.",
      );
      ok = false;
      continue;
    }
    bytes += decodedByteLength(base64);
    const label = stringField(item, "label");
    const fileName = stringField(item, "file_name");
    result.push({
      id,
      ...(label === undefined ? {} : { label }),
      ...(fileName === undefined ? {} : { file_name: fileName }),
      ...(contentType === undefined ? {} : { content_type: contentType }),
      base64,
    });
  }
  if (bytes > MAX_ATTACHMENT_BYTES) {
    issues.add(
      path,
      "attachments_too_large",
      `The attachments decode to ${bytes} bytes together; the limit is ${MAX_ATTACHMENT_BYTES} (12 MB).`,
    );
    return undefined;
  }
  return ok ? result : undefined;
}

/** A letter given as a string or an object; `format` comes from the letter, else the top-level shorthand, else text. */
function readLetter(body: JsonObject, issues: IssueList): DocumentSource | undefined {
  const value = field(body, "letter");
  const topFormat = enumField(body, "format", LETTER_FORMATS);
  if (typeof value === "string") {
    if (isBlank(value)) {
      issues.add("letter", "too_short", "The letter must not be blank.");
      return undefined;
    }
    return { kind: "letter", body: value, format: topFormat ?? "text", render: { ...DEFAULT_RENDER } };
  }
  if (!isJsonObject(value)) return undefined;

  const text = stringField(value, "body");
  if (text !== undefined && isBlank(text))
    issues.add("letter.body", "too_short", "The letter body must not be blank.");
  const ownFormat = enumField(value, "format", LETTER_FORMATS);
  if (ownFormat !== undefined && topFormat !== undefined && ownFormat !== topFormat) {
    issues.add(
      "letter.format",
      "format_conflict",
      `letter.format is ${ownFormat} but the top-level format is ${topFormat}; send one of them.`,
    );
  }
  const title = stringField(value, "title");
  const signature = present(value, "signature")
    ? readSignature(field(value, "signature"), issues)
    : undefined;
  const render = readRender(objectField(value, "render"));
  if (text === undefined || isBlank(text)) return undefined;
  if (present(value, "signature") && signature === undefined) return undefined;
  return {
    kind: "letter",
    ...(title === undefined || title === "" ? {} : { title }),
    body: text,
    format: ownFormat ?? topFormat ?? "text",
    ...(signature === undefined ? {} : { signature }),
    render,
  };
}

function readRender(render: JsonObject | undefined): LetterRenderValue {
  if (render === undefined) return { ...DEFAULT_RENDER };
  return {
    paper: "letter",
    font_size: numberField(render, "font_size") ?? DEFAULT_RENDER.font_size,
    margin_in: numberField(render, "margin_in") ?? DEFAULT_RENDER.margin_in,
    font: enumField(render, "font", ["times", "helvetica"]) ?? DEFAULT_RENDER.font,
  };
}

const SIGNATURE_IMAGE_TYPES = ["image/png", "image/jpeg"];

/** A signature string (typed), or {mode, text, dataUrl, printDataUrl}; the mode defaults to drawn when an image is given. */
function readSignature(value: unknown, issues: IssueList): LetterSignatureValue | undefined {
  const path = "letter.signature";
  if (typeof value === "string") {
    if (isBlank(value)) {
      issues.add(
        path,
        "signature_text_required",
        "A typed signature needs its text; remove signature or fill it in.",
      );
      return undefined;
    }
    return { mode: "typed", text: value.trim() };
  }
  if (!isJsonObject(value)) return undefined;

  let imagesOk = true;
  const image = (key: "dataUrl" | "printDataUrl"): string | undefined => {
    const url = stringField(value, key);
    if (url === undefined) return undefined;
    const parsed = parseDataUrl(url);
    if (parsed === undefined || !SIGNATURE_IMAGE_TYPES.includes(parsed.mediaType)) {
      issues.add(
        joinPath(path, key),
        "invalid_data_url",
        "A signature image is a data:image/png;base64 or data:image/jpeg;base64 URL.",
      );
      imagesOk = false;
      return undefined;
    }
    return url;
  };
  const dataUrl = image("dataUrl");
  const printDataUrl = image("printDataUrl");
  const text = stringField(value, "text");
  const hasImage = present(value, "dataUrl") || present(value, "printDataUrl");
  const mode = enumField(value, "mode", ["typed", "drawn"]) ?? (hasImage ? "drawn" : "typed");
  if (present(value, "mode") && enumField(value, "mode", ["typed", "drawn"]) === undefined) return undefined;

  if (mode === "typed") {
    if (text === undefined || isBlank(text)) {
      issues.add(
        joinPath(path, "text"),
        "signature_text_required",
        "A typed signature needs non-blank text.",
      );
      return undefined;
    }
    return imagesOk ? { mode: "typed", text: text.trim() } : undefined;
  }
  if (!hasImage) {
    issues.add(
      path,
      "signature_image_required",
      "A drawn signature needs dataUrl or printDataUrl (a PNG or JPEG data URL).",
    );
    return undefined;
  }
  if (!imagesOk) return undefined;
  return {
    mode: "drawn",
    ...(dataUrl === undefined ? {} : { dataUrl }),
    ...(printDataUrl === undefined ? {} : { printDataUrl }),
    ...(text === undefined || isBlank(text) ? {} : { text: text.trim() }),
  };
}

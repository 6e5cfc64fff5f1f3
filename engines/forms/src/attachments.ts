import type { FileKind } from "./base64.ts";
import {
  compactBase64,
  decodedByteLength,
  decodePrefix,
  isBase64,
  looksLikeDataUrl,
  parseDataUrl,
  sniffFileKind,
} from "./base64.ts";
import type { AttachmentType } from "./definition-schema.ts";
import { ATTACHMENT_TYPES } from "./definition-schema.ts";
import type { FormIssue } from "./issues.ts";
import { joinPath } from "./issues.ts";
import { charCount, isBlank, isRecord } from "./text.ts";
import type { Workflow, WorkflowSlot } from "./workflow.ts";

/** One inline attachment of a form: `id` names the attachment slot it goes into. */
export interface FormAttachmentInput {
  id: string;
  label?: string;
  /** The file's name; its extension, when it has one, must name the type of the bytes. */
  file_name: string;
  /** MIME type, optional; when given it must be the type of the bytes. */
  content_type?: string;
  /** Raw base64 or a base64 data URL (whose MIME type must then be the type of the bytes). */
  base64: string;
}

/** An attachment that passed every check, in the order the sender gave it within its slot. */
export interface CheckedAttachment {
  slot: string;
  /** Its index in `form.attachments`. */
  index: number;
  file_name: string;
  kind: FileKind;
  /** Compact base64 of the file. */
  base64: string;
  bytes: number;
}

const KEYS = ["id", "label", "file_name", "content_type", "base64"] as const;

/** The file kind each slot type means, its name, and the MIME types that declare it (the first is its own). */
const TYPE_KIND: Readonly<Record<AttachmentType, FileKind>> = {
  pdf: "pdf",
  png: "png",
  jpg: "jpeg",
  jpeg: "jpeg",
};
const KIND_NAME: Readonly<Record<FileKind, string>> = { pdf: "PDF", png: "PNG", jpeg: "JPEG" };
const KIND_MIME: Readonly<Record<FileKind, readonly string[]>> = {
  pdf: ["application/pdf", "application/x-pdf"],
  png: ["image/png"],
  jpeg: ["image/jpeg", "image/jpg", "image/pjpeg"],
};

const PATH = "form.attachments";

/**
 * Checks the attachments of a form against the workflow's slots: the attachment `id` names its slot; the file
 * type comes from the bytes (a PDF, PNG or JPEG signature) and must be one the slot accepts; the file name's
 * extension (when it has one), `content_type` and a data URL's MIME type must each agree with the bytes, and each
 * disagreement is reported at its own path (`form.attachments[2].content_type`); files per slot between the
 * slot's min_files and max_files; each file within the slot's max_file_bytes and all files together within the
 * workflow's max_total_bytes, counted after base64 decoding.
 */
export function checkAttachments(
  workflow: Workflow,
  raw: unknown,
): { issues: FormIssue[]; files: CheckedAttachment[] } {
  const issues: FormIssue[] = [];
  const files: CheckedAttachment[] = [];
  if (raw === undefined || raw === null) return { issues: slotCountIssues(workflow, new Map()), files };
  if (!Array.isArray(raw)) {
    return {
      issues: [{ path: PATH, code: "invalid_type", message: "form.attachments must be an array." }],
      files,
    };
  }
  const counts = new Map<string, number>();
  let total = 0;
  raw.forEach((item: unknown, index) => {
    const path = joinPath(PATH, index);
    if (!isRecord(item)) {
      issues.push({
        path,
        code: "invalid_type",
        message: `${path} must be an object {id, file_name, base64}.`,
      });
      return;
    }
    const own: FormIssue[] = [];
    for (const key of Object.keys(item)) {
      if (!(KEYS as readonly string[]).includes(key)) {
        own.push({
          path: joinPath(path, key),
          code: "unknown_property",
          message: `${key} is not an attachment property; allowed: ${KEYS.join(", ")}.`,
        });
      }
    }
    const slot = slotOf(workflow, item.id, path, own);
    if (slot !== undefined) counts.set(slot.id, (counts.get(slot.id) ?? 0) + 1);
    const fileName = stringProperty(item, "file_name", path, own, 255);
    stringProperty(item, "label", path, own, 256, false);
    const contentType = stringProperty(item, "content_type", path, own, 255, false);
    const payload = decodeSource(item.base64, path, own);
    if (payload !== undefined) total += payload.bytes;
    if (slot !== undefined && fileName !== undefined && payload !== undefined) {
      const kind = fileKind(slot, fileName, contentType, payload, path, own);
      if (kind !== undefined && payload.bytes > slot.max_file_bytes) {
        own.push({
          path,
          code: "attachment_too_large",
          message: `${fileName} is ${payload.bytes} bytes; files in ${slot.id} are at most ${slot.max_file_bytes} bytes (${megabytes(slot.max_file_bytes)}).`,
        });
      }
      if (kind !== undefined && own.length === 0) {
        files.push({
          slot: slot.id,
          index,
          file_name: fileName,
          kind,
          base64: payload.base64,
          bytes: payload.bytes,
        });
      }
    }
    issues.push(...own);
  });
  issues.push(...slotCountIssues(workflow, counts));
  const limit = workflow.attachments.max_total_bytes;
  if (total > limit) {
    issues.push({
      path: PATH,
      code: "attachments_too_large",
      message: `The attachments decode to ${total} bytes together; the limit is ${limit} (${megabytes(limit)}).`,
    });
  }
  return { issues, files };
}

function slotOf(
  workflow: Workflow,
  id: unknown,
  path: string,
  issues: FormIssue[],
): WorkflowSlot | undefined {
  const at = joinPath(path, "id");
  if (typeof id !== "string" || isBlank(id)) {
    issues.push({
      path: at,
      code: typeof id === "string" || id === undefined || id === null ? "required" : "invalid_type",
      message: "The attachment id names its slot and is required.",
    });
    return undefined;
  }
  const slot = workflow.attachments.slots.find((s) => s.id === id);
  if (slot === undefined) {
    const names = workflow.attachments.slots.map((s) => s.id);
    issues.push({
      path: at,
      code: "attachment_unknown_slot",
      message:
        names.length === 0
          ? `This form takes no attachments.`
          : `"${id}" is not an attachment slot of this form; slots: ${names.join(", ")}.`,
    });
  }
  return slot;
}

function stringProperty(
  item: Record<string, unknown>,
  key: string,
  path: string,
  issues: FormIssue[],
  max: number,
  required = true,
): string | undefined {
  const value = item[key];
  const at = joinPath(path, key);
  if (value === undefined || value === null) {
    if (required) issues.push({ path: at, code: "required", message: `${key} is required.` });
    return undefined;
  }
  if (typeof value !== "string") {
    issues.push({ path: at, code: "invalid_type", message: `${key} must be a string.` });
    return undefined;
  }
  if (required && isBlank(value)) {
    issues.push({ path: at, code: "required", message: `${key} must not be blank.` });
    return undefined;
  }
  if (charCount(value) > max) {
    issues.push({ path: at, code: "too_long", message: `${key} must be at most ${max} characters.` });
    return undefined;
  }
  return value.trim();
}

interface Payload {
  base64: string;
  bytes: number;
  mediaType?: string;
}

function decodeSource(value: unknown, path: string, issues: FormIssue[]): Payload | undefined {
  const at = joinPath(path, "base64");
  if (value === undefined || value === null) {
    issues.push({
      path: at,
      code: "required",
      message: "base64 is required: the file as base64 or a data URL.",
    });
    return undefined;
  }
  if (typeof value !== "string") {
    issues.push({ path: at, code: "invalid_type", message: "base64 must be a string." });
    return undefined;
  }
  const text = value.trim();
  const dataUrl = looksLikeDataUrl(text) ? parseDataUrl(text) : undefined;
  const compact = dataUrl?.base64 ?? compactBase64(text);
  if (
    (looksLikeDataUrl(text) && dataUrl === undefined) ||
    !isBase64(compact) ||
    decodedByteLength(compact) === 0
  ) {
    issues.push({
      path: at,
      code: "invalid_base64",
      message:
        "base64 must be a non-empty file as standard base64 or a data URL (data:application/pdf;base64,...).",
    });
    return undefined;
  }
  return {
    base64: compact,
    bytes: decodedByteLength(compact),
    ...(dataUrl === undefined ? {} : { mediaType: dataUrl.mediaType }),
  };
}

/**
 * The type of an attachment, from its bytes: a PDF, PNG or JPEG signature the slot accepts, else
 * `attachment_type_not_allowed` at `.base64`. Then everything that states a type must agree with the bytes, each
 * refused with `attachment_content_mismatch` at its own path: the file name's extension (`.file_name`; a name
 * without one is typed by its bytes alone, and an extension that names no type the slot takes is
 * `attachment_type_not_allowed`), `content_type` (`.content_type`) and a data URL's MIME type (`.base64`).
 */
function fileKind(
  slot: WorkflowSlot,
  fileName: string,
  contentType: string | undefined,
  payload: Payload,
  path: string,
  issues: FormIssue[],
): FileKind | undefined {
  const accepted = slot.types.map((type) => `.${type}`).join(", ");
  const kind = sniffFileKind(decodePrefix(payload.base64, 1024));
  if (kind === undefined || !slot.types.some((type) => TYPE_KIND[type] === kind)) {
    issues.push({
      path: joinPath(path, "base64"),
      code: "attachment_type_not_allowed",
      message:
        kind === undefined
          ? `The contents of "${fileName}" are not a PDF, PNG or JPEG file; ${slot.id} takes ${accepted} files.`
          : `"${fileName}" is a ${KIND_NAME[kind]} file; ${slot.id} takes ${accepted} files.`,
    });
    return undefined;
  }
  const before = issues.length;
  const dot = fileName.lastIndexOf(".");
  const extension = dot < 0 ? "" : fileName.slice(dot + 1).toLowerCase();
  if (extension !== "") {
    const named = (ATTACHMENT_TYPES as readonly string[]).includes(extension)
      ? TYPE_KIND[extension as AttachmentType]
      : undefined;
    if (named !== undefined && named !== kind) {
      issues.push({
        path: joinPath(path, "file_name"),
        code: "attachment_content_mismatch",
        message: `"${fileName}" is named as a .${extension} file, but its contents are a ${KIND_NAME[kind]} file.`,
      });
    } else if (!(slot.types as readonly string[]).includes(extension)) {
      issues.push({
        path: joinPath(path, "file_name"),
        code: "attachment_type_not_allowed",
        message: `${slot.id} takes ${accepted} files; "${fileName}" is not one.`,
      });
    }
  }
  const declared = contentType?.split(";")[0]?.trim().toLowerCase();
  if (declared !== undefined && declared !== "" && !KIND_MIME[kind].includes(declared)) {
    issues.push({
      path: joinPath(path, "content_type"),
      code: "attachment_content_mismatch",
      message: `"${fileName}" is declared as ${declared}, but its contents are a ${KIND_NAME[kind]} file (${KIND_MIME[kind][0]}).`,
    });
  }
  if (payload.mediaType !== undefined && !KIND_MIME[kind].includes(payload.mediaType)) {
    issues.push({
      path: joinPath(path, "base64"),
      code: "attachment_content_mismatch",
      message: `The data URL of "${fileName}" declares ${payload.mediaType}, but its contents are a ${KIND_NAME[kind]} file (${KIND_MIME[kind][0]}).`,
    });
  }
  return issues.length === before ? kind : undefined;
}

function slotCountIssues(workflow: Workflow, counts: ReadonlyMap<string, number>): FormIssue[] {
  const issues: FormIssue[] = [];
  for (const slot of workflow.attachments.slots) {
    const count = counts.get(slot.id) ?? 0;
    if (count < slot.min_files) {
      issues.push({
        path: PATH,
        code: "attachment_required",
        message:
          slot.min_files === slot.max_files
            ? `${slot.id} takes exactly ${slot.min_files} file${slot.min_files === 1 ? "" : "s"}; ${count} given.`
            : `${slot.id} takes at least ${slot.min_files} file${slot.min_files === 1 ? "" : "s"}; ${count} given.`,
      });
    }
    if (count > slot.max_files) {
      issues.push({
        path: PATH,
        code: "attachment_too_many",
        message: `${slot.id} takes at most ${slot.max_files} file${slot.max_files === 1 ? "" : "s"}; ${count} given.`,
      });
    }
  }
  return issues;
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 100) / 100} MB`;
}

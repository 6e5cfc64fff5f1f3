import { decodedByteLength, decodePrefix, isBase64, parseDataUrl, sniffFileKind } from "./base64.ts";
import type { FormIssue } from "./issues.ts";
import { joinPath } from "./issues.ts";
import { charCount, isBlank, isRecord } from "./text.ts";

/** A typed signature's text, at most (the order request's limit for signature text). */
export const MAX_SIGNATURE_TEXT_CHARS = 2_000;
/** Chosen: a drawn signature image of at most 2 MB decoded, the same limit as a letter's drawn signature. */
export const MAX_SIGNATURE_IMAGE_BYTES = 2 * 1024 * 1024;

/** A signature field's answer: typed text, or a drawn PNG/JPEG data URL (with an optional print version). */
export type SignatureAnswer =
  | { mode: "typed"; text: string }
  | { mode: "drawn"; dataUrl: string; printDataUrl?: string };

export type SignatureCheck =
  | { status: "absent" }
  | { status: "invalid"; issues: FormIssue[] }
  | { status: "valid"; value: SignatureAnswer };

const KEYS = { typed: ["mode", "text"], drawn: ["mode", "dataUrl", "printDataUrl"] } as const;

/**
 * Checks a signature answer: `{mode: "typed", text}` (1 to 2000 characters after trimming) or
 * `{mode: "drawn", dataUrl, printDataUrl?}` (base64 data URLs of a PNG or JPEG image, at most 2 MB each; the
 * bytes must be the image the MIME type names). A typed signature with blank text and a drawn one with an empty
 * data URL are not answers. A signature is never taken from anywhere else.
 */
export function checkSignature(raw: unknown, path: string): SignatureCheck {
  if (!isRecord(raw) || (raw.mode !== "typed" && raw.mode !== "drawn")) {
    return {
      status: "invalid",
      issues: [
        {
          path,
          code: "invalid_signature",
          message:
            'A signature is {"mode": "typed", "text": "..."} or {"mode": "drawn", "dataUrl": "data:image/png;base64,..."}.',
        },
      ],
    };
  }
  const mode = raw.mode;
  const issues: FormIssue[] = [];
  for (const key of Object.keys(raw)) {
    if (!(KEYS[mode] as readonly string[]).includes(key)) {
      issues.push({
        path: joinPath(path, key),
        code: "unknown_property",
        message: `${key} is not a property of a ${mode} signature; allowed: ${KEYS[mode].join(", ")}.`,
      });
    }
  }
  if (mode === "typed") {
    const text = raw.text;
    if (text !== undefined && text !== null && typeof text !== "string") {
      issues.push({ path: joinPath(path, "text"), code: "invalid_type", message: "text must be a string." });
    }
    if (issues.length > 0) return { status: "invalid", issues };
    if (typeof text !== "string" || isBlank(text)) return { status: "absent" };
    const trimmed = text.replace(/\s+/g, " ").trim();
    if (charCount(trimmed) > MAX_SIGNATURE_TEXT_CHARS) {
      issues.push({
        path: joinPath(path, "text"),
        code: "too_long",
        message: `A typed signature must be at most ${MAX_SIGNATURE_TEXT_CHARS} characters.`,
      });
      return { status: "invalid", issues };
    }
    return { status: "valid", value: { mode: "typed", text: trimmed } };
  }

  const dataUrl = raw.dataUrl;
  if (dataUrl !== undefined && dataUrl !== null && typeof dataUrl !== "string") {
    issues.push({
      path: joinPath(path, "dataUrl"),
      code: "invalid_type",
      message: "dataUrl must be a string.",
    });
  }
  const printDataUrl = raw.printDataUrl;
  if (printDataUrl !== undefined && printDataUrl !== null) {
    if (typeof printDataUrl !== "string") {
      issues.push({
        path: joinPath(path, "printDataUrl"),
        code: "invalid_type",
        message: "printDataUrl must be a string.",
      });
    } else {
      issues.push(...checkImageDataUrl(printDataUrl, joinPath(path, "printDataUrl")));
    }
  }
  if (typeof dataUrl !== "string" || isBlank(dataUrl)) {
    return issues.length > 0 ? { status: "invalid", issues } : { status: "absent" };
  }
  issues.push(...checkImageDataUrl(dataUrl, joinPath(path, "dataUrl")));
  if (issues.length > 0) return { status: "invalid", issues };
  return {
    status: "valid",
    value: {
      mode: "drawn",
      dataUrl: dataUrl.trim(),
      ...(typeof printDataUrl === "string" ? { printDataUrl: printDataUrl.trim() } : {}),
    },
  };
}

function checkImageDataUrl(text: string, path: string): FormIssue[] {
  const parsed = parseDataUrl(text.trim());
  const kind =
    parsed?.mediaType === "image/png"
      ? "png"
      : /^image\/p?jpe?g$/.test(parsed?.mediaType ?? "")
        ? "jpeg"
        : undefined;
  if (parsed === undefined || kind === undefined || !isBase64(parsed.base64)) {
    return [
      {
        path,
        code: "invalid_signature",
        message: "A drawn signature is a base64 data URL of a PNG or JPEG image (data:image/png;base64,...).",
      },
    ];
  }
  if (sniffFileKind(decodePrefix(parsed.base64, 16)) !== kind) {
    return [
      {
        path,
        code: "invalid_signature",
        message: `The drawn signature data is not the ${kind.toUpperCase()} image its data URL names.`,
      },
    ];
  }
  const bytes = decodedByteLength(parsed.base64);
  if (bytes > MAX_SIGNATURE_IMAGE_BYTES) {
    return [
      {
        path,
        code: "signature_image_too_large",
        message: `The drawn signature image is ${bytes} bytes; the limit is ${MAX_SIGNATURE_IMAGE_BYTES} (2 MB).`,
      },
    ];
  }
  return [];
}

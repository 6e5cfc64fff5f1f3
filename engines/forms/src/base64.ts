/** Base64 and data URL helpers for attachments and drawn signatures. */

const BASE64_CHARS = /^[A-Za-z0-9+/]+={0,2}$/;
const WHITESPACE = /\s+/g;

/** Standard base64 with line breaks and spaces removed (as MIME encoders wrap it). */
export function compactBase64(text: string): string {
  return text.replace(WHITESPACE, "");
}

/**
 * True for compact standard base64 (RFC 4648 alphabet). Padding is optional, but when present the text is a whole
 * number of four-character groups.
 */
export function isBase64(compact: string): boolean {
  if (compact.length === 0 || !BASE64_CHARS.test(compact)) return false;
  if (compact.endsWith("=")) return compact.length % 4 === 0;
  return compact.length % 4 !== 1;
}

/** The number of bytes compact base64 text decodes to. */
export function decodedByteLength(compact: string): number {
  const padding = compact.endsWith("==") ? 2 : compact.endsWith("=") ? 1 : 0;
  return Math.floor(((compact.length - padding) * 3) / 4);
}

/** The first bytes of compact base64 text, decoded (enough to recognise a file type). */
export function decodePrefix(compact: string, bytes: number): Uint8Array {
  const chars = Math.ceil(bytes / 3) * 4;
  return decodeBase64(compact.slice(0, chars));
}

/** Decodes base64 to a Uint8Array with its own buffer (pdf-lib reads through `bytes.buffer`). */
export function decodeBase64(compact: string): Uint8Array {
  return new Uint8Array(Buffer.from(compact, "base64"));
}

/** A base64 data URL taken apart. `mediaType` is lower case without parameters; `base64` is compact. */
export interface DataUrl {
  mediaType: string;
  base64: string;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/**
 * Parses `data:<type>[;param=value]*;base64,<data>`. Returns undefined when the text is not such a URL.
 * The data is returned compact and unchecked: test it with isBase64.
 */
export function parseDataUrl(text: string): DataUrl | undefined {
  if (!/^data:/i.test(text)) return undefined;
  const comma = text.indexOf(",");
  if (comma < 0) return undefined;
  const header = text.slice(5, comma).split(";");
  const mediaType = (header[0] ?? "").trim().toLowerCase();
  if (!MEDIA_TYPE.test(mediaType)) return undefined;
  if (header.length < 2 || (header[header.length - 1] ?? "").trim().toLowerCase() !== "base64")
    return undefined;
  return { mediaType, base64: compactBase64(text.slice(comma + 1)) };
}

/** True when the text starts like a data URL, whether or not it is a valid one. */
export function looksLikeDataUrl(text: string): boolean {
  return /^data:/i.test(text);
}

/** The kinds of files Mailpiece reads from their first bytes. */
export type FileKind = "pdf" | "png" | "jpeg";

/** Recognises a PDF ("%PDF-" in the first 1024 bytes), a PNG or a JPEG from the first bytes of a file. */
export function sniffFileKind(head: Uint8Array): FileKind | undefined {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.every((byte, index) => head[index] === byte)) return "png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "jpeg";
  const text = Buffer.from(head.subarray(0, 1024)).toString("latin1");
  if (text.includes("%PDF-")) return "pdf";
  return undefined;
}

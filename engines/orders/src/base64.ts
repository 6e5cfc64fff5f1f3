/** Base64 and data URL checks shared by PDFs, signature images and form attachments. */

const BASE64_CHARS = /^[A-Za-z0-9+/]+={0,2}$/;
const WHITESPACE = /\s+/g;

/**
 * True for standard base64 (RFC 4648 alphabet). Line breaks and spaces are tolerated, as produced by MIME
 * encoders; padding is optional, but when present the text must be a whole number of quads.
 */
export function isBase64(text: string): boolean {
  const compact = text.replace(WHITESPACE, "");
  if (compact.length === 0 || !BASE64_CHARS.test(compact)) return false;
  if (compact.endsWith("=")) return compact.length % 4 === 0;
  return compact.length % 4 !== 1;
}

/** The number of bytes `text` decodes to; only meaningful when isBase64(text). */
export function decodedByteLength(text: string): number {
  const compact = text.replace(WHITESPACE, "");
  const padding = compact.endsWith("==") ? 2 : compact.endsWith("=") ? 1 : 0;
  const digits = compact.length - padding;
  return Math.floor((digits * 3) / 4);
}

/** A base64 data URL taken apart. `mediaType` is lower case without parameters. */
export interface DataUrl {
  mediaType: string;
  base64: string;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/**
 * Parses `data:<type>[;param=value]*;base64,<data>`. Returns undefined when the text is not such a URL or its
 * data is not valid base64. Data URLs without `;base64` are not accepted anywhere in an order.
 */
export function parseDataUrl(text: string): DataUrl | undefined {
  if (!/^data:/i.test(text)) return undefined;
  const comma = text.indexOf(",");
  if (comma < 0) return undefined;
  const header = text.slice(5, comma).split(";");
  const mediaType = (header[0] ?? "").trim().toLowerCase();
  if (!MEDIA_TYPE.test(mediaType)) return undefined;
  if ((header[header.length - 1] ?? "").trim().toLowerCase() !== "base64" || header.length < 2)
    return undefined;
  const base64 = text.slice(comma + 1);
  if (!isBase64(base64)) return undefined;
  return { mediaType, base64 };
}

/** True when the text starts like a data URL, whether or not it is a valid one. */
export function looksLikeDataUrl(text: string): boolean {
  return /^data:/i.test(text);
}

/** Number of UTF-8 bytes of a string, without encoding it. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

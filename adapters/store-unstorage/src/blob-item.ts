/**
 * How a blob is kept as one storage item, so its bytes and its info are always written together:
 * `MPB1` (4 bytes), the length of the header (uint32, big-endian), the header as UTF-8 JSON
 * `{size, contentType, sha256}`, then the bytes.
 */
export interface BlobHeader {
  size: number;
  contentType: string;
  sha256: string;
}

const MAGIC = [0x4d, 0x50, 0x42, 0x31];
const PREAMBLE = 8;
/** How many leading bytes usually hold the whole header (a content type is rarely long). */
export const TYPICAL_HEADER_BYTES = 1024;

export function encodeBlobItem(header: BlobHeader, bytes: Uint8Array): Uint8Array {
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const item = new Uint8Array(PREAMBLE + headerBytes.byteLength + bytes.byteLength);
  item.set(MAGIC, 0);
  new DataView(item.buffer).setUint32(4, headerBytes.byteLength);
  item.set(headerBytes, PREAMBLE);
  item.set(bytes, PREAMBLE + headerBytes.byteLength);
  return item;
}

export type DecodedHeader =
  | { ok: true; header: BlobHeader; bodyOffset: number }
  | { ok: false; reason: "truncated" | "corrupt" };

/** Reads the header from an item or from its first bytes; `truncated` when more bytes are needed. */
export function decodeBlobHeader(item: Uint8Array): DecodedHeader {
  if (item.byteLength < PREAMBLE) return { ok: false, reason: "truncated" };
  if (MAGIC.some((byte, index) => item[index] !== byte)) return { ok: false, reason: "corrupt" };
  const headerLength = new DataView(item.buffer, item.byteOffset, item.byteLength).getUint32(4);
  const bodyOffset = PREAMBLE + headerLength;
  if (item.byteLength < bodyOffset) return { ok: false, reason: "truncated" };
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(item.subarray(PREAMBLE, bodyOffset)));
  } catch {
    return { ok: false, reason: "corrupt" };
  }
  const candidate = header as Partial<BlobHeader> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    !Number.isSafeInteger(candidate.size) ||
    typeof candidate.contentType !== "string" ||
    typeof candidate.sha256 !== "string"
  ) {
    return { ok: false, reason: "corrupt" };
  }
  return { ok: true, header: candidate as BlobHeader, bodyOffset };
}

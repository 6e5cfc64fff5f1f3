const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding, the form Standard Webhooks uses for secrets, keys and signatures. */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** The bytes of a standard, padded base64 text; undefined for anything else (url-safe, unpadded, stray characters). */
export function fromBase64(text: string): Uint8Array | undefined {
  if (typeof text !== "string" || !STANDARD_BASE64.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, "base64"));
}

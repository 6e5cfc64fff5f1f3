import { hash } from "node:crypto";
import { canonicalJson } from "./canonical-json.ts";

/** The fingerprint of a request body exactly as sent: a retry must send the same bytes. */
export function fingerprintBytes(raw: Uint8Array | string): string {
  // The one-shot digest: no Hash object per call (this runs on every request).
  return `sha256:${hash("sha256", raw, "hex")}`;
}

/** The fingerprint of a value by its canonical JSON, for callers that have no raw body (tool calls). */
export function fingerprintJson(value: unknown): string {
  return fingerprintBytes(canonicalJson(value));
}

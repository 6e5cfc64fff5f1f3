import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.ts";

/** The fingerprint of a request body exactly as sent: a retry must send the same bytes. */
export function fingerprintBytes(raw: Uint8Array | string): string {
  return `sha256:${createHash("sha256").update(raw).digest("hex")}`;
}

/** The fingerprint of a value by its canonical JSON, for callers that have no raw body (tool calls). */
export function fingerprintJson(value: unknown): string {
  return fingerprintBytes(canonicalJson(value));
}

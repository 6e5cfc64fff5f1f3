import { createHash, randomBytes } from "node:crypto";
import type { BlobStore, Clock, Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { displayName } from "./display-name.ts";
import type { DocumentKeeper } from "./document-retention.ts";
import { keepDocumentFor } from "./document-retention.ts";
import { CoreError, rateLimitedError } from "./errors.ts";
import type { RateLimit } from "./rate-limit.ts";
import { consumeRate } from "./rate-limit.ts";

/** An upload slot: created first (size and type declared), then filled once with the PDF bytes. */
export interface UploadRecord {
  state: "pending" | "uploaded";
  /** The name the client gave, cleaned for display (see displayName); never used as a path. */
  file_name: string;
  content_type: string;
  max_bytes: number;
  created_at: number;
  expires_at: number;
  blob_key?: string;
  sha256?: string;
  size?: number;
  /** The order that consumed the token; a token serves one order only. */
  used_by?: string;
}

export interface UploadSlot {
  upload_token: string;
  upload_path: string;
  expires_at: string;
  max_bytes: number;
  required_headers: Record<string, string>;
}

export type UploadError =
  | "upload_token_invalid"
  | "upload_token_expired"
  | "upload_token_used"
  | "upload_already_filled"
  | "upload_too_large"
  | "upload_not_pdf";

/** Tokens are bearer secrets: only their SHA-256 is kept. */
const keyOf = (token: string) => `uploads:${createHash("sha256").update(token).digest("hex")}`;

/** What one client may open in upload slots: slots per window, and declared bytes per window. */
export interface UploadLimits {
  slots: RateLimit;
  bytes: RateLimit;
}

/**
 * Opens an upload slot for a client. Slots are stored for anyone who asks, so each client has a budget of slots
 * and of declared bytes per window (past either: CoreError rate_limited, nothing stored); the file name is kept as
 * a cleaned display name, never as a path.
 */
export async function openUploadSlot(
  store: Store,
  clock: Clock,
  input: {
    file_name: string;
    content_type: string;
    content_length: number;
    maxBytes: number;
    ttlMs: number;
    clientKey: string;
    limits: UploadLimits;
  },
): Promise<UploadSlot> {
  const declared = Math.min(input.maxBytes, Math.max(1, input.content_length));
  const now = clock.now();
  const slots = await consumeRate(store, "upload-slots", input.clientKey, input.limits.slots, now);
  if (!slots.allowed) throw rateLimitedError(slots.retryAfterSeconds, "uploads");
  const bytes = await consumeRate(store, "upload-bytes", input.clientKey, input.limits.bytes, now, declared);
  if (!bytes.allowed) throw rateLimitedError(bytes.retryAfterSeconds, "uploads");
  return createUpload(store, clock, input);
}

export async function createUpload(
  store: Store,
  clock: Clock,
  input: { file_name: string; content_type: string; content_length: number; maxBytes: number; ttlMs: number },
): Promise<UploadSlot> {
  const token = `upl_${randomBytes(24).toString("base64url")}`;
  const now = clock.now();
  const maxBytes = Math.min(input.maxBytes, Math.max(1, input.content_length));
  const record: UploadRecord = {
    state: "pending",
    file_name: displayName(input.file_name),
    content_type: input.content_type,
    max_bytes: maxBytes,
    created_at: now,
    expires_at: now + input.ttlMs,
  };
  await store.create(keyOf(token), record, { ttlMs: input.ttlMs });
  return {
    upload_token: token,
    upload_path: `/api/machine/uploads/${token}`,
    expires_at: new Date(record.expires_at).toISOString(),
    max_bytes: maxBytes,
    required_headers: { "content-type": "multipart/form-data" },
  };
}

/**
 * Fills a pending slot with the PDF bytes, once. Throws CoreError with the UploadError code (and one issue at
 * `file`) when the slot cannot take them.
 */
export async function fillUpload(
  store: Store,
  blobs: BlobStore,
  clock: Clock,
  token: string,
  bytes: Uint8Array,
  documents?: DocumentKeeper,
): Promise<UploadRecord> {
  const found = await store.get<UploadRecord>(keyOf(token));
  if (!found) throw uploadRefused("upload_token_invalid");
  const record = found.value;
  if (record.expires_at <= clock.now()) throw uploadRefused("upload_token_expired");
  if (record.state !== "pending") throw uploadRefused("upload_already_filled");
  if (bytes.byteLength > record.max_bytes) throw uploadRefused("upload_too_large");
  if (!Buffer.from(bytes.subarray(0, 5)).toString("latin1").startsWith("%PDF-"))
    throw uploadRefused("upload_not_pdf");
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const blobKey = `documents:${sha256}`;
  // Held while the upload can be used; an order made from it keeps it for good.
  await keepDocumentFor({ blobs, ...(documents ? { documents } : {}) }, sha256, record.expires_at, bytes);
  const next: UploadRecord = {
    ...record,
    state: "uploaded",
    blob_key: blobKey,
    sha256,
    size: bytes.byteLength,
  };
  try {
    await store.put(keyOf(token), next, {
      ifVersion: found.version,
      ttlMs: Math.max(1, record.expires_at - clock.now()),
    });
  } catch (error) {
    if (PortError.isInstance(error) && error.code === "version_conflict")
      throw uploadRefused("upload_already_filled");
    throw error;
  }
  return next;
}

/** Why a slot cannot take a file, as the core's error: the code, its message, and the one issue at `file`. */
function uploadRefused(code: Exclude<UploadError, "upload_token_used">): CoreError {
  const message = UPLOAD_MESSAGES[code];
  return new CoreError(code, message, { issues: [{ path: "file", code, message }] });
}

/** The uploaded bytes behind a token, for validation; does not consume the token. */
export async function readUpload(
  store: Store,
  blobs: BlobStore,
  clock: Clock,
  token: string,
  orderId?: string,
): Promise<{ ok: true; bytes: Uint8Array; record: UploadRecord } | { ok: false; error: UploadError }> {
  const found = await store.get<UploadRecord>(keyOf(token));
  if (found?.value.state !== "uploaded" || !found.value.blob_key)
    return { ok: false, error: "upload_token_invalid" };
  if (found.value.expires_at <= clock.now() && !found.value.used_by)
    return { ok: false, error: "upload_token_expired" };
  if (found.value.used_by && found.value.used_by !== orderId)
    return { ok: false, error: "upload_token_used" };
  const blob = await blobs.get(found.value.blob_key);
  if (!blob) return { ok: false, error: "upload_token_invalid" };
  return { ok: true, bytes: blob.bytes, record: found.value };
}

/** Binds the token to one order, atomically: a second order with the same token is refused. */
export async function consumeUpload(store: Store, token: string, orderId: string): Promise<boolean> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const found = await store.get<UploadRecord>(keyOf(token));
    if (!found) return false;
    if (found.value.used_by) return found.value.used_by === orderId;
    try {
      // Once used, the token lives as long as the order needs it.
      await store.put(keyOf(token), { ...found.value, used_by: orderId }, { ifVersion: found.version });
      return true;
    } catch (error) {
      if (PortError.isInstance(error) && error.code === "version_conflict") continue;
      throw error;
    }
  }
  return false;
}

export const UPLOAD_MESSAGES: Record<UploadError, string> = {
  upload_token_invalid: "The upload token is unknown, or no PDF was uploaded with it yet.",
  upload_token_expired: "The upload token has expired. Create a new upload.",
  upload_token_used:
    "The upload token was already used by another order. Upload the PDF again for a new order.",
  upload_already_filled: "A PDF was already uploaded with this token.",
  upload_too_large: "The file is larger than the upload's max_bytes.",
  upload_not_pdf: "The file is not a PDF.",
};

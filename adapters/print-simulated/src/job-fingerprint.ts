import { createHash } from "node:crypto";
import type { PrintJob, ReturnReceiptFormat } from "@mailpiece/ports";

/** A job as the simulated printer keeps it: everything but the document bytes. */
export interface StoredJob {
  mailpiece_type: PrintJob["mailpiece_type"];
  postcard_size: PrintJob["postcard_size"];
  document: { sha256: string; page_count: number; byte_length: number };
  recipient: PrintJob["recipient"];
  sender: PrintJob["sender"];
  mail_class: PrintJob["mail_class"];
  color: boolean;
  double_sided: boolean;
  certified: boolean;
  /** Present only when the job asked for a return receipt: without one (flag absent or false) a job has one fingerprint. */
  certified_return_receipt?: true;
  /** The receipt's format, kept with `certified_return_receipt`. */
  return_receipt_format?: ReturnReceiptFormat;
}

export function storedJob(job: PrintJob): StoredJob {
  return {
    mailpiece_type: job.mailpiece_type,
    postcard_size: job.postcard_size,
    document: {
      sha256: job.document.sha256,
      page_count: job.document.page_count,
      byte_length: job.document.bytes.byteLength,
    },
    recipient: { ...job.recipient },
    sender: job.sender === null ? null : { ...job.sender },
    mail_class: job.mail_class,
    color: job.color,
    double_sided: job.double_sided,
    certified: job.certified,
    ...(job.certified_return_receipt === true
      ? { certified_return_receipt: true, return_receipt_format: job.return_receipt_format ?? "electronic" }
      : {}),
  };
}

/** Lowercase hex SHA-256 of the job in canonical JSON (keys sorted, absent optional fields left out). */
export function jobFingerprint(job: StoredJob): string {
  return createHash("sha256").update(canonicalJson(job)).digest("hex");
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

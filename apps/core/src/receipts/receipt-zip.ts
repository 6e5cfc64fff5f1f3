import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import Papa from "papaparse";
import type { ReceiptIndexEntry } from "./receipt-record.ts";

/** The manifest's columns, in order. */
export const MANIFEST_COLUMNS = [
  "order_id",
  "tracking_number",
  "signed_at",
  "signer_name",
  "file_name",
] as const;

/** Where a receipt's PDF is in an archive. */
export const receiptFileName = (orderId: string) => `receipts/${orderId}.pdf`;

export interface ReceiptZipSource {
  /** A receipt's PDF, as bytes or a stream of them; undefined when it is no longer kept (it is then left out). */
  open(entry: ReceiptIndexEntry): Promise<ReadableStream<Uint8Array> | Uint8Array | undefined>;
  /** The time of the manifest, in milliseconds since the epoch. */
  createdAt: number;
}

/**
 * A zip archive of receipts, built as it is read: each pull adds the next receipt's PDF (stored as it is: PDFs are
 * compressed already), dated by its signing, and `manifest.csv` (RFC 4180, CRLF, a header row; cells that a
 * spreadsheet would run as a formula are escaped) comes last, listing exactly the PDFs the archive holds. Only one PDF
 * is held at a time, and not even that when `open` streams it.
 */
export function receiptZip(
  entries: readonly ReceiptIndexEntry[],
  source: ReceiptZipSource,
): ReadableStream<Uint8Array> {
  let zip: Zip | undefined;
  let next = 0;
  let emitted = 0;
  let reading: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const listed: ReceiptIndexEntry[] = [];
  return new ReadableStream<Uint8Array>({
    start(controller) {
      zip = new Zip((error, chunk, final) => {
        if (error) {
          controller.error(error);
          return;
        }
        emitted++;
        controller.enqueue(chunk);
        if (final) controller.close();
      });
    },
    async pull() {
      const archive = zip!;
      // A pull must give at least one chunk, or the stream would wait for a read that already came.
      for (const before = emitted; emitted === before; ) {
        const entry = entries[next++];
        if (!entry) {
          const manifest = new ZipDeflate("manifest.csv", { level: 6 });
          manifest.mtime = new Date(source.createdAt);
          archive.add(manifest);
          manifest.push(new TextEncoder().encode(manifestCsv(listed)), true);
          archive.end();
          return;
        }
        const body = await source.open(entry);
        if (body === undefined) continue;
        const file = new ZipPassThrough(receiptFileName(entry.order_id));
        file.mtime = new Date(entry.signed_at);
        archive.add(file);
        if (body instanceof Uint8Array) {
          file.push(body, true);
        } else {
          reading = body.getReader();
          for (let part = await reading.read(); !part.done; part = await reading.read())
            file.push(part.value);
          reading = undefined;
          file.push(new Uint8Array(0), true);
        }
        listed.push(entry);
      }
    },
    async cancel(reason) {
      zip?.terminate();
      await reading?.cancel(reason);
    },
  });
}

/** The manifest of the receipts an archive holds. */
export function manifestCsv(entries: readonly ReceiptIndexEntry[]): string {
  const rows = entries.map((entry) => [
    entry.order_id,
    entry.tracking_number,
    entry.signed_at,
    entry.signer_name,
    receiptFileName(entry.order_id),
  ]);
  const csv = Papa.unparse(
    { fields: [...MANIFEST_COLUMNS], data: rows },
    { newline: "\r\n", escapeFormulae: true },
  );
  // Every line ends with CRLF, the last one too (papaparse ends a header without rows with one already).
  return csv.endsWith("\r\n") ? csv : `${csv}\r\n`;
}

import type { Issue } from "@mailpiece/errors";
import { isValidKey } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import type { ReceiptContext } from "./receipt-context.ts";
import { type ReceiptIndexEntry, receiptBlobKey, receiptIndexPrefix, sortableMs } from "./receipt-record.ts";
import { receiptZip } from "./receipt-zip.ts";

/** The most receipts one archive holds (spec 3). */
export const MAX_RECEIPTS_PER_ARCHIVE = 500;

/** Which receipts an export takes: by the time they were signed, `from` (inclusive) to `to` (exclusive). */
export interface ReceiptExportQuery {
  /** 1 to 500; default 500. */
  limit?: number | string;
  /** The `next_cursor` of the archive before. */
  cursor?: string;
  /** A date (`2026-03-01`, midnight UTC) or an RFC 3339 date-time. */
  from?: string;
  to?: string;
}

/** A zip archive of receipts, streamed as it is read. */
export interface ReceiptArchive {
  /** `receipts/<order id>.pdf` for each receipt, then `manifest.csv`; one PDF in memory at a time. */
  stream: ReadableStream<Uint8Array>;
  /** How many receipts it lists (one that expires while the archive is read is left out of it and its manifest). */
  count: number;
  /** Where the next archive starts (pass it as `cursor`); null when this one reached the end. */
  next_cursor: string | null;
  file_name: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
/** Index lines read at most for one archive; one that reaches it ends early, with a cursor to go on from. */
const SCAN_BUDGET = 5_000;
const MAX_CURSOR_LENGTH = 512;

/** The time a query's date or date-time names, or undefined when it names none. */
function timeOf(value: string): number | undefined {
  if (!DATE.test(value) && !DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(DATE.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isFinite(ms) ? ms : undefined;
}

interface ExportPage {
  limit: number;
  cursor: string | undefined;
  fromMs: number;
  toMs: number;
}

/** The query read, or invalid_query naming every parameter at fault. */
function readQuery(query: ReceiptExportQuery): ExportPage {
  const issues: Issue[] = [];
  let limit = MAX_RECEIPTS_PER_ARCHIVE;
  if (query.limit !== undefined) {
    const raw = query.limit;
    limit =
      typeof raw === "number"
        ? raw
        : typeof raw === "string" && /^\d{1,6}$/.test(raw)
          ? Number(raw)
          : Number.NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECEIPTS_PER_ARCHIVE) {
      issues.push({
        path: "limit",
        code: "invalid_limit",
        message: `limit must be a whole number from 1 to ${MAX_RECEIPTS_PER_ARCHIVE}: an archive holds at most ${MAX_RECEIPTS_PER_ARCHIVE} receipts.`,
      });
    }
  }
  const cursor = query.cursor === "" ? undefined : query.cursor;
  if (
    cursor !== undefined &&
    (typeof cursor !== "string" || cursor.length > MAX_CURSOR_LENGTH || !isValidKey(cursor))
  ) {
    issues.push({ path: "cursor", code: "invalid_cursor", message: "cursor is not one an export gave." });
  }
  const bounds = { from: 0, to: Number.POSITIVE_INFINITY };
  for (const name of ["from", "to"] as const) {
    const value = query[name];
    if (value === undefined || value === "") continue;
    const ms = typeof value === "string" ? timeOf(value) : undefined;
    if (ms === undefined) {
      issues.push({
        path: name,
        code: "invalid_date_time",
        message: `${name} must be a date (2026-03-01) or an RFC 3339 date-time (2026-03-01T00:00:00Z).`,
      });
    } else {
      bounds[name] = ms;
    }
  }
  if (bounds.from >= bounds.to) {
    issues.push({ path: "to", code: "invalid_range", message: "to must be later than from." });
  }
  if (issues.length > 0) {
    throw new CoreError("invalid_query", issues.map((issue) => issue.message).join(" "), { issues });
  }
  return { limit, cursor, fromMs: bounds.from, toMs: bounds.to };
}

/** The longest prefix two strings share. */
function sharedPrefix(a: string, b: string): string {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/**
 * The receipts of the caller's workspace and mode signed from `from` to `to`, oldest first, at most `limit`, as a zip
 * archive with a manifest. The listing narrows itself to the keys the range can hold; every line it reads is taken or
 * passed, so the store's cursor after the last line read is where the next archive starts. Throws invalid_query.
 */
export async function exportReceipts(
  ctx: ReceiptContext,
  principal: { workspace_id: string; mode: "test" | "live" },
  query: ReceiptExportQuery = {},
): Promise<ReceiptArchive> {
  const page = readQuery(query);
  const lastMs = Number.isFinite(page.toMs) ? page.toMs - 1 : Number.MAX_SAFE_INTEGER;
  const prefix =
    receiptIndexPrefix(principal.workspace_id, principal.mode) +
    sharedPrefix(sortableMs(page.fromMs), sortableMs(Math.min(lastMs, 9_999_999_999_999)));
  const entries: ReceiptIndexEntry[] = [];
  let cursor = page.cursor;
  let scanned = 0;
  let ended = false;
  do {
    const limit = Math.min(1000, page.limit - entries.length, SCAN_BUDGET - scanned);
    const found = await ctx.store
      .list<ReceiptIndexEntry>(prefix, { limit, ...(cursor === undefined ? {} : { cursor }) })
      .catch((error: unknown) => {
        if (cursor === undefined || cursor !== page.cursor) throw error;
        throw new CoreError("invalid_query", "cursor is not one an export gave.", {
          issues: [{ path: "cursor", code: "invalid_cursor", message: "cursor is not one an export gave." }],
        });
      });
    scanned += found.records.length;
    for (const { value } of found.records) {
      const signed = Date.parse(value.signed_at);
      if (signed >= page.toMs) {
        ended = true;
        break;
      }
      if (signed >= page.fromMs) entries.push(value);
    }
    cursor = found.cursor;
  } while (!ended && cursor !== undefined && entries.length < page.limit && scanned < SCAN_BUDGET);
  return {
    stream: receiptZip(entries, {
      open: async (entry) => {
        const key = receiptBlobKey(entry.order_id);
        if (ctx.blobs.getStream) return (await ctx.blobs.getStream(key))?.body;
        return (await ctx.blobs.get(key))?.bytes;
      },
      createdAt: ctx.clock.now(),
    }),
    count: entries.length,
    next_cursor: ended ? null : (cursor ?? null),
    file_name: "return-receipts.zip",
  };
}

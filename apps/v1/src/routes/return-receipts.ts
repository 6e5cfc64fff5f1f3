import type { KeyAction, Principal } from "@mailpiece/core";
import { invalidQuery, RESPONSE_HEADERS, V1Error } from "../errors.ts";
import { pageQuery } from "../query.ts";
import { RESPONSE_HEADERS_FOR_PDF, type RouteContext } from "../route.ts";

/** What an export asks for: the page (limit 1 to 500, cursor) and the signing times, from (inclusive) to (exclusive). */
export interface ReceiptExportRequest {
  limit: number;
  cursor?: string;
  from?: string;
  to?: string;
}

/** The core's use cases these routes call (the core's `returnReceipts`). */
export interface ReturnReceiptRoutesCore {
  workspaces: { requirePermission(principal: Principal, action: KeyAction): void };
  returnReceipts: {
    /** The stored receipt PDF of a letter of the principal's workspace and mode; undefined for anything else. */
    pdf(principal: Principal, orderId: string): Promise<Uint8Array | undefined>;
    /** A zip archive streamed as it is read; throws invalid_query naming the parameter at fault. */
    exportZip(
      principal: Principal,
      query: ReceiptExportRequest,
    ): Promise<{
      stream: ReadableStream<Uint8Array>;
      count: number;
      next_cursor: string | null;
      file_name: string;
    }>;
  };
}

/** The route context with a core that offers the receipts. */
export type ReturnReceiptRouteContext = Omit<RouteContext, "core"> & { core: ReturnReceiptRoutesCore };

/** An archive holds at most 500 receipts (spec 3); that is also the default. */
export const RECEIPT_EXPORT_PAGE = { fallback: 500, max: 500 } as const;

/**
 * Electronic return receipts (spec 3). GET /letters/{id}/return-receipt.pdf is the stored signed receipt of a letter
 * of the key's workspace and mode (not_found for anything else, and before the receipt is stored or after its
 * retention). GET /return-receipts/export.zip streams a zip archive of up to `limit` (1 to 500, default 500) receipts
 * signed from `from` to `to` (a date or an RFC 3339 date-time; from inclusive, to exclusive), oldest first: each PDF
 * as `receipts/<order id>.pdf` and a `manifest.csv` (order_id, tracking_number, signed_at, signer_name, file_name).
 * `X-Receipt-Count` says how many it holds, and `X-Next-Cursor`, when more may follow, the `cursor` of the next
 * archive. Both need a key that may read.
 */
export function returnReceiptRoutes({ core, route }: ReturnReceiptRouteContext): void {
  route("GET", "/letters/:order_id/return-receipt.pdf", async (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    const bytes = await core.returnReceipts.pdf(principal, event.context.params?.order_id ?? "");
    if (!bytes) {
      throw new V1Error("not_found", "No letter of this workspace has a stored return receipt with this id.");
    }
    return new Response(bytes, { headers: RESPONSE_HEADERS_FOR_PDF });
  });

  route("GET", "/return-receipts/export.zip", async (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    const page = pageQuery(event, RECEIPT_EXPORT_PAGE);
    const params = event.url.searchParams;
    const range: { from?: string; to?: string } = {};
    for (const name of ["from", "to"] as const) {
      const values = params.getAll(name);
      if (values.length > 1)
        throw invalidQuery({ path: name, code: "repeated", message: `Give ${name} once.` });
      if (values[0]) range[name] = values[0];
    }
    const archive = await core.returnReceipts.exportZip(principal, { ...page, ...range });
    return new Response(archive.stream, {
      headers: {
        ...RESPONSE_HEADERS,
        "content-type": "application/zip",
        "content-disposition": `attachment; filename="${archive.file_name}"`,
        "x-receipt-count": String(archive.count),
        ...(archive.next_cursor === null ? {} : { "x-next-cursor": archive.next_cursor }),
      },
    });
  });
}

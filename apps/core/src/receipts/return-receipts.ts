import type { BlobStore, Clock, JobQueue, PrintProvider, Store } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import type { QueueWork } from "../job-runner.ts";
import { loadOrder } from "../order-record.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import {
  type ReceiptContext,
  type ReceiptJob,
  type ReturnReceiptsConfig,
  resolveReceiptsConfig,
} from "./receipt-context.ts";
import { exportReceipts, type ReceiptArchive, type ReceiptExportQuery } from "./receipt-export.ts";
import { type ReturnReceiptFields, receiptFields } from "./receipt-fields.ts";
import { isReceiptId, loadReceipt, moveReceipt, receiptBlobKey } from "./receipt-record.ts";
import { asksForElectronicReceipt, pdfKept, type ReceiptOrder } from "./receipt-states.ts";
import { noteDelivered, receiptWork } from "./receipt-work.ts";

export interface ReturnReceiptsDeps {
  store: Store;
  blobs: BlobStore;
  jobs: JobQueue;
  clock: Clock;
  /** The print providers orders are produced by (the core's `printProviders`); each receipt is asked of its own. */
  providers: readonly PrintProvider[];
  config?: Partial<ReturnReceiptsConfig>;
  /** Queues the email of a stored receipt (err_delivery email); absent: such receipts stay pending. */
  emailReceipt?: (orderId: string) => Promise<void>;
}

/** The workspace and mode a caller acts for (a Projects API key's principal). */
export type ReceiptPrincipal = Pick<Principal, "workspace_id" | "mode">;

/**
 * Electronic return receipts of certified letters (spec 1 and 3): acquired from the print provider once the letter
 * is delivered, stored, shown on the order, downloaded one at a time or exported by the archive, deleted after their
 * retention. The states a receipt goes through are in receipt-states.ts.
 */
export interface ReturnReceipts {
  /**
   * Called by the core after each fulfilment round of an order: a delivered letter that asked for an electronic
   * receipt gets a job that acquires it. Idempotent; any other order changes nothing.
   */
  noteDelivered(order: ReceiptOrder): Promise<void>;
  /** The receipt fields of an order's view; undefined when there is no such order. */
  fields(orderId: string): Promise<ReturnReceiptFields | undefined>;
  /** The receipt fields of an order already read. */
  fieldsOf(order: ReceiptOrder): Promise<ReturnReceiptFields>;
  /** The stored receipt PDF of a letter of the caller's workspace and mode; undefined for anything else. */
  pdf(principal: ReceiptPrincipal, orderId: string): Promise<Uint8Array | undefined>;
  /**
   * A zip archive of up to 500 receipts of the caller's workspace and mode (oldest signed first) with manifest.csv,
   * streamed as it is read. Throws invalid_query (limit past 500, a bad cursor, from or to) naming each parameter.
   */
  exportZip(principal: ReceiptPrincipal, query?: ReceiptExportQuery): Promise<ReceiptArchive>;
  /** An emailed receipt (err_delivery email). Throws not_found, or state_conflict when it was not stored to email. */
  markEmailed(orderId: string): Promise<void>;
  /** A receipt whose email failed; its PDF stays available. Throws not_found or state_conflict. */
  markEmailFailed(orderId: string, reason: string): Promise<void>;
  /** The work of the receipts queue (acquisition and deletion after retention): give it to runQueue. */
  readonly work: QueueWork<ReceiptJob>;
}

export function createReturnReceipts(deps: ReturnReceiptsDeps): ReturnReceipts {
  const ctx: ReceiptContext = {
    store: deps.store,
    blobs: deps.blobs,
    jobs: deps.jobs,
    clock: deps.clock,
    providers: deps.providers,
    config: resolveReceiptsConfig(deps.config),
    ...(deps.emailReceipt ? { emailReceipt: deps.emailReceipt } : {}),
  };
  const fieldsOf = async (order: ReceiptOrder) =>
    receiptFields(
      order,
      asksForElectronicReceipt(order) ? await loadReceipt(ctx.store, order.id) : undefined,
    );
  const emailed = async (orderId: string, to: "emailed" | "email_failed", reason?: string) => {
    const record = await loadReceipt(ctx.store, orderId);
    if (record?.err_delivery === "manual") {
      throw new CoreError(
        "state_conflict",
        "This order's return receipt is kept for download (err_delivery manual); it is not emailed.",
      );
    }
    const at = ctx.clock.now();
    await moveReceipt(ctx.store, ctx.clock.now, orderId, to, () =>
      to === "emailed"
        ? { emailed_at: at, failure: null }
        : { failure: { code: "email_failed", message: reason ?? "The email could not be delivered.", at } },
    );
  };
  return {
    noteDelivered: (order) => noteDelivered(ctx, order),
    async fields(orderId) {
      const order = isReceiptId(orderId) ? (await loadOrder(ctx.store, orderId))?.value : undefined;
      return order ? fieldsOf(order) : undefined;
    },
    fieldsOf,
    async pdf(principal, orderId) {
      const record = await loadReceipt(ctx.store, orderId);
      if (
        !record ||
        record.workspace_id !== principal.workspace_id ||
        record.mode !== principal.mode ||
        !pdfKept(record.state)
      ) {
        return undefined;
      }
      return (await ctx.blobs.get(receiptBlobKey(orderId)))?.bytes;
    },
    exportZip: (principal, query) => exportReceipts(ctx, principal, query),
    markEmailed: (orderId) => emailed(orderId, "emailed"),
    markEmailFailed: (orderId, reason) => emailed(orderId, "email_failed", reason),
    work: receiptWork(ctx),
  };
}

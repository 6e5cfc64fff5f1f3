import type { BlobStore, JobQueue, PrintProvider, ReturnReceipt, Store } from "@mailpiece/ports";
import { PrintError } from "@mailpiece/ports";
import { createSimulatedPrinter, SIMULATED_CAPABILITIES } from "@mailpiece/print-simulated";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import yauzl from "yauzl";
import { createMailpieceCore } from "../core.ts";
import { runQueue } from "../job-runner.ts";
import { loadOrder } from "../order-record.ts";
import { readyDocument } from "../projects/projects.fixture.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import type { ReturnReceiptsConfig } from "./receipt-context.ts";
import type { ReceiptOrder } from "./receipt-states.ts";
import { createReturnReceipts } from "./return-receipts.ts";

/** 2026-03-02T12:00:00Z: the tests' start. */
export const T0 = Date.UTC(2026, 2, 2, 12);

export const usAddress = (name: string, street1 = "350 Fifth Avenue") => ({
  name,
  street1,
  city: "New York",
  province: "NY",
  zip: "10118",
});

/** The options of a certified letter with an electronic return receipt delivered as err_delivery says. */
export const electronicReceipt = (errDelivery: "manual" | "email" = "manual") => ({
  certified: true,
  certified_return_receipt: true,
  return_receipt_format: "electronic",
  err_delivery: errDelivery,
  ...(errDelivery === "email" ? { err_email: "records@example.com" } : {}),
});

/**
 * A core with a simulated printer (delivering 3 s after submission) on a manual clock, one workspace with credits,
 * and the receipts over the same store, blobs, queue and printer. `round` is one fulfilment round as the core runs it,
 * each order then noted as the core's wiring notes it, followed by one round of the receipts queue.
 */
export async function receiptsSetup(
  options: {
    config?: Partial<ReturnReceiptsConfig>;
    printer?: (printer: PrintProvider) => PrintProvider;
  } = {},
) {
  let now = T0;
  const clock = { now: () => now };
  const store = createMemoryStore();
  const blobs = countingBlobs(createMemoryBlobStore());
  const jobs = createStoreJobQueue({ store, clock });
  const simulated = createSimulatedPrinter({
    store,
    clock,
    pace: { acceptAfterMs: 1_000, inTransitAfterMs: 2_000, deliverAfterMs: 3_000 },
  });
  const printer = options.printer ? options.printer(simulated) : simulated;
  const core = createMailpieceCore({
    store,
    blobs,
    clock,
    jobs,
    printProviders: [printer],
    config: { testCreditsCents: 100_000 },
  });
  const receipts = createReturnReceipts({
    store,
    blobs,
    jobs,
    clock,
    providers: [printer],
    ...(options.config ? { config: options.config } : {}),
  });
  const workspace = await core.workspaces.create("Acme");
  const principal = await core.workspaces.authenticate(workspace.test_api_key);
  const documentId = await readyDocument(core, principal);
  const orderIds: string[] = [];
  const order = async (mailOptions: Record<string, unknown>, recipient = usAddress("Grace Recipient")) => {
    const quote = await core.projects.createQuote(principal, "letter", {
      document_id: documentId,
      ...mailOptions,
    });
    const created = await core.projects.createOrder(
      principal,
      "letter",
      { quote_id: quote.quote_id, recipient, sender: usAddress("Ada Sender", "1 Main Street") },
      `order-${orderIds.length}`,
    );
    orderIds.push(created.id);
    return created.id;
  };
  const stored = async (id: string) => (await loadOrder(store, id))!.value;
  const runReceipts = () => runQueue(jobs, receipts.work, { owner: "test", leaseMs: 10_000 });
  const round = async () => {
    await core.fulfil();
    for (const id of orderIds) await receipts.noteDelivered(await stored(id));
    await runReceipts();
  };
  return {
    core,
    store,
    blobs,
    jobs,
    printer,
    receipts,
    principal,
    order,
    stored,
    round,
    runReceipts,
    clock,
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    set: (at: number) => {
      now = at;
    },
  };
}

/** A blob store that counts the writes of each key. */
export function countingBlobs(blobs: BlobStore): BlobStore & { puts: Map<string, number> } {
  const puts = new Map<string, number>();
  return {
    ...blobs,
    puts,
    put: (key, bytes, options) => {
      puts.set(key, (puts.get(key) ?? 0) + 1);
      return blobs.put(key, bytes, options);
    },
    get: (key) => blobs.get(key),
    head: (key) => blobs.head(key),
    delete: (key) => blobs.delete(key),
    close: () => blobs.close(),
  };
}

/**
 * A print provider that only answers receipts: those set in `receipts` by job reference (none: not yet). Any other
 * call is refused, as nothing is submitted to it.
 */
export function receiptProvider(name = "receipts-only"): PrintProvider & {
  receipts: Map<string, ReturnReceipt>;
  asked: string[];
} {
  const receipts = new Map<string, ReturnReceipt>();
  const asked: string[] = [];
  const refuse = async (): Promise<never> => {
    throw new PrintError("job_not_found", "nothing is submitted to this provider");
  };
  return {
    name,
    simulated: true,
    capabilities: SIMULATED_CAPABILITIES,
    receipts,
    asked,
    submit: refuse,
    lookup: refuse,
    status: refuse,
    cancel: refuse,
    returnReceipt: async (reference) => {
      asked.push(reference);
      return receipts.get(reference);
    },
  };
}

/** A delivered certified letter of `principal`'s workspace and mode, produced by `provider` as job `reference`. */
export function deliveredLetter(
  id: string,
  principal: Pick<Principal, "workspace_id" | "mode"> | undefined,
  provider: string,
  reference: string,
  errDelivery: "manual" | "email" = "manual",
): ReceiptOrder {
  return {
    id,
    status: "queued",
    lifecycle: { status: "delivered", timeline: [] },
    fulfilment: { provider, reference, tracking_number: `9407${reference}` },
    ...(principal
      ? {
          project: {
            workspace_id: principal.workspace_id,
            mode: principal.mode,
            quote_id: "q",
            document_id: "d",
            billing_rail: "mock_test_credits",
            reservation_id: "r",
            funds_status: "captured",
            metadata: {},
          },
        }
      : {}),
    order: {
      mailpiece_type: "letter",
      options: {
        double_sided: true,
        color: false,
        mail_class: "standard",
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "electronic",
        restricted_delivery: false,
        err_delivery: errDelivery,
        signature_required: false,
      },
    },
  };
}

/** A small, distinct PDF. */
export function tinyPdf(label: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% receipt ${label}\n%%EOF\n`);
}

/** A memory store, blobs and queue on a manual clock, for receipts without a core. */
export function bareSetup() {
  let now = T0;
  const clock = { now: () => now };
  const store: Store = createMemoryStore();
  const blobs = countingBlobs(createMemoryBlobStore());
  const jobs: JobQueue = createStoreJobQueue({ store, clock });
  return {
    clock,
    store,
    blobs,
    jobs,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Reads a whole stream (a test reads the archive back). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts);
}

/** The files of a zip archive by name, read with yauzl (another implementation than the one that wrote it). */
export async function unzip(archive: Buffer): Promise<Map<string, { bytes: Buffer; modified: Date }>> {
  const zip = await yauzl.fromBufferPromise(archive, { lazyEntries: true, strictFileNames: true });
  const files = new Map<string, { bytes: Buffer; modified: Date }>();
  for await (const entry of zip.eachEntry()) {
    const parts: Buffer[] = [];
    for await (const part of await zip.openReadStreamPromise(entry)) parts.push(part as Buffer);
    files.set(entry.fileName, { bytes: Buffer.concat(parts), modified: entry.getLastModDate() });
  }
  return files;
}

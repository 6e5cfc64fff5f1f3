import { createHash } from "node:crypto";
import type { Workflow } from "@mailpiece/forms";
import { BUILTIN_WORKFLOWS } from "@mailpiece/forms";
import type { Lifecycle } from "@mailpiece/lifecycle";
import { followProvider, isTerminal, reconcileSubmission, transition } from "@mailpiece/lifecycle";
import type { Party, ResolvedAddress } from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import type {
  BlobStore,
  Clock,
  IdGenerator,
  JobQueue,
  PrintAddress,
  PrintJob,
  PrintProvider,
  Store,
} from "@mailpiece/ports";
import { isDefiniteRefusal, PrintError, routeProvider } from "@mailpiece/ports";
import { todayUtc } from "@mailpiece/typesetter/light";
import type { DocumentKeeper } from "./document-retention.ts";
import { keepDocumentFor } from "./document-retention.ts";
import { formRefusalAtFulfilment } from "./forms.ts";
import { isHandwrittenOrder } from "./handwritten/handwritten-piece.ts";
import { runQueue } from "./job-runner.ts";
import type { OrderRecord } from "./order-record.ts";
import { loadOrder, updateOrder } from "./order-record.ts";
import { windowLines } from "./party-view.ts";
import { pdfWorkOf } from "./pdf-work.ts";

export interface FulfilmentContext {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  ids: IdGenerator;
  /** The queue of paid orders: one job per order (`order:<id>`) until it reaches a final status. */
  jobs: JobQueue;
  providers: readonly PrintProvider[];
  /** Runs typesetting off the event loop; absent: on this thread. */
  pdf?: PdfWork;
  /** The workflow forms, for the compliance check a form order passes again before it is printed. */
  workflows?: readonly Workflow[];
  /** How often an order in production is asked about again. */
  pollMs?: number;
  /**
   * How long one process holds an order it works on without a sign of life; another process takes over after that.
   * The holder renews the lease while it works, so a long step keeps it and a crashed process loses it soon.
   */
  leaseMs?: number;
  /** A name for this process, written into leases. */
  owner?: string;
  /** Records who holds each document, for its collection after retention; absent: nothing is recorded. */
  documents?: DocumentKeeper;
  /** Called with an order after its steps of a round, before its work is let go (credits follow the status). */
  afterSteps?: (order: OrderRecord) => Promise<OrderRecord>;
}

/** The job queue of paid orders on their way to the printer and the mailbox. */
export const FULFILMENT_QUEUE = "fulfilment";
/** The key of an order's fulfilment job: one per order while it is on its way. */
export const fulfilmentJobKey = (orderId: string) => `order:${orderId}`;
const DEFAULT_LEASE_MS = 10_000;

/** Puts a paid order on the fulfilment queue (idempotent; an order already queued for later is moved up to `at`). */
export async function enqueueFulfilment(jobs: JobQueue, orderId: string, at: number): Promise<void> {
  await jobs.enqueue({
    queue: FULFILMENT_QUEUE,
    key: fulfilmentJobKey(orderId),
    payload: { order_id: orderId },
    runAt: at,
    moveEarlier: true,
  });
}

/**
 * Moves every due order one or more steps along: document preparation, submission to a print provider (marked
 * submission_pending before the call, so an unknown outcome is reconciled with the provider, never resubmitted
 * blindly), then the provider's tracking until the order is delivered, returned, failed or canceled. Orders are
 * leased from the job queue, so two processes never work on one order at once and a round reads only due orders,
 * however many wait for later; a crashed process loses its orders within `leaseMs`. Returns how many orders it
 * worked on.
 */
export function runFulfilment(ctx: FulfilmentContext): Promise<number> {
  return runQueue<{ order_id: string }>(
    ctx.jobs,
    {
      queue: FULFILMENT_QUEUE,
      handle: async ({ order_id }) => {
        const next = await step(ctx, order_id);
        if (next === true) return "done";
        return { again: next === false ? ctx.clock.now() + (ctx.pollMs ?? 1000) : next };
      },
    },
    { owner: ctx.owner ?? "worker", leaseMs: ctx.leaseMs ?? DEFAULT_LEASE_MS },
  );
}

/** How long a handwritten piece in transit is asked about: it has no carrier tracking, so little more comes. */
export const HANDWRITTEN_FOLLOW_MS = 30 * 24 * 60 * 60 * 1000;
/** How often a handwritten piece in transit is asked about meanwhile. */
export const HANDWRITTEN_POLL_MS = 60 * 60 * 1000;

/**
 * Moves one order along; true when its work is over (a final status, no such order, or a handwritten piece in
 * transit for HANDWRITTEN_FOLLOW_MS), a time when it should be looked at again, or false for the usual poll.
 */
async function step(ctx: FulfilmentContext, orderId: string): Promise<boolean | number> {
  const stored = await loadOrder(ctx.store, orderId);
  if (!stored?.value.lifecycle) return true;
  let order = stored.value;
  for (let moves = 0; moves < 6 && order.lifecycle && !isTerminal(order.lifecycle.status); moves++) {
    const before = order.lifecycle.status;
    order = await advance(ctx, order);
    if (!order.lifecycle || order.lifecycle.status === before) break;
  }
  if (ctx.afterSteps) order = await ctx.afterSteps(order);
  if (!order.lifecycle || isTerminal(order.lifecycle.status)) return true;
  if (isHandwrittenOrder(order) && order.lifecycle.status === "in_transit") {
    // In transit is usually a handwritten piece's last status: looked at hourly, then let go after a month.
    const last = order.lifecycle.timeline.at(-1);
    const since = last ? Date.parse(last.created_at) : ctx.clock.now();
    const now = ctx.clock.now();
    return now - since >= HANDWRITTEN_FOLLOW_MS
      ? true
      : Math.min(now + HANDWRITTEN_POLL_MS, since + HANDWRITTEN_FOLLOW_MS);
  }
  return false;
}

const meta = (ctx: FulfilmentContext, source: "system" | "provider" | "reconciliation", reason?: string) => ({
  source,
  at: ctx.clock.now(),
  id: ctx.ids.uuid(),
  ...(reason ? { reason } : {}),
});

async function save(ctx: FulfilmentContext, id: string, change: (o: OrderRecord) => OrderRecord | undefined) {
  return updateOrder(ctx.store, id, ctx.clock.now, change);
}

function withLifecycle(order: OrderRecord, lifecycle: Lifecycle): OrderRecord {
  return { ...order, lifecycle: { status: lifecycle.status, timeline: lifecycle.timeline } };
}

/** Typesets a campaign piece's letter and stores it; true, or why it could not. */
async function typesetPiece(ctx: FulfilmentContext, order: OrderRecord): Promise<true | string> {
  const doc = order.order.document;
  if (doc?.kind !== "letter") return "the piece has no letter";
  try {
    const result = await pdfWorkOf(ctx).typesetLetter({
      body: doc.body,
      format: doc.format,
      render: doc.render,
      date: todayUtc(new Date(ctx.clock.now())),
      ...windowLines(order.order.sender, order.order.recipient),
    });
    const sha256 = createHash("sha256").update(result.pdf).digest("hex");
    const blobKey = `documents:${sha256}`;
    await keepDocumentFor(ctx, sha256, "pinned", result.pdf);
    await save(ctx, order.id, (o) => ({
      ...o,
      document: { ...o.document, blob_key: blobKey, sha256, page_count: result.page_count },
    }));
    return true;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** One move of one order; saved before any call that cannot be taken back. */
async function advance(ctx: FulfilmentContext, order: OrderRecord): Promise<OrderRecord> {
  const lc = order.lifecycle!;
  switch (lc.status) {
    case "queued":
      return save(ctx, order.id, (o) =>
        withLifecycle(o, transition(o.lifecycle!, "document_preparing", meta(ctx, "system"))),
      );
    case "document_preparing": {
      if (!order.document.blob_key && order.order.document?.kind === "letter") {
        // A campaign piece: its letter is typeset now, from the template filled with its row.
        const typeset = await typesetPiece(ctx, order);
        if (typeset !== true) {
          return save(ctx, order.id, (o) =>
            withLifecycle(o, transition(o.lifecycle!, "failed", meta(ctx, "system", typeset))),
          );
        }
        order = (await loadOrder(ctx.store, order.id))!.value;
      }
      const blob = order.document.blob_key ? await ctx.blobs.head(order.document.blob_key) : undefined;
      if (!blob) {
        return save(ctx, order.id, (o) =>
          withLifecycle(
            o,
            transition(o.lifecycle!, "failed", meta(ctx, "system", "the print-ready document is missing")),
          ),
        );
      }
      return save(ctx, order.id, (o) =>
        withLifecycle(o, transition(o.lifecycle!, "document_prepared", meta(ctx, "system"))),
      );
    }
    case "document_prepared": {
      // A form's workflow rules are checked once more at fulfillment, the last stage before anything is printed.
      const refusal = formRefusalAtFulfilment(order.order, ctx.workflows ?? BUILTIN_WORKFLOWS, ctx.clock);
      if (refusal !== undefined) {
        return save(ctx, order.id, (o) =>
          withLifecycle(o, transition(o.lifecycle!, "failed", meta(ctx, "system", refusal))),
        );
      }
      const job = await printJob(ctx, order);
      let provider: PrintProvider;
      try {
        provider = routeProvider(providersFor(ctx, order), job);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return save(ctx, order.id, (o) =>
          withLifecycle(o, transition(o.lifecycle!, "failed", meta(ctx, "system", reason))),
        );
      }
      // The safety marker goes down before the call: an unknown outcome is reconciled, never resubmitted blindly.
      const pending = await save(ctx, order.id, (o) => ({
        ...withLifecycle(o, transition(o.lifecycle!, "submission_pending", meta(ctx, "system"))),
        fulfilment: { provider: provider.name },
      }));
      return submit(ctx, pending, provider, job);
    }
    case "submission_pending": {
      const provider = providerOf(ctx, order);
      if (!provider) return order;
      let answer: Parameters<typeof reconcileSubmission>[1];
      try {
        const found = await provider.lookup(order.id);
        answer =
          found.outcome === "found"
            ? { outcome: "found", status: found.status, reference: found.reference }
            : found;
      } catch (error) {
        answer = { outcome: "unknown", reason: error instanceof Error ? error.message : String(error) };
      }
      const decision = reconcileSubmission(lc, answer, { at: ctx.clock.now(), ids: ctx.ids });
      if (decision.decision === "resubmit") return submit(ctx, order, provider, await printJob(ctx, order));
      if (decision.decision === "wait") return order;
      const view = decision.reference
        ? await provider.status(decision.reference).catch(() => undefined)
        : undefined;
      return save(ctx, order.id, (o) => ({
        ...withLifecycle(o, decision.order),
        fulfilment: {
          ...o.fulfilment!,
          ...(decision.reference ? { reference: decision.reference } : {}),
          ...tracking(view),
        },
      }));
    }
    case "submitted":
    case "accepted":
    case "in_transit": {
      const provider = providerOf(ctx, order);
      const reference = order.fulfilment?.reference;
      if (!provider || !reference) return order;
      const view = await provider.status(reference).catch(() => undefined);
      if (!view || view.status === lc.status) return order;
      const followed = followProvider(lc, view.status, {
        source: "provider",
        at: ctx.clock.now(),
        ids: ctx.ids,
      });
      return save(ctx, order.id, (o) => ({
        ...withLifecycle(o, followed.order),
        fulfilment: { ...o.fulfilment!, ...tracking(view) },
      }));
    }
    default:
      return order;
  }
}

async function submit(
  ctx: FulfilmentContext,
  order: OrderRecord,
  provider: PrintProvider,
  job: PrintJob,
): Promise<OrderRecord> {
  try {
    const result = await provider.submit(job, { idempotencyKey: order.id });
    const followed = followProvider(order.lifecycle!, result.status, {
      source: "reconciliation",
      at: ctx.clock.now(),
      ids: ctx.ids,
    });
    return save(ctx, order.id, (o) => ({
      ...withLifecycle(o, followed.order),
      fulfilment: {
        ...o.fulfilment!,
        provider: provider.name,
        reference: result.reference,
        ...tracking(result),
      },
    }));
  } catch (error) {
    const code = PrintError.isInstance(error) ? error.code : "provider_unavailable";
    const message = error instanceof Error ? error.message : String(error);
    if (isDefiniteRefusal(error)) {
      return save(ctx, order.id, (o) => ({
        ...withLifecycle(
          o,
          transition(o.lifecycle!, "failed", meta(ctx, "reconciliation", `${code}: ${message}`)),
        ),
        fulfilment: { ...o.fulfilment!, last_error: { code, message, at: ctx.clock.now() } },
      }));
    }
    // Unknown outcome: stay submission_pending; the next round asks the provider about the key.
    return save(ctx, order.id, (o) => ({
      ...o,
      fulfilment: { ...o.fulfilment!, last_error: { code, message, at: ctx.clock.now() } },
    }));
  }
}

/**
 * The providers an order may go to, in order of preference. A Projects API test-mode order goes only to simulated
 * providers (spec 3: test keys run against simulated fulfillment, at no cost): with none configured it fails, and
 * never reaches a provider that prints.
 */
function providersFor(ctx: FulfilmentContext, order: OrderRecord): readonly PrintProvider[] {
  if (order.project?.mode !== "test") return ctx.providers;
  const simulated = ctx.providers.filter((provider) => provider.simulated);
  if (simulated.length === 0) {
    throw new PrintError(
      "no_capable_provider",
      "test-mode orders go only to simulated print providers, and none is configured",
    );
  }
  return simulated;
}

function providerOf(ctx: FulfilmentContext, order: OrderRecord): PrintProvider | undefined {
  return ctx.providers.find((p) => p.name === order.fulfilment?.provider);
}

function tracking(
  view:
    | {
        tracking_number: string | null;
        tracking_url: string | null;
        events: { status: string; at: string; description: string; location?: string }[];
      }
    | undefined,
) {
  if (!view) return {};
  return {
    tracking_number: view.tracking_number,
    tracking_url: view.tracking_url,
    tracking_events: view.events,
  };
}

/**
 * The print job of an order. A handwritten order (its document the proof the machine writes from) is a `handwritten`
 * job: postcard_size null, and the options it was stored with (standard mail, one side, no proof of mailing).
 */
async function printJob(ctx: FulfilmentContext, order: OrderRecord): Promise<PrintJob> {
  const blob = await ctx.blobs.get(order.document.blob_key);
  const o = order.order;
  const postcard = o.mailpiece_type === "postcard";
  return {
    mailpiece_type: isHandwrittenOrder(order) ? "handwritten" : o.mailpiece_type,
    postcard_size: o.postcard_size ?? null,
    document: {
      bytes: blob?.bytes ?? new Uint8Array(0),
      sha256: order.document.sha256,
      page_count: order.document.page_count,
    },
    recipient: printAddress(o.recipient!),
    sender: printAddress(o.sender),
    mail_class: o.options.mail_class,
    color: postcard ? true : o.options.color,
    double_sided: postcard ? true : o.options.double_sided,
    certified: o.options.certified,
    ...(o.options.certified_return_receipt
      ? { certified_return_receipt: true, return_receipt_format: o.options.return_receipt_format }
      : {}),
  };
}

/**
 * A party as the provider's address fields: those of its manual address, or of the structured address its address
 * id was resolved to. An Address-mode party that was never resolved (an order stored before ids were looked up)
 * carries only a formatted address text: its first segment is the street, the last one that holds a postal code
 * gives the city and code.
 */
export function printAddress(party: Party): PrintAddress {
  const address = party.address;
  const company = party.company ? { company: party.company } : {};
  if (address.type === "Manual") return { ...structuredPrintAddress(party.name, address), ...company };
  if (address.resolved) return { ...structuredPrintAddress(party.name, address.resolved), ...company };
  const segments = address.text
    .split(/[,\n]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const line1 = segments[0] ?? address.text.slice(0, 256);
  const rest = segments.slice(1).join(" ");
  const postal =
    /([A-Z]\d[A-Z] ?\d[A-Z]\d|\d{3,5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})/i.exec(rest)?.[1] ??
    "00000";
  const city = (segments[1] ?? line1).replace(postal, "").trim() || line1;
  return {
    name: party.name,
    ...company,
    line1: line1.slice(0, 256),
    city: city.slice(0, 128),
    postal_code: postal.slice(0, 20),
    country: party.country,
  };
}

function structuredPrintAddress(name: string, address: ResolvedAddress): PrintAddress {
  return {
    name,
    line1: address.line1,
    ...(address.line2 ? { line2: address.line2 } : {}),
    city: address.city,
    ...(address.state ? { state: address.state } : {}),
    postal_code: address.zip,
    country: address.countryCode,
  };
}

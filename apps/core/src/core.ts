import type { Workflow } from "@mailpiece/forms";
import { BUILTIN_WORKFLOWS, FormsError, findWorkflow, listWorkflows, workflowSchema } from "@mailpiece/forms";
import type { PdfWork } from "@mailpiece/pdf-work";
import type {
  BlobStore,
  Clock,
  FloristProvider,
  IdGenerator,
  PaymentRail,
  PrintProvider,
  Store,
} from "@mailpiece/ports";
import { randomIds, systemClock } from "@mailpiece/ports";
import { campaignPayable } from "./campaign-payable.ts";
import type { CampaignView } from "./campaign-status.ts";
import { campaignView } from "./campaign-status.ts";
import type { CoreConfig } from "./config.ts";
import { defaultCoreConfig } from "./config.ts";
import type { CreateOrderInput, CreateOrderOutcome, OrderContext } from "./create-machine-order.ts";
import {
  createMachineOrder,
  getOrderStatus,
  orderPayable,
  paymentContext,
  requestConflict,
} from "./create-machine-order.ts";
import { createDocumentCache } from "./document-cache.ts";
import type { ResolvedDocument } from "./documents.ts";
import type {
  FlowerContext,
  FlowerCreateInput,
  FlowerCreateOutcome,
  FlowerOrderView,
} from "./flowers/index.ts";
import {
  createFlowerLetter,
  flowerPayable,
  flowerRequestConflict,
  getFlowerLetter,
  retryFlowerSubmissions,
  validateFlowerLetter,
} from "./flowers/index.ts";
import { runFulfilment } from "./fulfilment.ts";
import { findMailing, loadMailing } from "./mailings.ts";
import type { OrderStatusView } from "./order-status.ts";
import { confirmerOf, reconcilePayments } from "./payments/confirm.ts";
import type { PreviewMemo } from "./previews.ts";
import { collectPreviews, createPreviewSigner, keepPreview, openDocument } from "./previews.ts";
import { createLocalRateLimiter } from "./rate-limit.ts";
import type { UploadSlotOutcome } from "./uploads.ts";
import { fillUpload, openUploadSlot } from "./uploads.ts";
import type { ValidateOrderOutcome } from "./validate-order.ts";
import { prepareOrder } from "./validate-order.ts";

export interface CoreDeps {
  store: Store;
  blobs: BlobStore;
  clock?: Clock;
  ids?: IdGenerator;
  config?: Partial<CoreConfig>;
  /** The payment rails this deployment accepts, by protocol. */
  rails?: { x402?: PaymentRail; mpp?: PaymentRail };
  /** The workflow forms offered; default: the built-in ones of spec 2. */
  workflows?: readonly Workflow[];
  /** The florist for flower letters; without one the flower-letter endpoints answer 503. */
  florist?: FloristProvider;
  /** Print providers, in routing order; without them paid orders wait in queued. */
  printProviders?: readonly PrintProvider[];
  /** Downloads allowlisted PDF URLs (see @mailpiece/fetch-https); absent: URL documents are refused. */
  fetchDocument?: (url: string) => Promise<Uint8Array>;
  /**
   * Runs typesetting, PDF reading, postcard checks and form packets. A server gives a worker pool
   * (`createPdfWorkerPool`), so that no request holds the event loop; absent: the work runs on the caller's thread.
   * The core closes it on close().
   */
  pdfWork?: PdfWork;
}

export type ValidateInput = {
  body: unknown;
  raw?: Uint8Array | string;
  /** Who is asking (the client IP), for the per-client validate limit; absent: not limited. */
  clientKey?: string;
};
/** The client passed its validate limit; nothing was checked. */
export type RateLimited = { ok: false; rateLimited: { retryAfterSeconds: number }; issues?: undefined };
export type ValidateOutcome =
  | ValidateOrderOutcome
  | { ok: false; conflict: { code: "request_id_conflict"; message: string }; issues?: undefined }
  | RateLimited;

/** The use cases every surface shares. Surfaces map them to HTTP or JSON-RPC; they add no rules of their own. */
export interface MailpieceCore {
  readonly config: CoreConfig;
  readonly store: Store;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly rails: { x402?: PaymentRail; mpp?: PaymentRail };
  /** Checks a machine order request and quotes it. Changes nothing. */
  validateOrder(input: ValidateInput): Promise<ValidateOutcome>;
  /** Creates or resumes a machine order and takes its payment on the given rail. */
  createOrder(input: CreateOrderInput): Promise<CreateOrderOutcome>;
  /** The status of an order by order_id or any aliased request_id. */
  getOrderStatus(id: string): Promise<OrderStatusView | undefined>;
  /** Flower letters (spec 1), when a florist is configured. */
  readonly flowers?: {
    validate(
      input: ValidateInput,
    ): Promise<
      | Awaited<ReturnType<typeof validateFlowerLetter>>
      | { ok: false; conflict: { code: "request_id_conflict"; message: string }; issues?: undefined }
      | RateLimited
    >;
    create(input: FlowerCreateInput): Promise<FlowerCreateOutcome>;
    get(id: string): Promise<FlowerOrderView | undefined>;
  };
  /** A campaign's page data: every row's order, status and tracking. */
  getCampaign(id: string): Promise<CampaignView | undefined>;
  /** Moves paid orders along (preparation, submission, tracking); returns how many it worked on. */
  fulfil(options?: { owner?: string; pollMs?: number }): Promise<number>;
  /** The workflow-form catalogue: q over slug, name and aliases; limit 1-200 (default 50); cursor. */
  listForms(query: {
    q?: string;
    limit?: string;
    cursor?: string;
  }): { ok: true; forms: unknown[]; next_cursor: string | null } | { ok: false; message: string };
  /** A workflow's live schema by slug or alias. */
  formSchema(slug: string): unknown | undefined;
  /** Opens an upload slot for a PDF (spec 1: svc.create_pdf_upload), within the client's upload budget. */
  createUpload(input: {
    file_name: string;
    content_type: string;
    content_length: number;
    /** Who is asking (the client IP), for the per-client slot and byte budgets. */
    clientKey: string;
  }): Promise<UploadSlotOutcome>;
  /** Fills an upload slot with the PDF bytes, once. */
  fillUpload(token: string, bytes: Uint8Array): ReturnType<typeof fillUpload>;
  /** A signed, short-lived link path for a stored document, when previews are configured. */
  previewPath(sha256: string): string | undefined;
  /** The stored PDF behind a preview link, or why the link does not open it. */
  openPreview(
    sha256: string,
    expires: string | null,
    sig: string | null,
  ): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; reason: "expired" | "invalid" | "missing" }>;
  /**
   * Whether the core can serve: its store and blob store answer. `ok: false` names what failed (never a secret or
   * a connection string).
   */
  health(): Promise<{ ok: true } | { ok: false; failing: ("store" | "blobs")[] }>;
  close(): Promise<void>;
}

export function createMailpieceCore(deps: CoreDeps): MailpieceCore {
  const config = defaultCoreConfig(deps.config);
  const workflows = deps.workflows ?? BUILTIN_WORKFLOWS;
  const signer = config.previewSecret
    ? createPreviewSigner(config.previewSecret, config.previewTtlMs)
    : undefined;
  const ctx: OrderContext = {
    store: deps.store,
    blobs: deps.blobs,
    clock: deps.clock ?? systemClock,
    ids: deps.ids ?? randomIds,
    config,
    workflows,
    rails: deps.rails ?? {},
    ...(deps.pdfWork ? { pdf: deps.pdfWork } : {}),
    ...(deps.fetchDocument ? { fetchDocument: deps.fetchDocument } : {}),
    ...(config.cacheBytes > 0 ? { cache: createDocumentCache<ResolvedDocument>(config.cacheBytes) } : {}),
  };
  /** Validation is free and stores nothing, but it is work: each client has a generous limit of its own. */
  const validations = createLocalRateLimiter(config.validateRateLimit);
  const previews: PreviewMemo = new Map();
  const validateLimit = async (clientKey: string | undefined): Promise<RateLimited | undefined> => {
    if (clientKey === undefined) return undefined;
    const rate = validations.consume(clientKey, ctx.clock.now());
    return rate.allowed
      ? undefined
      : { ok: false, rateLimited: { retryAfterSeconds: rate.retryAfterSeconds } };
  };
  const payments = paymentContext(ctx);
  const flowerCtx: FlowerContext | undefined = deps.florist
    ? {
        store: ctx.store,
        clock: ctx.clock,
        ids: ctx.ids,
        florist: deps.florist,
        payments,
        unpaidRateLimit: config.unpaidRateLimit,
      }
    : undefined;
  const confirmOrder = confirmerOf(payments, orderPayable(ctx));
  const confirmCampaign = confirmerOf(payments, campaignPayable(ctx));
  const confirmers = {
    // Order payment work may name a campaign still in the legacy layout: it is confirmed as the campaign it is.
    order: async (id: string) =>
      (await loadMailing(ctx.store, id))?.kind === "campaign" ? confirmCampaign(id) : confirmOrder(id),
    campaign: confirmCampaign,
    ...(flowerCtx ? { flower_letter: confirmerOf(payments, flowerPayable(flowerCtx)) } : {}),
  };
  return {
    ...ctx,
    async validateOrder({ body, raw, clientKey }) {
      const limited = await validateLimit(clientKey);
      if (limited) return limited;
      const prepared = await prepareOrder(body, ctx);
      if (!prepared.ok) return prepared;
      const { view } = prepared.prepared;
      if (raw !== undefined && (await requestConflict(ctx, view.request_id, raw))) {
        return {
          ok: false,
          conflict: {
            code: "request_id_conflict",
            message: `request_id ${view.request_id} was already used with a different body. Use a new request_id for a new mailing.`,
          },
        };
      }
      // A campaign's pieces are letters of their own: its validation links no preview.
      if (!signer || prepared.prepared.kind === "campaign") return { ok: true, view };
      const { document } = prepared.prepared;
      // The preview serves the exact bytes that would print, kept only as long as its link works.
      const link = signer.sign(document.sha256, ctx.clock.now());
      await keepPreview(ctx, document.sha256, document.bytes, link.expiresAt, previews);
      return { ok: true, view: { ...view, preview_path: link.path } };
    },
    createOrder: (input) => createMachineOrder(ctx, input),
    async getCampaign(id) {
      const found = await findMailing(ctx.store, id);
      return found?.kind === "campaign" ? campaignView(ctx.store, found.record) : undefined;
    },
    ...(flowerCtx ? { flowers: flowerUseCases(validateLimit, flowerCtx) } : {}),
    async fulfil(options = {}) {
      await collectPreviews(ctx);
      const confirmed = await reconcilePayments(payments, confirmers);
      const worked =
        confirmed + (await runFulfilment({ ...ctx, providers: deps.printProviders ?? [], ...options }));
      const flowers = flowerCtx ? await retryFlowerSubmissions(flowerCtx) : 0;
      return worked + flowers;
    },
    listForms(query) {
      try {
        const page = listWorkflows(workflows, {
          ...(query.q === undefined ? {} : { q: query.q }),
          ...(query.limit === undefined ? {} : { limit: query.limit }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        });
        return { ok: true, forms: [...page.forms], next_cursor: page.next_cursor };
      } catch (error) {
        if (FormsError.isInstance(error)) return { ok: false, message: error.message };
        throw error;
      }
    },
    formSchema(slug) {
      const workflow = findWorkflow(workflows, slug);
      return workflow ? workflowSchema(workflow) : undefined;
    },
    getOrderStatus: (id) => getOrderStatus(ctx, id),
    createUpload: (input) =>
      openUploadSlot(ctx.store, ctx.clock, {
        ...input,
        maxBytes: config.maxPdfBytes,
        ttlMs: config.uploadTtlMs,
        limits: config.uploadLimits,
      }),
    fillUpload: (token, bytes) => fillUpload(ctx.store, ctx.blobs, ctx.clock, token, bytes),
    previewPath: (sha256) => signer?.sign(sha256, ctx.clock.now()).path,
    async openPreview(sha256, expires, sig) {
      if (!signer) return { ok: false, reason: "invalid" };
      const verdict = signer.verify(sha256, expires, sig, ctx.clock.now());
      if (verdict !== "ok") return { ok: false, reason: verdict };
      const blob = await openDocument(ctx, sha256);
      return blob ? { ok: true, bytes: blob.bytes } : { ok: false, reason: "missing" };
    },
    async health() {
      const [store, blobs] = await Promise.allSettled([
        ctx.store.get("health:probe"),
        ctx.blobs.head("health:probe"),
      ]);
      const failing: ("store" | "blobs")[] = [];
      if (store.status === "rejected") failing.push("store");
      if (blobs.status === "rejected") failing.push("blobs");
      return failing.length === 0 ? { ok: true } : { ok: false, failing };
    },
    async close() {
      await deps.pdfWork?.close();
      await Promise.all([deps.store.close(), deps.blobs.close()]);
    },
  };
}

function flowerUseCases(
  validateLimit: (clientKey: string | undefined) => Promise<RateLimited | undefined>,
  ctx: FlowerContext,
): NonNullable<MailpieceCore["flowers"]> {
  return {
    async validate({ body, raw, clientKey }) {
      const limited = await validateLimit(clientKey);
      if (limited) return limited;
      const outcome = await validateFlowerLetter(ctx, body);
      if (
        outcome.ok &&
        raw !== undefined &&
        (await flowerRequestConflict(ctx, outcome.view.request_id, raw))
      ) {
        return {
          ok: false,
          conflict: {
            code: "request_id_conflict",
            message: `request_id ${outcome.view.request_id} was already used with a different body. Use a new request_id for a new flower letter.`,
          },
        };
      }
      return outcome;
    },
    create: (input) => createFlowerLetter(ctx, input),
    get: (id) => getFlowerLetter(ctx, id),
  };
}

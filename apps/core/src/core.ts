import type { Workflow } from "@mailpiece/forms";
import { BUILTIN_WORKFLOWS, FormsError, findWorkflow, listWorkflows, workflowSchema } from "@mailpiece/forms";
import type { PdfWork } from "@mailpiece/pdf-work";
import type {
  AddressProvider,
  AddressSuggestion,
  BlobStore,
  CheckoutPayments,
  Clock,
  EmailAddress,
  EmailSender,
  FloristProvider,
  IdGenerator,
  JobQueue,
  PaymentRail,
  PrintProvider,
  Store,
} from "@mailpiece/ports";
import { randomIds, systemClock } from "@mailpiece/ports";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import type { AddressSearchInput } from "./addresses.ts";
import { addressSearch } from "./addresses.ts";
import { campaignPayable } from "./campaign-payable.ts";
import type { CampaignView } from "./campaign-status.ts";
import { campaignView } from "./campaign-status.ts";
import type { CampaignValidationView } from "./campaigns.ts";
import { checkoutRail } from "./checkout/checkout-rail.ts";
import type { CheckoutView } from "./checkout/checkout-session.ts";
import type { CompleteCheckoutInput } from "./checkout/complete-checkout.ts";
import { cancelCheckout, completeCheckout, getCheckout } from "./checkout/complete-checkout.ts";
import type { CreateDraftInput, OrderDraftView } from "./checkout/drafts.ts";
import { createDraft } from "./checkout/drafts.ts";
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
import { documentCollectionWork, documentKeeper } from "./document-retention.ts";
import type { ResolvedDocument } from "./documents.ts";
import type { EmailLinks, Emails } from "./email/index.ts";
import { createEmails } from "./email/index.ts";
import { CoreError, invalidRequest, rateLimitedError, requestIdConflict } from "./errors.ts";
import type {
  FlowerContext,
  FlowerCreateInput,
  FlowerCreateOutcome,
  FlowerOrderView,
  FlowerQuoteView,
} from "./flowers/index.ts";
import {
  createFlowerLetter,
  flowerPayable,
  flowerRequestConflict,
  getFlowerLetter,
  validateFlowerLetter,
} from "./flowers/index.ts";
import { flowerSubmissionWork, liftLegacyFlowerWork } from "./flowers/submission.ts";
import { runFulfilment } from "./fulfilment.ts";
import type { Handwritten } from "./handwritten/index.ts";
import { createHandwritten } from "./handwritten/index.ts";
import type { QueueWork, RunQueueOptions } from "./job-runner.ts";
import { runQueue } from "./job-runner.ts";
import { findMailing, loadMailing } from "./mailings.ts";
import type { OrderRecord } from "./order-record.ts";
import type { OrderStatusView } from "./order-status.ts";
import { confirmerOf } from "./payments/confirm.ts";
import type { PaymentRails } from "./payments/pay.ts";
import { liftLegacyPaymentWork, paymentWork } from "./payments/payment-work.ts";
import type { PreviewMemo } from "./previews.ts";
import { collectPreviews, createPreviewSigner, keepPreview, openDocument } from "./previews.ts";
import type { ProjectDrafts } from "./project-drafts/index.ts";
import { createDraftTypes, createProjectDrafts, orderDraftType } from "./project-drafts/index.ts";
import type {
  AutoRefillView,
  BillingContext,
  PaymentMethodView,
  SetupOutcome,
  SetupSessionView,
} from "./projects/billing.ts";
import {
  autoRefillPolicies,
  autoRefillWork,
  completeSetupSession,
  createSetupSession,
  getAutoRefill,
  getSetupSession,
  liftLegacyRefills,
  listPaymentMethods,
  setAutoRefill,
  startAutoRefill,
} from "./projects/billing.ts";
import type { ProjectDocumentView, UploadIntentView } from "./projects/documents.ts";
import {
  completeDocument,
  createUploadIntent,
  documentView,
  loadDocument,
  uploadDocument,
} from "./projects/documents.ts";
import type { ProjectOrderContext, ProjectOrderView } from "./projects/orders.ts";
import {
  createProjectOrder,
  liftLegacyOrderIntents,
  loadProjectOrder,
  orderIntentWork,
  projectOrderView,
  settleProjectCredits,
} from "./projects/orders.ts";
import type { ProjectQuoteView } from "./projects/quotes.ts";
import { createQuote } from "./projects/quotes.ts";
import type { TopUpSessionView } from "./projects/top-ups.ts";
import { createTopUpSession, getTopUpSession, payTopUpSession } from "./projects/top-ups.ts";
import {
  createLocalRateLimiter,
  createRequestLimiter,
  type RateLimit,
  type RequestLimiter,
} from "./rate-limit.ts";
import type { ReturnReceipts } from "./receipts/index.ts";
import { createReturnReceipts } from "./receipts/index.ts";
import type { Templates } from "./templates/index.ts";
import { createTemplates } from "./templates/index.ts";
import type { TestDrafts } from "./test-drafts/index.ts";
import { createTestDrafts } from "./test-drafts/index.ts";
import type { UploadRecord, UploadSlot } from "./uploads.ts";
import { fillUpload, openUploadSlot } from "./uploads.ts";
import type { OrderValidationView } from "./validate-order.ts";
import { prepareOrder } from "./validate-order.ts";
import type { WebhookOptions, WebhookSender, Webhooks } from "./webhooks/index.ts";
import { createWebhooks, recordOrderEvents } from "./webhooks/index.ts";
import type { KeyAction, Permission } from "./workspaces/api-keys.ts";
import type { CreditBalanceView, CreditLedgerPage } from "./workspaces/credits.ts";
import { workspaceCredits } from "./workspaces/credits.ts";
import type {
  ApiKeyView,
  IssuedKey,
  Principal,
  WorkspaceContext,
  WorkspaceView,
} from "./workspaces/workspaces.ts";
import {
  authenticate,
  createWorkspace,
  enableLive,
  listKeys,
  listWorkspaces,
  loadWorkspace,
  requirePermission,
  rotateKey,
  updateWorkspace,
  workspaceView,
} from "./workspaces/workspaces.ts";

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
  /**
   * Card payments for hosted checkout (spec 1: drafts and complete_checkout); without them drafts can be created
   * but checkout completion answers payment_rail_unavailable.
   */
  checkoutPayments?: CheckoutPayments;
  /**
   * Simulated card payments for test-mode credit top-ups of the Projects API (never real money); default: the
   * checkout payments when they are simulated. Absent either way: test top-ups are refused.
   */
  testCheckoutPayments?: CheckoutPayments;
  /**
   * Address search (spec 1: svc.search_addresses), and the lookup of the address ids of Address-mode parties into
   * the addresses that print; without one, search is not offered and orders give manual addresses only.
   */
  addresses?: AddressProvider;
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
  /**
   * The job queue background work runs on (fulfilment of paid orders); default: the embedded queue on `store`,
   * which several processes share when the store is shared.
   */
  jobs?: JobQueue;
  /** Told of failures of work that runs after its request answered (automatic refills); default: ignored. */
  onBackgroundError?: (error: unknown) => void;
  /**
   * POSTs one webhook delivery (the fetch-https poster: public HTTPS receivers only); default: none, so every
   * delivery fails and is retried on the schedule.
   */
  webhookSender?: WebhookSender;
  /** Checks a webhook receiver URL when an endpoint is created (the poster's `check`); default: the HTTPS rule only. */
  checkWebhookUrl?: (url: string) => Promise<void>;
  webhookOptions?: WebhookOptions;
  /**
   * Email (spec 1's receipts, status mails and emailed return receipts): sent from the queue with retries, so a mail
   * server that is down delays mail and never blocks an order. Absent: no email is sent. The core closes the sender.
   */
  email?: {
    sender: EmailSender;
    from: EmailAddress;
    replyTo?: EmailAddress;
    /** The brand name mails carry; default Mailpiece. */
    brandName?: string;
    links?: EmailLinks;
    /** Told of a mail given up for good (a permanent refusal). */
    onGivenUp?: (error: unknown) => void;
  };
}

/** How long one process holds a background job without a sign of life (renewed while it works on it). */
const WORK_LEASE_MS = 10_000;
/** How often `fulfil` looks for expired previews of unpaid work. */
const PREVIEW_COLLECTION_INTERVAL_MS = 60_000;

export type ValidateInput = {
  body: unknown;
  raw?: Uint8Array | string;
  /** Who is asking (the client IP), for the per-client validate limit; absent: not limited. */
  clientKey?: string;
};
/** A valid machine order request, quoted: a single order's validation or a campaign's. */
export type ValidationView = OrderValidationView | CampaignValidationView;

/**
 * The use cases every surface shares. Surfaces map them to HTTP or JSON-RPC; they add no rules of their own. Each
 * returns what was asked for, or throws a CoreError whose code the surface maps in its one table; a lookup of
 * something that does not exist returns undefined.
 */
export interface MailpieceCore {
  readonly config: CoreConfig;
  readonly store: Store;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The job queue background work runs on. */
  readonly jobs: JobQueue;
  /** The rails this deployment takes payments on, the hosted checkout's (`checkout`) included. */
  readonly rails: PaymentRails;
  /**
   * Checks a machine order request and quotes it. Changes nothing. Throws validation_failed with every issue,
   * request_id_conflict, rate_limited, or address_search_unavailable when an address id cannot be looked up.
   */
  validateOrder(input: ValidateInput): Promise<ValidationView>;
  /**
   * Creates or resumes a machine order and takes its payment on the given rail. Throws validation_failed,
   * request_id_conflict, rate_limited (unpaid creations) or address_search_unavailable; a refused credential is a
   * payment_required outcome.
   */
  createOrder(input: CreateOrderInput): Promise<CreateOrderOutcome>;
  /**
   * Creates (or finds again) an unpaid order draft of one mailpiece and its hosted checkout session (spec 1: the
   * draft tools). Validated exactly as a machine order, with the buyer optional; the same request_id rules and the
   * same unpaid-creation limit. Throws validation_failed, request_id_conflict, rate_limited or
   * address_search_unavailable.
   */
  createDraft(input: CreateDraftInput): Promise<OrderDraftView>;
  /** A checkout session with its order, by its id (`cs_...`). */
  getCheckout(id: string): Promise<CheckoutView | undefined>;
  /**
   * Pays a checkout session with a shared payment token (spec 1: complete_checkout), charging at most once; a
   * refused payment answers the open session with a message. Throws validation_failed, not_found,
   * checkout_expired, checkout_canceled or payment_rail_unavailable.
   */
  completeCheckout(input: CompleteCheckoutInput): Promise<CheckoutView>;
  /** Cancels an open checkout session. Throws not_found, or checkout_completed for a paid one. */
  cancelCheckout(id: string): Promise<CheckoutView>;
  /** The status of an order by order_id or any aliased request_id. */
  getOrderStatus(id: string): Promise<OrderStatusView | undefined>;
  /**
   * Address search (spec 1), when a provider is configured: suggestions of type Address or Container; a Container is
   * searched again with `container`. Throws validation_failed on the argument at fault, rate_limited past 120
   * searches a minute or 3000 a day per client, address_search_unavailable when the provider cannot answer.
   */
  searchAddresses?(input: AddressSearchInput): Promise<AddressSuggestion[]>;
  /** Flower letters (spec 1), when a florist is configured. */
  readonly flowers?: {
    /** Checks and quotes a flower letter with the florist. Throws as validateOrder does. */
    validate(input: ValidateInput): Promise<FlowerQuoteView>;
    create(input: FlowerCreateInput): Promise<FlowerCreateOutcome>;
    get(id: string): Promise<FlowerOrderView | undefined>;
  };
  /** A campaign's page data: every row's order, status and tracking. */
  getCampaign(id: string): Promise<CampaignView | undefined>;
  /**
   * Workspaces and their API keys (spec 3): keys are shown once, stored as their SHA-256, compared in constant
   * time; a rotation keeps the old key of the mode working for `keyOverlapMs`.
   */
  /**
   * A request limit of one kind (`name`, e.g. `v1-key`) per subject, counted together by every process of a shared
   * store (in this process's memory on a store that is not shared), on the core's clock.
   */
  requestLimiter(name: string, rule: RateLimit): RequestLimiter;
  readonly workspaces: {
    /**
     * A workspace with a test key holding every test permission (shown once), and its account email when given
     * (receipts of its orders, and spec 3's default err_email). Throws validation_failed naming name or email.
     */
    create(name: string, options?: { email?: unknown }): ReturnType<typeof createWorkspace>;
    /** The caller behind a bearer key; throws unauthorized, or forbidden for a live key before live-enabling. */
    authenticate(bearer: string | undefined): Promise<Principal>;
    /** Throws permission_denied or approval_required when the key may not take the action. */
    requirePermission(principal: Principal, action: KeyAction): void;
    listKeys(principal: Principal): Promise<ApiKeyView[]>;
    rotateKey(principal: Principal, mode: unknown, permissions?: readonly Permission[]): Promise<IssuedKey>;
    /**
     * The workspace's payment method is set up: its live keys start to work. A workspace without a live key gets its
     * first one, with every live permission, answered once.
     */
    enableLive(workspaceId: string): Promise<IssuedKey | undefined>;
    /**
     * Changes a workspace's name or account email (`email: null` removes it), for the operator; other fields stay.
     * Throws validation_failed naming each bad or unknown field, or not_found.
     */
    update(workspaceId: string, changes: Record<string, unknown>): Promise<WorkspaceView>;
    /** One workspace (for the operator); undefined when there is none. */
    get(workspaceId: string): Promise<WorkspaceView | undefined>;
    /** The deployment's workspaces, a page at a time (for the operator). Throws invalid_query. */
    list(page: {
      cursor?: string;
      limit?: number;
    }): Promise<{ data: WorkspaceView[]; next_cursor: string | null }>;
    /** The credits of the workspace in `mode` (the caller's by default), with snapshots of both modes. */
    balance(workspaceId: string, mode: "test" | "live"): Promise<CreditBalanceView>;
    /** The credit movements of one workspace and mode, oldest first. Throws invalid_query for a bad cursor. */
    ledger(
      principal: Pick<Principal, "workspace_id" | "mode">,
      page: { cursor?: string; limit?: number },
    ): Promise<CreditLedgerPage>;
  };
  /**
   * The Projects API's documents and quotes (spec 3), in the caller's workspace and mode: anything of another
   * workspace or mode is not_found. Each throws validation_failed with every issue of a bad request.
   */
  readonly projects: {
    /** A document and its temporary upload URL (PUT, the declared size and type). */
    createUploadIntent(principal: Principal, body: unknown): Promise<UploadIntentView>;
    /** The PUT of an upload URL, authorized by its secret; not_found for a wrong one. */
    uploadDocument(input: {
      document_id: string;
      token: string;
      content_type: string | null;
      bytes: Uint8Array;
    }): Promise<ProjectDocumentView>;
    /** The PDF preflight: it parses, and its page count is within the limit and as given. */
    completeDocument(principal: Principal, documentId: string, body: unknown): Promise<ProjectDocumentView>;
    getDocument(principal: Principal, documentId: string): Promise<ProjectDocumentView>;
    /** A quote of a letter or postcard of a ready document, with every rule of spec 3. */
    createQuote(principal: Principal, kind: "letter" | "postcard", body: unknown): Promise<ProjectQuoteView>;
    /**
     * An order from a quote, once per Idempotency-Key, its price reserved on the workspace's credits. Throws
     * idempotency_key_required, validation_failed, request_id_conflict (the key with another body) or
     * insufficient_credits; nothing is reserved when it throws.
     */
    createOrder(
      principal: Principal,
      kind: "letter" | "postcard",
      body: unknown,
      idempotencyKey: string | undefined,
    ): Promise<ProjectOrderView>;
    /** An order of the caller's workspace, mode and kind; undefined for anything else. */
    getOrder(
      principal: Principal,
      kind: "letter" | "postcard",
      id: string,
    ): Promise<ProjectOrderView | undefined>;
    /** The PDF of such an order; undefined when there is none. */
    orderDocument(
      principal: Principal,
      kind: "letter" | "postcard",
      id: string,
    ): Promise<Uint8Array | undefined>;
    /** A hosted top-up of the caller's credits (amount_cents 100 to 100000). Throws validation_failed. */
    createTopUp(principal: Principal, body: unknown): Promise<TopUpSessionView>;
    /** A top-up by its id, for its hosted page. */
    getTopUp(id: string): Promise<TopUpSessionView | undefined>;
    /** Pays a top-up with a shared payment token, charging and crediting at most once. */
    payTopUp(id: string, input: { token: unknown }): Promise<TopUpSessionView>;
    /** The cards saved for the caller's mode, newest (the default) first. */
    listPaymentMethods(
      principal: Principal,
    ): Promise<{ object: "list"; data: PaymentMethodView[]; has_more: false }>;
    /**
     * A hosted page that saves a card for `mode` (default the key's); a test key may open a live one, whose
     * completion live-enables the workspace. Throws validation_failed or payment_rail_unavailable.
     */
    createSetup(principal: Principal, body: unknown): Promise<SetupSessionView>;
    /** A setup by its id, for its hosted page. */
    getSetup(id: string): Promise<SetupSessionView | undefined>;
    /**
     * Saves the card behind a shared payment token, once; a live setup live-enables the workspace and answers its
     * first live key once. Throws not_found, validation_failed, checkout_expired or payment_rail_unavailable.
     */
    completeSetup(id: string, input: { token: unknown }): Promise<SetupOutcome>;
    /** The automatic refill of the caller's mode. */
    getAutoRefill(principal: Principal): Promise<AutoRefillView>;
    /**
     * Sets an automatic refill (threshold and amount 100 to 100000 cents): once per fall below the threshold, the
     * default card is charged off-session. Throws validation_failed, forbidden or payment_method_required.
     */
    setAutoRefill(principal: Principal, body: unknown): Promise<AutoRefillView>;
  };
  /**
   * Drafts and their approvals (spec 3): saved without spending, revised, approved by a person, released once. The
   * draft types offered are letter and postcard; another (template, handwritten) is offered by one
   * `draftTypes.register(name, type)` in createMailpieceCore.
   */
  readonly drafts: ProjectDrafts;
  /** Signed webhooks of the Projects API: endpoints, events per order status, deliveries and replays. */
  readonly webhooks: Webhooks;
  /** Signed electronic return receipts of certified letters: kept, read, exported. */
  readonly returnReceipts: ReturnReceipts;
  /** Letter templates with {{variables}} and immutable versions, sent as letters on the credits. */
  readonly templates: Templates;
  /** Handwritten cards: a proof in a handwriting font, written and posted without carrier tracking. */
  readonly handwritten: Handwritten;
  /** The test-mode drafts of {base_url}/v1/test: watermarked previews, zero-dollar quotes, fake lifecycles. */
  readonly testDrafts: TestDrafts;
  /** Moves paid orders along (preparation, submission, tracking); returns how many it worked on. */
  fulfil(options?: { owner?: string; pollMs?: number }): Promise<number>;
  /**
   * The workflow-form catalogue: q over slug, name and aliases; limit 1-200 (default 50); cursor. Throws
   * invalid_query for a limit or cursor it cannot read.
   */
  listForms(query: { q?: string; limit?: string; cursor?: string }): {
    forms: unknown[];
    next_cursor: string | null;
  };
  /** A workflow's live schema by slug or alias. */
  formSchema(slug: string): unknown | undefined;
  /** Opens an upload slot for a PDF (spec 1: svc.create_pdf_upload), within the client's upload budget. */
  createUpload(input: {
    file_name: string;
    content_type: string;
    content_length: number;
    /** Who is asking (the client IP), for the per-client slot and byte budgets. */
    clientKey: string;
  }): Promise<UploadSlot>;
  /** Fills an upload slot with the PDF bytes, once; throws an upload_* code when the slot cannot take them. */
  fillUpload(token: string, bytes: Uint8Array): Promise<UploadRecord>;
  /** A signed, short-lived link path for a stored document, when previews are configured. */
  previewPath(sha256: string): string | undefined;
  /**
   * The stored PDF behind a preview link. Throws preview_link_invalid (tampered or expired, the message says
   * which) or not_found (the document is no longer kept).
   */
  openPreview(sha256: string, expires: string | null, sig: string | null): Promise<Uint8Array>;
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
  const clock = deps.clock ?? systemClock;
  const jobs = deps.jobs ?? createStoreJobQueue({ store: deps.store, clock });
  const retention = {
    store: deps.store,
    blobs: deps.blobs,
    jobs,
    clock,
    retentionMs: config.documentRetentionMs,
  };
  const documents = documentKeeper(retention);
  // Email and return receipts refer to each other (a stored receipt is emailed, an emailed one is marked): bound late.
  let emails: Emails | undefined;
  const ctx: OrderContext = {
    store: deps.store,
    blobs: deps.blobs,
    clock,
    jobs,
    documents,
    ids: deps.ids ?? randomIds,
    config,
    workflows,
    rails: {
      ...deps.rails,
      ...(deps.checkoutPayments ? { checkout: checkoutRail(deps.checkoutPayments) } : {}),
    },
    ...(deps.pdfWork ? { pdf: deps.pdfWork } : {}),
    ...(deps.fetchDocument ? { fetchDocument: deps.fetchDocument } : {}),
    ...(deps.addresses ? { addresses: deps.addresses } : {}),
    ...(config.cacheBytes > 0 ? { cache: createDocumentCache<ResolvedDocument>(config.cacheBytes) } : {}),
    ...(deps.email ? { paid: (kind, record) => emails?.paid(kind, record) ?? Promise.resolve() } : {}),
  };
  /** Validation is free and stores nothing, but it is work: each client has a generous limit of its own. */
  const validations = createLocalRateLimiter(config.validateRateLimit);
  const previews: PreviewMemo = new Map();
  const validateLimit = (clientKey: string | undefined): void => {
    if (clientKey === undefined) return;
    const rate = validations.consume(clientKey, ctx.clock.now());
    if (!rate.allowed) throw rateLimitedError(rate.retryAfterSeconds, "validations");
  };
  const payments = paymentContext(ctx);
  let lastPreviewCollection = Number.NEGATIVE_INFINITY;
  const search = deps.addresses ? addressSearch(deps.addresses) : undefined;
  const credits = workspaceCredits(ctx.store);
  const background = new Set<Promise<unknown>>();
  const projectCtx = {
    store: ctx.store,
    blobs: ctx.blobs,
    clock: ctx.clock,
    ids: ctx.ids,
    config,
    credits,
    jobs,
    documents,
    quoteTtlMs: config.quoteTtlMs,
    ...(deps.pdfWork ? { pdf: deps.pdfWork } : {}),
  };
  const testPayments =
    deps.testCheckoutPayments ?? (deps.checkoutPayments?.simulated ? deps.checkoutPayments : undefined);
  // A refill that cannot start never fails the request that changed the credits.
  const creditsChanged = (workspaceId: string, mode: "test" | "live") =>
    startAutoRefill(billingCtx, workspaceId, mode).catch((error: unknown) => deps.onBackgroundError?.(error));
  const orderCtx: ProjectOrderContext = { ...projectCtx, creditsChanged };
  const webhooks = createWebhooks({
    store: deps.store,
    jobs,
    clock,
    ids: ctx.ids,
    send:
      deps.webhookSender ??
      (async () => {
        throw new Error("no webhook sender is configured");
      }),
    ...(deps.checkWebhookUrl ? { checkUrl: deps.checkWebhookUrl } : {}),
    ...(deps.webhookOptions ? { options: deps.webhookOptions } : {}),
  });
  const returnReceipts = createReturnReceipts({
    store: deps.store,
    blobs: deps.blobs,
    jobs,
    clock,
    providers: deps.printProviders ?? [],
    ...(deps.email
      ? { emailReceipt: (orderId: string) => emails?.returnReceiptStored(orderId) ?? Promise.resolve() }
      : {}),
  });
  if (deps.email) {
    const email = deps.email;
    emails = createEmails({
      store: deps.store,
      blobs: deps.blobs,
      jobs,
      clock,
      sender: email.sender,
      from: email.from,
      ...(email.replyTo ? { replyTo: email.replyTo } : {}),
      ...(email.brandName ? { brand: { name: email.brandName } } : {}),
      ...(email.links ? { links: email.links } : {}),
      ...(email.onGivenUp ? { onGivenUp: (_job, error) => email.onGivenUp?.(error) } : {}),
      receipts: returnReceipts,
    });
  }
  /** After each fulfilment round of an order: its credits follow its status, then its events and its receipt. */
  const afterSteps = async (order: OrderRecord) => {
    const settled = await settleProjectCredits(orderCtx, order);
    await recordOrderEvents(webhooks, settled);
    await returnReceipts.noteDelivered(settled);
    await emails?.noteOrder(settled);
    return settled;
  };
  const draftTypes = createDraftTypes();
  const draftOrderCtx = { ...orderCtx, quoteTtlMs: config.quoteTtlMs };
  draftTypes.register("letter", orderDraftType(draftOrderCtx, "letter"));
  draftTypes.register("postcard", orderDraftType(draftOrderCtx, "postcard"));
  /** A Projects API order as every read shows it: with its receipt fields and its webhook events. */
  const readOrder = async (principal: Principal, found: OrderRecord) => ({
    ...projectOrderView(found, false),
    ...(await returnReceipts.fieldsOf(found)),
    webhook_events: await webhooks.eventsOfOrder(principal, found.id),
  });
  const templates = createTemplates(orderCtx);
  const handwritten = createHandwritten({ ...orderCtx, readOrder });
  draftTypes.register("template", templates.draftType);
  draftTypes.register("handwritten", handwritten.draftType);
  const topUpCtx = {
    ...projectCtx,
    creditsChanged,
    topUpTtlMs: config.checkoutTtlMs,
    // Live credits are bought with the deployment's card payments (simulated ones in development).
    ...(deps.checkoutPayments ? { livePayments: deps.checkoutPayments } : {}),
    ...(testPayments ? { testPayments } : {}),
  };

  const workspaceCtx: WorkspaceContext = {
    store: ctx.store,
    clock: ctx.clock,
    ids: ctx.ids,
    keyOverlapMs: config.keyOverlapMs,
    credits,
    testCreditsCents: config.testCreditsCents,
  };
  const billingCtx: BillingContext = {
    ...topUpCtx,
    workspace: (id) => loadWorkspace(workspaceCtx, id),
    enableLive: (id) => enableLive(workspaceCtx, id),
    background,
    ...(deps.onBackgroundError ? { onBackgroundError: deps.onBackgroundError } : {}),
  };
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
      (await loadMailing(ctx, id))?.kind === "campaign" ? confirmCampaign(id) : confirmOrder(id),
    campaign: confirmCampaign,
    ...(flowerCtx ? { flower_letter: confirmerOf(payments, flowerPayable(flowerCtx)) } : {}),
  };
  // The queues of background work besides fulfilment: payments in flight, order intents, refills, florist submissions.
  const queueRound =
    <P>(work: QueueWork<P>) =>
    (run: RunQueueOptions) =>
      runQueue(jobs, work, run);
  const backgroundRounds = [
    queueRound(paymentWork(ctx.clock, config.settleLeaseMs, confirmers)),
    queueRound(orderIntentWork(orderCtx)),
    queueRound(autoRefillWork(billingCtx)),
    queueRound(documentCollectionWork(retention)),
    queueRound(webhooks.deliveryWork),
    queueRound(returnReceipts.work),
    ...(emails ? [queueRound(emails.work)] : []),
    ...(flowerCtx ? [queueRound(flowerSubmissionWork(flowerCtx))] : []),
  ];
  let lifted: Promise<void> | undefined;
  const liftLegacyWork = async () => {
    const now = ctx.clock.now();
    await liftLegacyPaymentWork(ctx.store, jobs, now);
    await liftLegacyOrderIntents(orderCtx);
    await liftLegacyRefills(billingCtx);
    await liftLegacyFlowerWork(ctx.store, jobs, now);
  };
  return {
    ...ctx,
    async validateOrder({ body, raw, clientKey }) {
      validateLimit(clientKey);
      const prepared = await prepareOrder(body, ctx);
      if (!prepared.ok) throw invalidRequest(prepared.issues);
      const { view } = prepared.prepared;
      if (raw !== undefined && (await requestConflict(ctx, view.request_id, raw))) {
        throw requestIdConflict(view.request_id, "mailing");
      }
      // A campaign's pieces are letters of their own: its validation links no preview.
      if (!signer || prepared.prepared.kind === "campaign") return view;
      const { document } = prepared.prepared;
      // The preview serves the exact bytes that would print, kept only as long as its link works.
      const link = signer.sign(document.sha256, ctx.clock.now());
      await keepPreview(ctx, document.sha256, document.bytes, link.expiresAt, previews);
      return { ...view, preview_path: link.path };
    },
    createOrder: (input) => createMachineOrder(ctx, input),
    createDraft: (input) => createDraft(ctx, input),
    getCheckout: (id) => getCheckout(ctx, id),
    completeCheckout: (input) => completeCheckout(ctx, input),
    cancelCheckout: (id) => cancelCheckout(ctx, id),
    requestLimiter: (name, rule) => createRequestLimiter(ctx, name, rule),
    workspaces: {
      create: (name, options) => createWorkspace(workspaceCtx, name, options),
      authenticate: (bearer) => authenticate(workspaceCtx, bearer),
      requirePermission,
      listKeys: (principal) => listKeys(workspaceCtx, principal),
      rotateKey: (principal, mode, permissions) => rotateKey(workspaceCtx, principal, mode, permissions),
      enableLive: (id) => enableLive(workspaceCtx, id),
      update: async (id, changes) => workspaceView(await updateWorkspace(workspaceCtx, id, changes)),
      get: async (id) => {
        try {
          return workspaceView(await loadWorkspace(workspaceCtx, id));
        } catch (error) {
          if (CoreError.isInstance(error) && error.code === "not_found") return undefined;
          throw error;
        }
      },
      list: (page) => listWorkspaces(workspaceCtx, page),
      balance: async (id, mode) => ({
        ...(await credits.balance(await loadWorkspace(workspaceCtx, id), mode)),
        auto_refill: await autoRefillPolicies(billingCtx, id),
      }),
      ledger: (principal, page) => credits.entries(principal, page),
    },
    projects: (() => {
      return {
        createUploadIntent: (principal, body) => createUploadIntent(projectCtx, principal, body),
        uploadDocument: (input) => uploadDocument(projectCtx, input),
        completeDocument: (principal, id, body) => completeDocument(projectCtx, principal, id, body),
        getDocument: async (principal, id) => documentView(await loadDocument(projectCtx, principal, id)),
        createQuote: (principal, kind, body) => createQuote(projectCtx, principal, kind, body),
        createOrder: (principal, kind, body, key) => createProjectOrder(orderCtx, principal, kind, body, key),
        async getOrder(principal, kind, id) {
          const found = await loadProjectOrder(projectCtx, principal, kind, id);
          return found ? readOrder(principal, found) : undefined;
        },
        createTopUp: (principal, body) => createTopUpSession(topUpCtx, principal, body),
        getTopUp: (id) => getTopUpSession(topUpCtx, id),
        payTopUp: (id, input) => payTopUpSession(topUpCtx, id, input),
        listPaymentMethods: (principal) => listPaymentMethods(billingCtx, principal),
        createSetup: (principal, body) => createSetupSession(billingCtx, principal, body),
        getSetup: (id) => getSetupSession(billingCtx, id),
        completeSetup: (id, input) => completeSetupSession(billingCtx, id, input),
        getAutoRefill: (principal) => getAutoRefill(billingCtx, principal),
        setAutoRefill: (principal, body) => setAutoRefill(billingCtx, principal, body),
        async orderDocument(principal, kind, id) {
          const found = await loadProjectOrder(projectCtx, principal, kind, id);
          return found ? (await ctx.blobs.get(found.document.blob_key))?.bytes : undefined;
        },
      };
    })(),
    webhooks,
    returnReceipts,
    templates,
    handwritten,
    testDrafts: createTestDrafts({ ...ctx, ...(signer ? { previews: signer } : {}) }),
    drafts: createProjectDrafts({ store: ctx.store, clock: ctx.clock, ids: ctx.ids, types: draftTypes }),
    async getCampaign(id) {
      const found = await findMailing(ctx, id);
      return found?.kind === "campaign" ? campaignView(ctx.store, found.record) : undefined;
    },
    ...(flowerCtx ? { flowers: flowerUseCases(validateLimit, flowerCtx) } : {}),
    ...(search ? { searchAddresses: (input: AddressSearchInput) => search(input, ctx.clock.now()) } : {}),
    async fulfil(options = {}) {
      // Previews expire by the minute: collecting them once a minute keeps a busy round from reading the index.
      const now = ctx.clock.now();
      if (now - lastPreviewCollection >= PREVIEW_COLLECTION_INTERVAL_MS) {
        lastPreviewCollection = now;
        await collectPreviews(ctx);
      }
      // Work noted by a version that kept it under `work:` prefixes is lifted onto the queues once per process.
      lifted ??= liftLegacyWork().catch((error: unknown) => {
        lifted = undefined;
        throw error;
      });
      await lifted;
      const run = { owner: options.owner ?? "worker", leaseMs: WORK_LEASE_MS };
      let worked = 0;
      const failures: unknown[] = [];
      // Each queue's round reads only its due jobs; a failing queue does not hold up the others.
      for (const round of backgroundRounds) {
        worked += await round(run).catch((error: unknown) => {
          failures.push(error);
          return 0;
        });
      }
      worked += await runFulfilment({
        ...ctx,
        providers: deps.printProviders ?? [],
        afterSteps,
        ...options,
      }).catch((error: unknown) => {
        failures.push(error);
        return 0;
      });
      if (failures.length > 0) throw failures[0];
      return worked;
    },
    listForms(query) {
      try {
        const page = listWorkflows(workflows, {
          ...(query.q === undefined ? {} : { q: query.q }),
          ...(query.limit === undefined ? {} : { limit: query.limit }),
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        });
        return { forms: [...page.forms], next_cursor: page.next_cursor };
      } catch (error) {
        if (FormsError.isInstance(error))
          throw new CoreError("invalid_query", error.message, { cause: error });
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
    fillUpload: (token, bytes) => fillUpload(ctx.store, ctx.blobs, ctx.clock, token, bytes, documents),
    previewPath: (sha256) => signer?.sign(sha256, ctx.clock.now()).path,
    async openPreview(sha256, expires, sig) {
      const verdict = signer ? signer.verify(sha256, expires, sig, ctx.clock.now()) : "invalid";
      if (verdict === "expired") {
        throw new CoreError(
          "preview_link_invalid",
          "This preview link has expired; validate the order again for a new one.",
        );
      }
      if (verdict !== "ok") throw new CoreError("preview_link_invalid", "This preview link is not valid.");
      const blob = await openDocument(ctx, sha256);
      if (!blob) throw new CoreError("not_found", "This document is no longer kept.");
      return blob.bytes;
    },
    async health() {
      const [store, blobs] = await Promise.allSettled([
        // A listing reaches the storage itself; a read may be answered from a store's memory.
        ctx.store.list("health:", { limit: 1 }),
        ctx.blobs.head("health:probe"),
      ]);
      const failing: ("store" | "blobs")[] = [];
      if (store.status === "rejected") failing.push("store");
      if (blobs.status === "rejected") failing.push("blobs");
      return failing.length === 0 ? { ok: true } : { ok: false, failing };
    },
    async close() {
      await Promise.allSettled([...background]);
      await deps.pdfWork?.close();
      if (!deps.jobs) await jobs.close();
      await deps.email?.sender.close();
      await Promise.all([deps.store.close(), deps.blobs.close()]);
    },
  };
}

function flowerUseCases(
  validateLimit: (clientKey: string | undefined) => void,
  ctx: FlowerContext,
): NonNullable<MailpieceCore["flowers"]> {
  return {
    async validate({ body, raw, clientKey }) {
      validateLimit(clientKey);
      const outcome = await validateFlowerLetter(ctx, body);
      if (!outcome.ok) throw invalidRequest(outcome.issues);
      if (raw !== undefined && (await flowerRequestConflict(ctx, outcome.view.request_id, raw))) {
        throw requestIdConflict(outcome.view.request_id, "flower letter");
      }
      return outcome.view;
    },
    create: (input) => createFlowerLetter(ctx, input),
    get: (id) => getFlowerLetter(ctx, id),
  };
}

// The core's public API: the use cases every surface shares (through `createMailpieceCore`) and the types a surface
// maps to its transport. Everything else is internal to the core.

export type { AddressSearchInput } from "./addresses.ts";
export { ADDRESS_SEARCH_RATE_LIMITS } from "./addresses.ts";
export type { CampaignView } from "./campaign-status.ts";
export type { CampaignValidationView } from "./campaigns.ts";
export type {
  CheckoutBuyer,
  CheckoutMessage,
  CheckoutStatus,
  CheckoutView,
} from "./checkout/checkout-session.ts";
export type { CompleteCheckoutInput } from "./checkout/complete-checkout.ts";
export type { CreateDraftInput, OrderDraftView } from "./checkout/drafts.ts";
export type { CoreConfig } from "./config.ts";
export { defaultCoreConfig } from "./config.ts";
export type { CoreDeps, MailpieceCore, ValidateInput, ValidationView } from "./core.ts";
export { createMailpieceCore } from "./core.ts";
export type { CreateOrderInput, CreateOrderOutcome } from "./create-machine-order.ts";
export type { CoreErrorCode, CoreErrorOptions } from "./errors.ts";
export { CoreError } from "./errors.ts";
export type {
  FlowerCreateInput,
  FlowerCreateOutcome,
  FlowerOrderView,
  FlowerQuoteBreakdown,
  FlowerQuoteView,
} from "./flowers/index.ts";
export { FULFILMENT_QUEUE, fulfilmentJobKey } from "./fulfilment.ts";
export type { Handwritten, PreparedHandwrittenSend } from "./handwritten/index.ts";
export type { JobOutcome, QueueWork, RunQueueOptions } from "./job-runner.ts";
export { runQueue } from "./job-runner.ts";
export { MAX_REQUEST_IDS_PER_ORDER } from "./open-mailing.ts";
export type { OrderStatusView } from "./order-status.ts";
export type { PartyView } from "./party-view.ts";
export type { PaymentAttempt, PaymentOutcome, PaymentRails } from "./payments/pay.ts";
export type { PayableKind, PaymentStatus } from "./payments/payment-record.ts";
export { PAYMENTS_QUEUE, paymentJobKey } from "./payments/payment-record.ts";
export { notePaymentWork } from "./payments/payment-work.ts";
export { documentWorkBusy } from "./pdf-work.ts";
export type {
  ApprovalState,
  ApprovalSummary,
  DecisionInput,
  DraftListQuery,
  DraftOrder,
  DraftPrice,
  DraftRevisionView,
  DraftState,
  DraftType,
  DraftTypeName,
  DraftView,
  ListPage,
  ProjectDrafts,
  SendBody,
} from "./project-drafts/index.ts";
export { DRAFT_STATES, DRAFT_TYPE_NAMES, MAX_DECISION_NOTE_CHARS } from "./project-drafts/index.ts";
export type {
  AutoRefillView,
  PaymentMethodView,
  SetupOutcome,
  SetupSessionView,
} from "./projects/billing.ts";
export type { ProjectDocumentView, UploadIntentView } from "./projects/documents.ts";
export type { OrderIntent, ProjectOrderView } from "./projects/orders.ts";
export { noteOrderIntent, ORDER_INTENT_GRACE_MS, ORDER_INTENTS_QUEUE } from "./projects/orders.ts";
export type { ProjectQuoteView } from "./projects/quotes.ts";
export type { TopUpSessionView } from "./projects/top-ups.ts";
export type { QuoteView } from "./quote-order.ts";
export type { LocalRateLimiter, RateDecision, RateLimit, RequestLimiter } from "./rate-limit.ts";
export { createLocalRateLimiter } from "./rate-limit.ts";
export type {
  ErrStatus,
  ReceiptArchive,
  ReceiptExportQuery,
  ReturnReceiptFields,
  ReturnReceipts,
} from "./receipts/index.ts";
export { updateRecord } from "./records.ts";
export type { PreparedTemplateSend, TemplatePage, Templates, TemplateView } from "./templates/index.ts";
export * from "./test-drafts/index.ts";
export type { UploadError, UploadRecord, UploadSlot } from "./uploads.ts";
export { UPLOAD_MESSAGES } from "./uploads.ts";
export type { OrderValidationView } from "./validate-order.ts";
export type {
  OrderStatusChange,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
  WebhookEventPage,
  WebhookEventView,
  WebhookOptions,
  WebhookRequest,
  WebhookSender,
  Webhooks,
} from "./webhooks/index.ts";
export { WEBHOOK_QUEUE } from "./webhooks/index.ts";
export type { KeyAction, KeyMode, Permission } from "./workspaces/api-keys.ts";
export { PERMISSIONS } from "./workspaces/api-keys.ts";
export type {
  CreditBalanceView,
  CreditLedgerEntryView,
  CreditLedgerPage,
  ModeCredits,
} from "./workspaces/credits.ts";
export { BILLING_RAILS } from "./workspaces/credits.ts";
export type { ApiKeyView, IssuedKey, Principal, WorkspaceView } from "./workspaces/workspaces.ts";

import { DRAFT_STATES, defaultCoreConfig } from "@mailpiece/core";
import { LetterQuoteBody, PostcardQuoteBody } from "@mailpiece/orders";
import { TemplateBody, TemplatePatchBody } from "@mailpiece/templates";
import { SERVICE_SIGNATURE_HEADER } from "@mailpiece/webhooks";
import type { TSchema } from "typebox";
import { MAX_JSON_BODY_BYTES } from "./body.ts";
import type { V1ErrorCode } from "./errors.ts";
import { RETRY_AFTER_CODES, STATUS_TABLE, WWW_AUTHENTICATE } from "./errors.ts";
import { MAX_CURSOR_LENGTH } from "./query.ts";
import type { V1Method } from "./route.ts";
import { LEDGER_PAGE } from "./routes/credits.ts";
import { DRAFTS_PAGE } from "./routes/drafts.ts";
import { RECEIPT_EXPORT_PAGE } from "./routes/return-receipts.ts";
import { TEMPLATE_PAGE } from "./routes/templates.ts";
import { EVENT_PAGE } from "./routes/webhooks.ts";
import { componentName, ref } from "./schemas/component.ts";
import { ERROR_SCHEMAS, errorBodyName } from "./schemas/error-bodies.ts";
import {
  Address,
  AutoRefillBody,
  CreateOrderBody,
  completeBody,
  type DocumentLimits,
  DraftBody,
  DraftPatchBody,
  HandwrittenBody,
  IDEMPOTENCY_KEY_PATTERN,
  Metadata,
  NoFieldsBody,
  RotateKeyBody,
  SetupSessionBody,
  TemplateSendBody,
  TopUpBody,
  uploadIntentBody,
  WebhookEndpointBody,
} from "./schemas/requests.ts";
import { RESPONSE_SCHEMAS } from "./schemas/responses.ts";

export interface V1OpenApiOptions {
  /** Absolute base URL of the deployment, e.g. https://projects.example.com */
  publicUrl: string;
  /** The deployment's document limits (the core's config); default the core's defaults. */
  limits?: Partial<DocumentLimits>;
}

type Json = Record<string, unknown>;

/** The name of the bearer key scheme in `components.securitySchemes`. */
export const V1_SECURITY_SCHEME = componentName("ApiKey");

/** The shared answers to requests no operation lists, under the names conformance checkers look up. */
export const FALLBACK_RESPONSES = ["NotFound", "MethodNotAllowed", "Options", "InvalidPath"] as const;

const PROJECTS = "Projects API";
const TAGS = {
  keys: `${PROJECTS}: keys`,
  credits: `${PROJECTS}: credits`,
  documents: `${PROJECTS}: documents`,
  orders: `${PROJECTS}: letters and postcards`,
  drafts: `${PROJECTS}: drafts and approvals`,
  webhooks: `${PROJECTS}: webhooks`,
  receipts: `${PROJECTS}: return receipts`,
  templates: `${PROJECTS}: templates`,
  handwritten: `${PROJECTS}: handwritten mail`,
  discovery: `${PROJECTS}: discovery`,
} as const;

/** What one operation says besides what every operation of its kind says. */
interface Operation {
  operationId: string;
  tag: keyof typeof TAGS;
  summary: string;
  description?: string;
  /** Takes no key: the URL carries its own authorization, or the resource is public. */
  public?: true;
  /** Query parameters. */
  query?: Json[];
  /** Takes the Idempotency-Key header (required). */
  idempotent?: true;
  requestBody?: Json;
  /** The answers that are not errors, by status. */
  answers: Record<string, Json>;
  /** The error codes this operation answers besides those every operation of its kind does. */
  errors: V1ErrorCode[];
  /** What a code means here, when the status table's sentence is not enough. */
  notes?: Partial<Record<V1ErrorCode, string>>;
}

/** Every operation with a key answers these. */
const KEYED: V1ErrorCode[] = [
  "unauthorized",
  "forbidden",
  "permission_denied",
  "rate_limited",
  "internal_error",
  "storage_unavailable",
];
/** A public operation answers these. */
const PUBLIC: V1ErrorCode[] = ["rate_limited", "internal_error", "storage_unavailable"];
/** An operation that reads a JSON body answers these. */
const BODY: V1ErrorCode[] = [
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
];
/** An operation on a path with a parameter answers these. */
const RESOURCE: V1ErrorCode[] = ["invalid_path", "not_found"];
/** An operation that sends mail (and spends credits) answers these. */
const SENDING: V1ErrorCode[] = [
  "approval_required",
  "idempotency_key_required",
  "idempotency_conflict",
  "insufficient_credits",
  "service_busy",
];

const PATH_PARAMETERS: Record<string, string> = {
  document_id: "The document's id (doc_...).",
  order_id: "The order's id.",
  draft_id: "The draft's id.",
  template_id: "The template's id (tmpl_...).",
  endpoint_id: "The webhook endpoint's id (we_...).",
  event_id: "The event's id (evt_...).",
};

const json = (schema: TSchema): Json => ({ "application/json": { schema } });
const pdf: Json = { "application/pdf": { schema: { type: "string", contentMediaType: "application/pdf" } } };

/** A JSON request body of the component `name`. */
const body = (name: string, description: string, required = true): Json => ({
  required,
  description: `${description} JSON, at most ${MAX_JSON_BODY_BYTES} bytes.`,
  content: json(ref(name)),
});

/** An answer with a JSON body of the component `name`. */
const answer = (name: string, description: string): Json => ({ description, content: json(ref(name)) });

/** The answers of a send: 201 the new order, 200 the same order again for a retry of its Idempotency-Key. */
const ORDER_ANSWERS = {
  "201": answer("Order", "The order, created: its price is reserved on the credits."),
  "200": answer(
    "Order",
    "A retry of an Idempotency-Key that made an order: the same order, idempotent_replay true; nothing new is reserved.",
  ),
};

const DRAFT_ANSWER = { "200": answer("Draft", "The draft.") };

const pageParameters = (bounds: { fallback: number; max: number }): Json[] => [
  {
    name: "limit",
    in: "query",
    required: false,
    description: `Page size, 1 to ${bounds.max}; default ${bounds.fallback}.`,
    schema: { type: "integer", minimum: 1, maximum: bounds.max, default: bounds.fallback },
  },
  {
    name: "cursor",
    in: "query",
    required: false,
    description: "The next_cursor of the previous page.",
    schema: { type: "string", maxLength: MAX_CURSOR_LENGTH },
  },
];

const stateParameter = (values: readonly string[]): Json => ({
  name: "state",
  in: "query",
  required: false,
  description: "Only the items in this state.",
  schema: { type: "string", enum: [...values] },
});

/** Every operation, by path under /api/v1 and method. */
function operations(): Record<string, Partial<Record<Lowercase<V1Method>, Operation>>> {
  const orderReads = (kind: "letter" | "postcard") => ({
    [`/${kind}s`]: {
      post: {
        operationId: `v1Create${kind === "letter" ? "Letter" : "Postcard"}`,
        tag: "orders",
        summary: `Create a ${kind} order from a quote`,
        description:
          "Once per Idempotency-Key: the same key and body answer the original order (200, idempotent_replay true); the key with another body is 409 idempotency_conflict.",
        idempotent: true,
        requestBody: body("CreateOrderBody", "The quote, the addresses and optional metadata."),
        answers: ORDER_ANSWERS,
        errors: [...BODY, ...SENDING],
        notes: {
          validation_failed: "a bad body, or a quote that is unknown, used, expired or of another kind",
        },
      },
    },
    [`/${kind}s/quotes`]: {
      post: {
        operationId: `v1Quote${kind === "letter" ? "Letter" : "Postcard"}`,
        tag: "orders",
        summary: `Quote a ${kind}`,
        description:
          "Prices a ready document with every option rule; an unavailable combination is 422 at its field, never a silent change. The price holds until expires_at. Quoting spends nothing.",
        requestBody: body(
          kind === "letter" ? "LetterQuoteBody" : "PostcardQuoteBody",
          `The document and the ${kind}'s options.`,
        ),
        answers: { "201": answer("Quote", "The quote.") },
        errors: [...BODY, "service_busy"],
      },
    },
    [`/${kind}s/{order_id}`]: {
      get: {
        operationId: `v1Get${kind === "letter" ? "Letter" : "Postcard"}`,
        tag: "orders",
        summary: `Read a ${kind}: status, timeline, tracking and webhook events`,
        answers: { "200": answer("Order", `The ${kind}.`) },
        errors: RESOURCE,
      },
    },
    [`/${kind}s/{order_id}/document.pdf`]: {
      get: {
        operationId: `v1Get${kind === "letter" ? "Letter" : "Postcard"}Document`,
        tag: "orders",
        summary: `The ${kind}'s PDF`,
        answers: { "200": { description: "The PDF as it prints.", content: pdf } },
        errors: RESOURCE,
      },
    },
  });

  const draftAction = (operationId: string, summary: string, description: string): Operation => ({
    operationId,
    tag: "drafts",
    summary,
    description,
    requestBody: body("NoFieldsBody", "No body, or an empty object.", false),
    answers: DRAFT_ANSWER,
    errors: [...RESOURCE, ...BODY, "state_conflict"],
  });

  return {
    "/api-keys": {
      get: {
        operationId: "v1ListApiKeys",
        tag: "keys",
        summary: "List the workspace's keys by prefix and status",
        answers: { "200": answer("ApiKeyList", "Every key of the workspace; never a key.") },
        errors: [],
      },
    },
    "/api-keys/rotate": {
      post: {
        operationId: "v1RotateApiKey",
        tag: "keys",
        summary: "Make a new key of a mode, shown once",
        description:
          "The mode's current keys keep working for the overlap, then stop. The new key has the calling key's permissions, or the narrower list asked for.",
        requestBody: body("RotateKeyBody", "The mode and, optionally, the permissions."),
        answers: { "201": answer("IssuedKey", "The new key, shown this once.") },
        errors: BODY,
        notes: {
          permission_denied: "the body asks for a permission the calling key lacks",
          forbidden: "a live key of a workspace not live-enabled",
        },
      },
    },
    "/credits/balance": {
      get: {
        operationId: "v1GetCreditBalance",
        tag: "credits",
        summary: "The key's mode's credits",
        answers: { "200": answer("CreditBalance", "The balance, with snapshots of both modes.") },
        errors: [],
      },
    },
    "/credits/ledger": {
      get: {
        operationId: "v1ListCreditLedger",
        tag: "credits",
        summary: "The mode's credit movements, oldest first",
        query: pageParameters(LEDGER_PAGE),
        answers: { "200": answer("CreditLedger", "A page of movements.") },
        errors: ["invalid_query"],
      },
    },
    "/credits/checkout-session": {
      post: {
        operationId: "v1CreateTopUp",
        tag: "credits",
        summary: "Open a hosted top-up of the key's mode's credits",
        requestBody: body("TopUpBody", "The amount."),
        answers: { "201": answer("TopUpSession", "The top-up; a person pays at url.") },
        errors: [...BODY, "approval_required", "payment_rail_unavailable"],
      },
    },
    "/credits/payment-methods": {
      get: {
        operationId: "v1ListPaymentMethods",
        tag: "credits",
        summary: "The mode's saved cards",
        answers: { "200": answer("PaymentMethodList", "The cards, newest first.") },
        errors: [],
      },
    },
    "/credits/payment-methods/setup-session": {
      post: {
        operationId: "v1CreateSetupSession",
        tag: "credits",
        summary: "Open a hosted page where a person saves a card",
        description: "A live setup live-enables the workspace once it completes.",
        requestBody: body("SetupSessionBody", "Optionally the mode; no body means the key's.", false),
        answers: { "201": answer("SetupSession", "The setup; a person saves a card at url.") },
        errors: [...BODY, "approval_required", "payment_rail_unavailable"],
      },
    },
    "/credits/auto-refill": {
      get: {
        operationId: "v1GetAutoRefill",
        tag: "credits",
        summary: "The mode's automatic refill",
        answers: { "200": answer("AutoRefill", "The refill policy.") },
        errors: [],
      },
      post: {
        operationId: "v1SetAutoRefill",
        tag: "credits",
        summary: "Set the automatic refill of a mode",
        description:
          "When the available credits fall below threshold_cents, the mode's default card is charged refill_amount_cents off-session, once per fall.",
        requestBody: body("AutoRefillBody", "The threshold and amount."),
        answers: { "200": answer("AutoRefill", "The refill policy.") },
        errors: [...BODY, "approval_required", "payment_method_required"],
        notes: {
          forbidden: "a test key setting live refills, or a live key of a workspace not live-enabled",
        },
      },
    },
    "/documents/upload-intent": {
      post: {
        operationId: "v1CreateUploadIntent",
        tag: "documents",
        summary: "Declare a PDF and get a temporary upload URL",
        requestBody: body("UploadIntentBody", "What will be uploaded."),
        answers: { "201": answer("UploadIntent", "Where to PUT the PDF, until when.") },
        errors: BODY,
      },
    },
    "/documents/{document_id}/upload": {
      put: {
        operationId: "v1UploadDocument",
        tag: "documents",
        summary: "Upload the declared PDF (the upload URL)",
        description:
          "No key: the upload URL's token authorizes it, once, before it expires. A wrong token is 404, and counts against the client's budget of refused requests.",
        public: true,
        query: [
          {
            name: "token",
            in: "query",
            required: true,
            description: "The secret of the upload URL.",
            schema: { type: "string" },
          },
        ],
        requestBody: {
          required: true,
          description:
            "The PDF: exactly the declared byte_size, with Content-Length and Content-Type application/pdf.",
          content: pdf,
        },
        answers: { "200": answer("Document", "The document, uploaded.") },
        errors: [...RESOURCE, "length_required", "payload_too_large", "validation_failed"],
        notes: {
          validation_failed:
            "at `body`: already uploaded, expired, another content type or size than declared, or not a PDF",
        },
      },
    },
    "/documents/{document_id}/complete": {
      post: {
        operationId: "v1CompleteDocument",
        tag: "documents",
        summary: "Mark an uploaded PDF complete: its preflight",
        requestBody: body("CompleteDocumentBody", "The PDF's page count."),
        answers: { "200": answer("Document", "The document, ready: it can back any number of quotes.") },
        errors: [...RESOURCE, ...BODY, "service_busy"],
      },
    },
    "/documents/{document_id}": {
      get: {
        operationId: "v1GetDocument",
        tag: "documents",
        summary: "Read a document",
        answers: { "200": answer("Document", "The document.") },
        errors: RESOURCE,
      },
    },
    ...orderReads("letter"),
    ...orderReads("postcard"),
    "/letters/{order_id}/return-receipt.pdf": {
      get: {
        operationId: "v1GetReturnReceipt",
        tag: "receipts",
        summary: "A letter's stored electronic return receipt",
        answers: { "200": { description: "The signed receipt.", content: pdf } },
        errors: RESOURCE,
        notes: { not_found: "no such letter, or its receipt is not stored (yet, or any more)" },
      },
    },
    "/return-receipts/export.zip": {
      get: {
        operationId: "v1ExportReturnReceipts",
        tag: "receipts",
        summary: "Export stored receipts as a zip archive",
        description:
          "Up to `limit` receipts signed from `from` (inclusive) to `to` (exclusive), oldest first: each PDF as receipts/<order id>.pdf and a manifest.csv.",
        query: [
          ...pageParameters(RECEIPT_EXPORT_PAGE),
          ...(["from", "to"] as const).map((name) => ({
            name,
            in: "query",
            required: false,
            description: `Signing time ${name === "from" ? "from (inclusive)" : "to (exclusive)"}: a date or an RFC 3339 date-time.`,
            schema: { type: "string" },
          })),
        ],
        answers: {
          "200": {
            description: "The archive, streamed.",
            headers: {
              "X-Receipt-Count": {
                description: "How many receipts the archive holds.",
                required: true,
                schema: { type: "string", pattern: "^[0-9]+$" },
              },
              "X-Next-Cursor": {
                description: "The cursor of the next archive, when more may follow.",
                required: false,
                schema: { type: "string" },
              },
            },
            content: {
              "application/zip": { schema: { type: "string", contentMediaType: "application/zip" } },
            },
          },
        },
        errors: ["invalid_query"],
      },
    },
    "/drafts": {
      get: {
        operationId: "v1ListDrafts",
        tag: "drafts",
        summary: "The key's mode's drafts, oldest first",
        query: [stateParameter(DRAFT_STATES), ...pageParameters(DRAFTS_PAGE)],
        answers: { "200": answer("DraftList", "A page of drafts.") },
        errors: ["invalid_query"],
      },
      post: {
        operationId: "v1CreateDraft",
        tag: "drafts",
        summary: "Save mail as a draft, spending nothing",
        requestBody: body("DraftBody", "The type and the body of that type's send."),
        answers: { "201": answer("Draft", "The draft at revision 1.") },
        errors: BODY,
      },
    },
    "/drafts/{draft_id}": {
      get: {
        operationId: "v1GetDraft",
        tag: "drafts",
        summary: "Read a draft with its revisions",
        query: [
          {
            name: "revision",
            in: "query",
            required: false,
            description: "Show this revision in full instead of the current one.",
            schema: { type: "integer", minimum: 1 },
          },
        ],
        answers: DRAFT_ANSWER,
        errors: [...RESOURCE, "invalid_query"],
      },
      patch: {
        operationId: "v1EditDraft",
        tag: "drafts",
        summary: "Save the next revision",
        description: "The new revision is immutable like every revision, and clears any approval.",
        requestBody: body("DraftPatchBody", "The fields to change."),
        answers: DRAFT_ANSWER,
        errors: [...RESOURCE, ...BODY, "state_conflict"],
      },
    },
    "/drafts/{draft_id}/request-approval": {
      post: draftAction(
        "v1RequestDraftApproval",
        "Ask a person to approve the current revision",
        "A person decides in the operator's dashboard; approval neither charges nor sends.",
      ),
    },
    "/drafts/{draft_id}/withdraw": {
      post: draftAction("v1WithdrawDraft", "Withdraw an approval request", "Back to state draft."),
    },
    "/drafts/{draft_id}/discard": {
      post: draftAction("v1DiscardDraft", "Discard a draft", "Any unsent state to discarded, for good."),
    },
    "/drafts/{draft_id}/refresh": {
      post: draftAction(
        "v1RefreshDraft",
        "Quote the draft again",
        "A new revision with a new quote of the same options; its approval carries over only at the same price.",
      ),
    },
    "/drafts/{draft_id}/release": {
      post: {
        operationId: "v1ReleaseDraft",
        tag: "drafts",
        summary: "Send the current revision, once",
        description:
          "201 the order the first time, then 200 with idempotent_replay true on every retry. A live key without mailings.submit_without_approval releases approved drafts only.",
        requestBody: body("NoFieldsBody", "No body, or an empty object.", false),
        answers: ORDER_ANSWERS,
        errors: [
          ...RESOURCE,
          ...BODY,
          "state_conflict",
          "approval_required",
          "insufficient_credits",
          "service_busy",
        ],
        notes: { validation_failed: "the revision cannot be sent now (an expired quote): refresh the draft" },
      },
    },
    "/approvals": {
      get: {
        operationId: "v1ListApprovals",
        tag: "drafts",
        summary: "Expense-only summaries of the drafts with an approval request",
        query: [stateParameter(["pending", "approved", "rejected"]), ...pageParameters(DRAFTS_PAGE)],
        answers: { "200": answer("ApprovalList", "A page of approvals.") },
        errors: ["invalid_query"],
      },
    },
    "/approvals/{draft_id}": {
      get: {
        operationId: "v1GetApproval",
        tag: "drafts",
        summary: "One draft's approval summary",
        answers: { "200": answer("Approval", "The summary; state none when no approval applies.") },
        errors: RESOURCE,
      },
    },
    "/webhook-endpoints": {
      get: {
        operationId: "v1ListWebhookEndpoints",
        tag: "webhooks",
        summary: "The workspace's webhook endpoints",
        answers: { "200": answer("WebhookEndpointList", "The endpoints; never a secret.") },
        errors: [],
      },
      post: {
        operationId: "v1CreateWebhookEndpoint",
        tag: "webhooks",
        summary: "Register an HTTPS endpoint",
        requestBody: body("WebhookEndpointBody", "The receiver URL."),
        answers: {
          "201": answer("WebhookEndpointWithSecret", "The endpoint and its signing secret, shown once."),
        },
        errors: [...BODY, "approval_required", "state_conflict"],
        notes: { state_conflict: "the workspace has as many enabled endpoints as it may" },
      },
    },
    "/webhook-endpoints/{endpoint_id}": {
      delete: {
        operationId: "v1DisableWebhookEndpoint",
        tag: "webhooks",
        summary: "Disable an endpoint",
        answers: { "200": answer("WebhookEndpoint", "The endpoint, disabled.") },
        errors: [...RESOURCE, "approval_required"],
      },
    },
    "/webhook-endpoints/{endpoint_id}/rotate-secret": {
      post: {
        operationId: "v1RotateWebhookSecret",
        tag: "webhooks",
        summary: "A new signing secret, shown once",
        description: "The old secret signs too for the overlap.",
        answers: { "200": answer("WebhookEndpointWithSecret", "The endpoint and its new secret.") },
        errors: [...RESOURCE, "approval_required", "state_conflict"],
      },
    },
    "/webhook-events": {
      get: {
        operationId: "v1ListWebhookEvents",
        tag: "webhooks",
        summary: "The key's mode's events, newest first, with their deliveries",
        query: pageParameters(EVENT_PAGE),
        answers: { "200": answer("WebhookEventList", "A page of events.") },
        errors: ["invalid_query"],
      },
    },
    "/webhook-events/{event_id}/replay": {
      post: {
        operationId: "v1ReplayWebhookEvent",
        tag: "webhooks",
        summary: "Deliver an event once more to each enabled endpoint",
        answers: { "202": answer("WebhookEvent", "The event, its replay queued; same event id.") },
        errors: [...RESOURCE, "approval_required", "state_conflict"],
      },
    },
    "/templates": {
      get: {
        operationId: "v1ListTemplates",
        tag: "templates",
        summary: "The key's mode's templates",
        query: pageParameters(TEMPLATE_PAGE),
        answers: { "200": answer("TemplateList", "A page of templates.") },
        errors: ["invalid_query"],
      },
      post: {
        operationId: "v1CreateTemplate",
        tag: "templates",
        summary: "Create a template (its version 1)",
        requestBody: body("TemplateBody", "The template."),
        answers: { "201": answer("Template", "The template.") },
        errors: BODY,
      },
    },
    "/templates/{template_id}": {
      get: {
        operationId: "v1GetTemplate",
        tag: "templates",
        summary: "Read a template",
        answers: { "200": answer("Template", "The template at its current version.") },
        errors: RESOURCE,
      },
      patch: {
        operationId: "v1UpdateTemplate",
        tag: "templates",
        summary: "Update a template: its next immutable version",
        requestBody: body("TemplatePatchBody", "The fields to change."),
        answers: { "200": answer("Template", "The template at its new version.") },
        errors: [...RESOURCE, ...BODY, "state_conflict"],
        notes: { state_conflict: "the template is archived, or has as many versions as one keeps" },
      },
      delete: {
        operationId: "v1ArchiveTemplate",
        tag: "templates",
        summary: "Archive a template",
        answers: { "200": answer("Template", "The template, archived: readable, never sent or updated.") },
        errors: RESOURCE,
      },
    },
    "/templates/{template_id}/send": {
      post: {
        operationId: "v1SendTemplate",
        tag: "templates",
        summary: "Send one letter from a template",
        idempotent: true,
        requestBody: body("TemplateSendBody", "The variables, the addresses and the letter's options."),
        answers: ORDER_ANSWERS,
        errors: [...RESOURCE, ...BODY, ...SENDING, "state_conflict"],
        notes: { state_conflict: "the template is archived" },
      },
    },
    "/templates/{template_id}/drafts": {
      post: {
        operationId: "v1DraftTemplate",
        tag: "templates",
        summary: "Save a template send as a draft, spending nothing",
        requestBody: body("TemplateSendBody", "The body of a send."),
        answers: { "201": answer("Draft", "The draft at revision 1.") },
        errors: [...RESOURCE, ...BODY],
      },
    },
    "/handwritten": {
      post: {
        operationId: "v1SendHandwritten",
        tag: "handwritten",
        summary: "Send a handwritten card",
        idempotent: true,
        requestBody: body("HandwrittenBody", "The message, the style and the addresses."),
        answers: ORDER_ANSWERS,
        errors: [...BODY, ...SENDING],
        notes: {
          validation_failed: "a bad body; message_too_long_for_card when the message does not fit the page",
        },
      },
    },
    "/handwritten/drafts": {
      post: {
        operationId: "v1DraftHandwritten",
        tag: "handwritten",
        summary: "Save a handwritten card as a draft, spending nothing",
        requestBody: body("HandwrittenBody", "The body of a send."),
        answers: { "201": answer("Draft", "The draft at revision 1.") },
        errors: BODY,
      },
    },
    "/handwritten/{order_id}": {
      get: {
        operationId: "v1GetHandwritten",
        tag: "handwritten",
        summary: "Read a handwritten piece (no carrier tracking)",
        answers: { "200": answer("Order", "The handwritten piece.") },
        errors: RESOURCE,
      },
    },
    "/handwritten/{order_id}/document.pdf": {
      get: {
        operationId: "v1GetHandwrittenDocument",
        tag: "handwritten",
        summary: "The handwritten piece's proof",
        answers: { "200": { description: "The proof PDF.", content: pdf } },
        errors: RESOURCE,
      },
    },
    "/openapi.json": {
      get: {
        operationId: "v1GetOpenApi",
        tag: "discovery",
        summary: "This description",
        public: true,
        answers: { "200": { description: "OpenAPI 3.1.0 document.", content: json(ref("OpenApiDocument")) } },
        errors: [],
      },
    },
  };
}

/** The error answers of `codes`, grouped by status: each body is the status's error body. */
function errorAnswers(codes: readonly V1ErrorCode[], notes: Operation["notes"] = {}): Record<string, Json> {
  const byStatus = new Map<number, V1ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = STATUS_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const answers: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Json = {};
    if (status === 401) {
      headers["WWW-Authenticate"] = {
        description: `Always ${WWW_AUTHENTICATE}.`,
        required: true,
        schema: { type: "string" },
      };
    }
    if (list.some((code) => RETRY_AFTER_CODES.includes(code))) {
      headers["Retry-After"] = {
        description: "Whole seconds to wait before trying again.",
        required: list.every((code) => RETRY_AFTER_CODES.includes(code)),
        schema: { type: "string", pattern: "^[0-9]+$" },
      };
    }
    answers[String(status)] = {
      description: list.map((code) => `${code}: ${notes[code] ?? STATUS_TABLE[code].means}.`).join(" "),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: json(ref(errorBodyName(status))),
    };
  }
  return answers;
}

/** `/letters/{order_id}` -> ["order_id"]. */
const parametersOf = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

function operationObject(path: string, operation: Operation): Json {
  const parameters: Json[] = [
    ...parametersOf(path).map((name) => ({
      name,
      in: "path",
      required: true,
      description: PATH_PARAMETERS[name] ?? name,
      schema: { type: "string", minLength: 1 },
    })),
    ...(operation.query ?? []),
    ...(operation.idempotent
      ? [
          {
            name: "Idempotency-Key",
            in: "header",
            required: true,
            description:
              "One logical send: the same key and body answer the original order. 1 to 255 printable characters, a UUID for example.",
            schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN },
          },
        ]
      : []),
  ];
  const codes = [...(operation.public ? PUBLIC : KEYED), ...operation.errors];
  return {
    operationId: operation.operationId,
    tags: [TAGS[operation.tag]],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    security: operation.public ? [] : [{ [V1_SECURITY_SCHEME]: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
    responses: { ...operation.answers, ...errorAnswers(codes, operation.notes) },
  };
}

/** The (method, path) of every operation the description lists, paths as the description writes them. */
export function describedRoutes(document: Json): { method: string; path: string }[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.keys(item).map((method) => ({ method: method.toUpperCase(), path })),
  );
}

/** The component schemas of the description, by their names without the prefix. */
function componentSchemas(limits: DocumentLimits): Record<string, TSchema> {
  return {
    ...ERROR_SCHEMAS,
    Address,
    Metadata,
    LetterQuoteBody,
    PostcardQuoteBody,
    CreateOrderBody,
    TemplateBody,
    TemplatePatchBody,
    TemplateSendBody,
    HandwrittenBody,
    DraftBody,
    DraftPatchBody,
    NoFieldsBody,
    UploadIntentBody: uploadIntentBody(limits),
    CompleteDocumentBody: completeBody(limits),
    TopUpBody,
    SetupSessionBody,
    AutoRefillBody,
    WebhookEndpointBody,
    RotateKeyBody,
    ...RESPONSE_SCHEMAS,
  };
}

/**
 * The OpenAPI 3.1.0 description of the Projects API at /api/v1: every route createV1App registers (the test holds
 * the two to the same set), the bearer key scheme, the Idempotency-Key header of the sends, the request bodies
 * from the schemas the engines validate with (or, where the core checks a body with its own rules, a schema of those
 * rules), the response objects, and every status each operation answers. Components are named V1..., so that the
 * description can be merged into the deployment's (see mergeV1OpenApi). Plain JSON.
 */
export function v1OpenApi(options: V1OpenApiOptions): Json {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const defaults = defaultCoreConfig();
  const limits: DocumentLimits = {
    maxPdfBytes: options.limits?.maxPdfBytes ?? defaults.maxPdfBytes,
    maxPdfPages: options.limits?.maxPdfPages ?? defaults.maxPdfPages,
  };
  const paths: Record<string, Json> = {};
  for (const [path, methods] of Object.entries(operations())) {
    paths[`/api/v1${path}`] = Object.fromEntries(
      Object.entries(methods).map(([method, operation]) => [method, operationObject(path, operation)]),
    );
  }
  const errorContent = (status: number) => json(ref(errorBodyName(status)));
  const allow = { description: "The methods the path answers.", required: true, schema: { type: "string" } };
  const document = {
    openapi: "3.1.0",
    info: {
      title: "Mailpiece Projects API",
      version: "1.0.0",
      summary:
        "Print, envelope and post physical mail from a workspace: bearer keys, prepaid credits, signed webhooks.",
      description: [
        "Flow: create an upload intent, PUT the PDF to its upload_url, complete the document, quote it, create the order with an Idempotency-Key, then read the order or receive signed webhooks.",
        "Every call carries `Authorization: Bearer <key>`: test keys start svc_test_ and run everything against simulated fulfilment at no cost; live keys start svc_live_ and spend prepaid credits. A missing or bad key is 401 with WWW-Authenticate; a key without the permission is 403.",
        "Limits: 120 requests per 60 seconds per key (429 with Retry-After and retry_after_seconds); JSON bodies of at most 1 MiB.",
        "Errors: `{error, message, issues?}`; `error` is a stable snake_case code with one status, and `issues` names each problem's field by its dotted path with a code.",
        "Besides the operations listed: a path under /api/v1 that is not listed answers components.responses.NotFound; another method on a listed path components.responses.MethodNotAllowed; OPTIONS on a listed path components.responses.Options; a path with a malformed percent-encoding components.responses.InvalidPath.",
      ].join("\n\n"),
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: publicUrl }],
    tags: Object.values(TAGS).map((name) => ({ name })),
    paths,
    webhooks: {
      [componentName("OrderStatusEvent")]: {
        post: {
          operationId: "v1OrderStatusEvent",
          tags: [TAGS.webhooks],
          summary: "An order's status changed (sent to each enabled endpoint)",
          description:
            "Sent for accepted, in_transit, delivered, returned, failed and canceled (handwritten mail is never returned), to one endpoint for both modes. Failures are retried up to six times (about 1 min, 5 min, 30 min, 2 h, 12 h, 24 h); any event can be replayed.",
          parameters: [
            {
              name: SERVICE_SIGNATURE_HEADER,
              in: "header",
              required: true,
              description:
                "t=<unix seconds>,v1=<hex HMAC-SHA256>; one v1 per signing secret during a rotation.",
              schema: { type: "string" },
            },
          ],
          requestBody: { required: true, content: json(ref("WebhookDeliveryBody")) },
          responses: { "2XX": { description: "Received. Answer quickly; anything else is retried." } },
        },
      },
    },
    components: {
      schemas: Object.fromEntries(
        Object.entries(componentSchemas(limits)).map(([name, schema]) => [componentName(name), schema]),
      ),
      responses: {
        NotFound: { description: "A path not listed (not_found).", content: errorContent(404) },
        MethodNotAllowed: {
          description:
            "Another method on a listed path (method_not_allowed); Allow lists the methods it answers.",
          headers: { Allow: allow },
          content: errorContent(405),
        },
        Options: {
          description: "OPTIONS on a listed path: no body; Allow lists its methods.",
          headers: { Allow: allow },
        },
        InvalidPath: {
          description: "A malformed percent-encoding in the path (invalid_path).",
          content: errorContent(400),
        },
      },
      securitySchemes: {
        [V1_SECURITY_SCHEME]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "svc_test_... or svc_live_...",
          description: "A workspace API key: svc_test_ for test mode, svc_live_ for live mode.",
        },
      },
    },
  };
  // TypeBox keeps its own markers out of JSON: the round trip leaves plain JSON Schema.
  return JSON.parse(JSON.stringify(document)) as Json;
}

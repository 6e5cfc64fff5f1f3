import { BILLING_RAILS, DRAFT_STATES, DRAFT_TYPE_NAMES, PERMISSIONS } from "@mailpiece/core";
import { ORDER_STATUSES, TRANSITION_SOURCES } from "@mailpiece/lifecycle";
import {
  ERR_DELIVERIES,
  LETTER_FORMATS,
  PROJECTS_MAIL_CLASSES,
  RETURN_RECEIPT_FORMATS,
} from "@mailpiece/orders";
import { TemplateVariableSchema } from "@mailpiece/templates";
import { EVENT_STATUSES, EVENT_TYPES, SERVICE_SIGNATURE_HEADER } from "@mailpiece/webhooks";
import type { TSchema } from "typebox";
import Type from "typebox";
import { CLOSED, enumOf, orNull, ref } from "./component.ts";

/**
 * The objects the Projects API answers with (spec 3), as the core's views make them. Every object is closed
 * (additionalProperties false): the tests check real answers against these schemas, so a field the core adds is a
 * field this description must add.
 */

const DateTime = (description?: string) =>
  Type.String({ format: "date-time", ...(description === undefined ? {} : { description }) });
const Cents = (description: string) => Type.Integer({ description: `${description} Integer cents.` });
const Usd = Type.Literal("usd");
const Mode = enumOf(["test", "live"]);
const PostcardSize = orNull(enumOf(["4x6", "6x9", "11x6"]));
const MailpieceType = enumOf(["letter", "postcard", "handwritten"]);

/** A closed object with these fields. */
const object = (properties: Record<string, TSchema>, description: string) =>
  Type.Object(properties, { ...CLOSED, description });

/** A page of a listing: oldest first unless said otherwise, with the cursor of the next page. */
const page = (item: string, description: string) =>
  object(
    {
      object: Type.Literal("list"),
      data: Type.Array(ref(item)),
      has_more: Type.Boolean(),
      next_cursor: orNull(Type.String({ description: "The `cursor` of the next page; null on the last." })),
    },
    description,
  );

/** A listing of everything at once: `{object: "list", data}`. */
const list = (item: string, description: string) =>
  object({ object: Type.Literal("list"), data: Type.Array(ref(item)) }, description);

const PersonMessage = orNull(
  object(
    { code: Type.String(), content: Type.String() },
    "Why the last attempt was refused, for people; null when nothing was refused.",
  ),
);

export const TimelineEvent = object(
  {
    id: Type.String(),
    event_type: Type.String({ description: "order.<status_after>, e.g. order.submitted." }),
    status_before: orNull(enumOf(ORDER_STATUSES)),
    status_after: enumOf(ORDER_STATUSES),
    source: enumOf(TRANSITION_SOURCES),
    created_at: DateTime(),
  },
  "One status change of an order.",
);

const WebhookAttempt = object(
  {
    at: DateTime(),
    http_status: orNull(Type.Integer({ description: "What the receiver answered; null when nothing came." })),
    error: orNull(Type.String({ description: "Why no status came (timeout, connection_failed...)." })),
    duration_ms: Type.Integer({ minimum: 0 }),
    next_attempt_at: orNull(DateTime()),
  },
  "One attempt to deliver an event.",
);

const WebhookDelivery = object(
  {
    id: Type.String(),
    endpoint_id: Type.String(),
    kind: enumOf(["initial", "replay"]),
    status: enumOf(["pending", "delivered", "failed", "canceled"]),
    next_attempt_at: orNull(DateTime()),
    attempts: Type.Array(WebhookAttempt),
  },
  "The delivery of an event to one endpoint: the first, or a replay.",
);

export const WebhookEvent = object(
  {
    object: Type.Literal("webhook_event"),
    id: Type.String({ description: "evt_...; the same on every attempt and replay." }),
    type: enumOf(EVENT_TYPES, "service.{letter|postcard|handwritten}.{status}."),
    mode: Mode,
    order_id: Type.String(),
    created_at: DateTime(),
    deliveries: Type.Array(WebhookDelivery),
  },
  "An order's status change as an event, with its deliveries.",
);

export const Order = object(
  {
    id: Type.String(),
    object: MailpieceType,
    mailpiece_type: MailpieceType,
    postcard_size: PostcardSize,
    status: enumOf(
      ORDER_STATUSES,
      "submission_pending is a safety marker: never retried blindly, reconciled before anything is mailed.",
    ),
    mode: Mode,
    price_cents: Cents(
      "The quoted price, reserved at creation and captured when fulfilment accepts the piece.",
    ),
    currency: Usd,
    funds_status: enumOf(["reserved", "captured", "released"]),
    billing_rail: enumOf(Object.values(BILLING_RAILS)),
    quote_id: orNull(Type.String({ description: "Null for template and handwritten sends." })),
    document_id: orNull(Type.String({ description: "Null for template and handwritten sends." })),
    template_id: orNull(Type.String()),
    template_version: orNull(Type.Integer({ minimum: 1 })),
    page_count: Type.Integer({ minimum: 1 }),
    tracking_number: orNull(Type.String({ description: "Always null for handwritten pieces." })),
    tracking_url: orNull(Type.String()),
    tracking_status: orNull(Type.String()),
    return_receipt_format: enumOf(RETURN_RECEIPT_FORMATS),
    restricted_delivery: Type.Boolean(),
    err_delivery: enumOf(ERR_DELIVERIES),
    err_email: orNull(Type.String()),
    err_status: enumOf(["manual", "pending", "sent", "failed", "expired"]),
    err_delivered_at: orNull(DateTime()),
    err_retention_until: orNull(DateTime("Three years after delivery by default.")),
    return_receipt_available: Type.Boolean(),
    return_receipt_url: orNull(
      Type.String({ description: "Relative, authenticated URL of the receipt PDF." }),
    ),
    metadata: Type.Object({}, { additionalProperties: Type.String() }),
    timeline: Type.Array(ref("TimelineEvent")),
    webhook_events: Type.Array(ref("WebhookEvent")),
    created_at: DateTime(),
    updated_at: DateTime(),
    idempotent_replay: Type.Boolean({
      description: "True when this answers a retry of an Idempotency-Key that made the order before.",
    }),
  },
  "A letter, postcard or handwritten piece of the Projects API.",
);

export const Quote = object(
  {
    object: Type.Literal("quote"),
    quote_id: Type.String(),
    mailpiece_type: enumOf(["letter", "postcard"]),
    postcard_size: PostcardSize,
    document_id: Type.String(),
    page_count: Type.Integer({ minimum: 1 }),
    price_cents: Cents("The final price."),
    currency: Usd,
    pricing_version: Type.String(),
    line_items: Type.Array(
      object(
        { code: Type.String(), description: Type.String(), amount_cents: Type.Integer() },
        "One part of the price.",
      ),
    ),
    mail_class: enumOf(PROJECTS_MAIL_CLASSES),
    color: Type.Boolean(),
    double_sided: Type.Boolean(),
    certified: Type.Boolean(),
    certified_return_receipt: Type.Boolean(),
    return_receipt_format: enumOf(RETURN_RECEIPT_FORMATS),
    restricted_delivery: Type.Boolean(),
    err_delivery: enumOf(ERR_DELIVERIES),
    err_email: orNull(Type.String()),
    signature_required: Type.Boolean(),
    standalone_address_page: Type.Boolean(),
    destination_country_code: Type.String(),
    origin_country_code: Type.String(),
    expires_at: DateTime("The quote cannot be used after this."),
  },
  "A price for a letter or postcard of a ready document, with every option resolved.",
);

export const Document = object(
  {
    object: Type.Literal("document"),
    id: Type.String(),
    status: enumOf(["awaiting_upload", "uploaded", "ready"]),
    content_type: Type.Literal("application/pdf"),
    byte_size: Type.Integer({ minimum: 1 }),
    page_count: orNull(Type.Integer({ minimum: 1 })),
    sha256: orNull(Type.String({ pattern: "^[0-9a-f]{64}$" })),
    created_at: DateTime(),
    expires_at: orNull(DateTime("When the upload URL expires; null once uploaded.")),
  },
  "An uploaded PDF: ready documents back any number of quotes.",
);

export const UploadIntent = object(
  {
    document_id: Type.String(),
    upload_url: Type.String({ format: "uri", description: "Temporary: PUT the PDF here, without a key." }),
    upload_method: Type.Literal("PUT"),
    expires_at: DateTime(),
    required_headers: object(
      { "content-type": Type.Literal("application/pdf"), "content-length": Type.String() },
      "The headers the PUT must carry.",
    ),
  },
  "Where and how to upload the declared PDF.",
);

const DraftType = enumOf(DRAFT_TYPE_NAMES);
const RevisionReason = enumOf(["created", "edited", "refreshed"]);

const RevisionSummary = {
  revision: Type.Integer({ minimum: 1 }),
  reason: RevisionReason,
  price_cents: Cents("The revision's price."),
  currency: Usd,
  quote_id: orNull(Type.String()),
  created_at: DateTime(),
};

export const DraftRevision = object(
  {
    ...RevisionSummary,
    body: Type.Object(
      { type: DraftType },
      { description: "The send body of this revision with its type: what a release sends." },
    ),
    quote_expires_at: orNull(DateTime()),
  },
  "One immutable revision of a draft.",
);

export const Draft = object(
  {
    object: Type.Literal("draft"),
    id: Type.String(),
    type: DraftType,
    mode: Mode,
    state: enumOf(DRAFT_STATES),
    current_revision: Type.Integer({ minimum: 1 }),
    revision: ref("DraftRevision"),
    revisions: Type.Array(object(RevisionSummary, "A revision's summary.")),
    approval: orNull(
      object(
        {
          revision: Type.Integer({ minimum: 1 }),
          state: enumOf(["pending", "approved", "rejected"]),
          requested_at: DateTime(),
          decided_at: orNull(DateTime()),
          note: orNull(Type.String()),
        },
        "The approval of the current revision.",
      ),
    ),
    order_id: orNull(Type.String()),
    released_revision: orNull(Type.Integer({ minimum: 1 })),
    released_at: orNull(DateTime()),
    discarded_at: orNull(DateTime()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  "Mail saved without spending: revised, approved by a person and released once.",
);

export const Approval = object(
  {
    object: Type.Literal("approval"),
    draft_id: Type.String(),
    type: DraftType,
    mode: Mode,
    revision: Type.Integer({ minimum: 1 }),
    price_cents: Cents("The draft's current price."),
    currency: Usd,
    state: enumOf(["none", "pending", "approved", "rejected"]),
    requested_at: orNull(DateTime()),
    decided_at: orNull(DateTime()),
  },
  "An expense-only summary of a draft's approval: never documents, addresses, metadata or tracking.",
);

export const Template = object(
  {
    object: Type.Literal("template"),
    id: Type.String(),
    name: Type.String(),
    body: Type.String(),
    format: enumOf(LETTER_FORMATS),
    variables: Type.Array(TemplateVariableSchema),
    version: Type.Integer({ minimum: 1 }),
    versions: Type.Array(
      object({ version: Type.Integer({ minimum: 1 }), created_at: DateTime() }, "A version."),
    ),
    status: enumOf(["active", "archived"]),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  "A letter template at its current version; an archived one is readable but never sent or updated.",
);

const ENDPOINT_FIELDS = {
  object: Type.Literal("webhook_endpoint"),
  id: Type.String(),
  url: Type.String({ format: "uri" }),
  status: enumOf(["enabled", "disabled"]),
  ed25519: Type.Boolean(),
  public_key: orNull(Type.String({ description: "The whpk_ key that checks v1a signatures." })),
  created_at: DateTime(),
  disabled_at: orNull(DateTime()),
};

export const WebhookEndpoint = object(ENDPOINT_FIELDS, "A receiver of events; never shows its secret.");

export const WebhookEndpointWithSecret = object(
  {
    ...ENDPOINT_FIELDS,
    signing_secret: Type.String({
      pattern: "^whsec_",
      description:
        "The HMAC secret, shown this once; after a rotation the old one signs too for the overlap.",
    }),
  },
  "An endpoint just created or rotated, with its signing secret.",
);

const ModeCreditFields = {
  billing_rail: enumOf(Object.values(BILLING_RAILS)),
  available_cents: Cents("What can be spent."),
  reserved_cents: Cents("Held for orders not yet accepted."),
  status: enumOf(["active", "setup_required"]),
};

const AutoRefillFields = {
  object: Type.Literal("auto_refill"),
  mode: Mode,
  enabled: Type.Boolean(),
  threshold_cents: orNull(Type.Integer()),
  refill_amount_cents: orNull(Type.Integer()),
  currency: Usd,
  status: enumOf(["not_configured", "disabled", "active", "refilling", "payment_failed"]),
  payment_method_id: orNull(Type.String()),
  last_refill: orNull(
    object(
      { amount_cents: Type.Integer(), reference: Type.String(), created_at: DateTime() },
      "The last refill.",
    ),
  ),
  last_error: orNull(
    object(
      { code: Type.String(), message: Type.String(), created_at: DateTime() },
      "Why the last refill was refused.",
    ),
  ),
};

export const AutoRefill = object(AutoRefillFields, "The automatic refill of a mode's credits.");

export const CreditBalance = object(
  {
    object: Type.Literal("credit_balance"),
    mode: Mode,
    currency: Usd,
    ...ModeCreditFields,
    test: object(ModeCreditFields, "The test mode's credits."),
    live: object(ModeCreditFields, "The live mode's credits."),
    auto_refill: Type.Array(ref("AutoRefill"), {
      description: "The refill policies of the modes that have one.",
    }),
  },
  "The key's mode's credits, with snapshots of both modes.",
);

export const CreditLedgerEntry = object(
  {
    object: Type.Literal("credit_ledger_entry"),
    id: Type.String(),
    mode: Mode,
    type: enumOf(["top_up", "reservation", "capture", "release"]),
    amount_cents: Type.Integer(),
    available_delta_cents: Type.Integer(),
    reserved_delta_cents: Type.Integer(),
    reference: orNull(Type.String()),
    reservation_id: orNull(Type.String()),
    created_at: DateTime(),
  },
  "One movement of credits.",
);

export const PaymentMethod = object(
  {
    object: Type.Literal("payment_method"),
    id: Type.String(),
    mode: Mode,
    type: Type.Literal("card"),
    brand: orNull(Type.String()),
    last4: orNull(Type.String()),
    exp_month: orNull(Type.Integer()),
    exp_year: orNull(Type.Integer()),
    default: Type.Boolean({ description: "The card refills charge: the newest saved." }),
    created_at: DateTime(),
  },
  "A saved card.",
);

export const TopUpSession = object(
  {
    object: Type.Literal("credit_checkout_session"),
    id: Type.String(),
    mode: Mode,
    amount_cents: Type.Integer(),
    currency: Usd,
    status: enumOf(["open", "complete_in_progress", "completed", "expired", "canceled"]),
    url: Type.String({ format: "uri", description: "The hosted page where a person pays." }),
    simulated: Type.Boolean({ description: "True when no money moves." }),
    message: PersonMessage,
    created_at: DateTime(),
    expires_at: DateTime(),
  },
  "A hosted top-up of credits.",
);

export const SetupSession = object(
  {
    object: Type.Literal("payment_method_setup_session"),
    id: Type.String(),
    mode: Mode,
    status: enumOf(["open", "complete_in_progress", "completed", "expired"]),
    url: Type.String({ format: "uri", description: "The hosted page where a person saves a card." }),
    simulated: Type.Boolean(),
    enables_live: Type.Boolean(),
    payment_method: orNull(ref("PaymentMethod")),
    live_api_key_prefix: orNull(Type.String()),
    message: PersonMessage,
    created_at: DateTime(),
    expires_at: DateTime(),
  },
  "A hosted page where a person saves a card.",
);

const Permissions = Type.Array(enumOf(PERMISSIONS));

export const ApiKey = object(
  {
    id: Type.String(),
    mode: Mode,
    api_key_prefix: Type.String(),
    status: enumOf(["active", "expiring", "expired", "disabled"]),
    permissions: Permissions,
    created_at: DateTime(),
    expires_at: orNull(DateTime()),
  },
  "A key of the workspace by its prefix; never the key.",
);

export const IssuedKey = object(
  {
    mode: Mode,
    api_key: Type.String({ pattern: "^svc_(test|live)_", description: "The new key, shown this once." }),
    api_key_prefix: Type.String(),
    permissions: Permissions,
  },
  "A new key.",
);

/** The body of a webhook delivery (POST to each enabled endpoint). */
export const WebhookDeliveryBody = object(
  {
    id: Type.String({ description: "The event's id: the same on every attempt and replay." }),
    type: enumOf(EVENT_TYPES),
    created: Type.Integer({ minimum: 0, description: "When the status changed, seconds since the epoch." }),
    mode: Mode,
    data: object({ object: ref("Order") }, "The order as a read shows it."),
    mailpiece: object(
      {
        status: enumOf(EVENT_STATUSES),
        tracking_number: orNull(Type.String()),
        tracking_status: orNull(Type.String()),
      },
      "What a receiver reads of the mailpiece itself.",
    ),
  },
  `An event. Signed in ${SERVICE_SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with the endpoint secret>; refuse a timestamp more than 300 s from now and compare in constant time.`,
);

/** The components this module defines, by name (without the prefix). */
export const RESPONSE_SCHEMAS = {
  Order,
  TimelineEvent,
  Quote,
  Document,
  UploadIntent,
  Draft,
  DraftRevision,
  DraftList: page("Draft", "The key's mode's drafts, oldest first."),
  Approval,
  ApprovalList: page("Approval", "Approval summaries, oldest first."),
  Template,
  TemplateList: page("Template", "The key's mode's templates."),
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookEndpointList: list("WebhookEndpoint", "The workspace's endpoints, oldest first."),
  WebhookEvent,
  WebhookEventList: page("WebhookEvent", "The key's mode's events, newest first, with their deliveries."),
  WebhookDeliveryBody,
  CreditBalance,
  CreditLedgerEntry,
  CreditLedger: page("CreditLedgerEntry", "The mode's credit movements, oldest first."),
  AutoRefill,
  PaymentMethod,
  PaymentMethodList: object(
    { object: Type.Literal("list"), data: Type.Array(ref("PaymentMethod")), has_more: Type.Literal(false) },
    "The mode's saved cards, newest first.",
  ),
  TopUpSession,
  SetupSession,
  ApiKey,
  ApiKeyList: list("ApiKey", "Every key of the workspace by prefix, mode and status."),
  IssuedKey,
  OpenApiDocument: Type.Object(
    {
      openapi: Type.Literal("3.1.0"),
      info: Type.Object({ title: Type.String(), version: Type.String() }),
      paths: Type.Record(Type.String(), Type.Object({})),
    },
    { description: "An OpenAPI 3.1.0 document." },
  ),
} as const;

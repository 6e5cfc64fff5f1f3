import {
  ADDRESS_TYPES,
  ERR_DELIVERIES,
  LETTER_FORMATS,
  MAIL_CLASSES,
  MAILPIECE_TYPES,
  MAX_PDF_BYTES,
  POSTCARD_SIZES,
  RETURN_RECEIPT_FORMATS,
  ValidationIssue,
} from "@mailpiece/orders";
import type { TSchema } from "typebox";
import Type from "typebox";
import type { MachineErrorCode } from "./status-table.ts";
import { ERROR_CODES, RETRY_AFTER_CODES } from "./status-table.ts";

/**
 * Response schemas of the machine API (request schemas come from the engines that validate them). The OpenAPI
 * description is generated from these objects, and the conformance suite checks every answer against it. A schema
 * with a `title` becomes a component of the description.
 */

const enumOf = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Enum([...values], options);
const DateTime = Type.String({ format: "date-time" });
const Uuid = Type.String({ format: "uuid" });
const Cents = (description?: string) =>
  Type.Integer(description === undefined ? {} : { description: `${description} Integer US cents.` });
const Bounds = Type.Object(
  { min_cents: Type.Integer(), max_cents: Type.Integer() },
  { additionalProperties: false, description: "The price range one order must fall in." },
);
const Country = Type.String({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2 country code." });
const NO_EXTRA = { additionalProperties: false } as const;

export const Issue = ValidationIssue;

const RetryAfterSeconds = Type.Integer({
  minimum: 1,
  description: "Whole seconds to wait before trying again, as in Retry-After.",
});

const errorProperties = (codes: readonly MachineErrorCode[]) => ({
  error: Type.Enum([...codes], { description: `Stable error code: ${codes.join(", ")}.` }),
  message: Type.String({
    description: "What went wrong and what to do, for people. May change between versions.",
  }),
  issues: Type.Optional(
    Type.Array(Issue, {
      description: "Every problem found, each with the path of its field and a stable code.",
    }),
  ),
  retry_after_seconds: Type.Optional(RetryAfterSeconds),
});

/** Every error body of the machine API. */
export const ErrorBody = Type.Object(errorProperties(ERROR_CODES), {
  ...NO_EXTRA,
  title: "Error",
  description:
    "Every failure: a stable snake_case code, a sentence for people, the issues found (field by field) and when to retry.",
});

/**
 * The error body of the given codes (those of one status). When every one of them always says when to retry,
 * retry_after_seconds is required.
 */
export function errorBodyOf(codes: readonly MachineErrorCode[], title: string): TSchema {
  const properties = errorProperties(codes);
  const retries = codes.length > 0 && codes.every((code) => RETRY_AFTER_CODES.includes(code));
  return retries
    ? Type.Object({ ...properties, retry_after_seconds: RetryAfterSeconds }, { ...NO_EXTRA, title })
    : Type.Object(properties, { ...NO_EXTRA, title });
}

export const PartyView = Type.Object(
  {
    name: Type.String(),
    country: Country,
    address_type: enumOf(ADDRESS_TYPES),
    address_id: Type.Optional(Type.String()),
    address_text: Type.Optional(Type.String()),
    address: Type.Optional(
      Type.Object(
        {
          line1: Type.String(),
          line2: Type.Optional(Type.String()),
          city: Type.String(),
          state: Type.Optional(Type.String()),
          zip: Type.String(),
          countryCode: Country,
        },
        NO_EXTRA,
      ),
    ),
    lines: Type.Array(Type.String(), {
      description: "The address lines as they print in the envelope window.",
    }),
  },
  { ...NO_EXTRA, title: "ResolvedParty" },
);

export const LineItem = Type.Object(
  {
    code: Type.String(),
    description: Type.String(),
    quantity: Type.Integer(),
    unit_cents: Type.Integer(),
    amount_cents: Type.Integer(),
  },
  { ...NO_EXTRA, title: "LineItem" },
);

const PriceUsd = Type.String({
  pattern: "^[0-9]+\\.[0-9]{2}$",
  description: 'The price as a decimal string of US dollars, e.g. "3.40".',
});

export const QuoteView = Type.Object(
  {
    price_cents: Type.Integer({ minimum: 0, description: "What the buyer pays, in US cents." }),
    price_usd: PriceUsd,
    currency: Type.Literal("usd"),
    pricing_version: Type.String({ description: "The price book that produced this quote." }),
    line_items: Type.Array(LineItem, {
      description: "Why it costs what it costs; a minimum_charge line lifts a total to the floor.",
    }),
    subtotal_cents: Type.Integer({ description: "Sum of the charges before the floor." }),
    route: Type.Object(
      {
        origin_country: Country,
        destination_country: Country,
        zone: enumOf(["domestic", "international"]),
        proof: enumOf(["none", "certified", "registered"]),
      },
      NO_EXTRA,
    ),
    bounds: Bounds,
  },
  { ...NO_EXTRA, title: "Quote" },
);

export const NormalisedOptions = Type.Object(
  {
    double_sided: Type.Boolean(),
    color: Type.Boolean(),
    mail_class: enumOf(MAIL_CLASSES),
    certified: Type.Boolean(),
    certified_return_receipt: Type.Boolean(),
    return_receipt_format: enumOf(RETURN_RECEIPT_FORMATS),
    restricted_delivery: Type.Boolean(),
    err_delivery: enumOf(ERR_DELIVERIES),
    err_email: Type.Optional(Type.String()),
    signature_required: Type.Boolean(),
  },
  { ...NO_EXTRA, title: "NormalisedOptions" },
);

export const OrderValidation = Type.Object(
  {
    object: Type.Literal("order_validation"),
    valid: Type.Literal(true),
    request_id: Uuid,
    mailpiece_type: enumOf(MAILPIECE_TYPES),
    postcard_size: Type.Union([enumOf(POSTCARD_SIZES), Type.Null()]),
    document: Type.Object(
      {
        source: enumOf(["pdf", "letter", "form"]),
        format: Type.Union([enumOf(LETTER_FORMATS), Type.Null()]),
        page_count: Type.Integer({ minimum: 1, description: "Pages of the print-ready document." }),
      },
      NO_EXTRA,
    ),
    sender: PartyView,
    recipient: PartyView,
    options: NormalisedOptions,
    quote: QuoteView,
    warnings: Type.Array(Issue, { description: "Options the service changed or ignored, and why." }),
    postcard_route: Type.Optional(
      Type.Object(
        {
          route: enumOf(["domestic", "international_first", "international_second"]),
          reason: Type.String(),
        },
        { ...NO_EXTRA, description: "Which production route carries a postcard." },
      ),
    ),
    preview_url: Type.Optional(
      Type.String({
        format: "uri",
        description: "A signed, short-lived link to the PDF exactly as it would print.",
      }),
    ),
  },
  { ...NO_EXTRA, title: "OrderValidation" },
);

export const CampaignValidation = Type.Object(
  {
    object: Type.Literal("campaign_validation"),
    valid: Type.Literal(true),
    request_id: Uuid,
    bulk: Type.Object(
      {
        recipient_count: Type.Integer({
          minimum: 1,
          description: "Valid rows: the mailpieces the campaign creates.",
        }),
        row_count: Type.Integer({ minimum: 0 }),
        content_mode: enumOf(["text", "html", "pdf"]),
        campaign_name: Type.Union([Type.String(), Type.Null()]),
      },
      NO_EXTRA,
    ),
    rows: Type.Array(
      Type.Object(
        {
          row_number: Type.Integer({ minimum: 1 }),
          status: enumOf(["valid", "invalid"]),
          errors: Type.Array(
            Type.Object(
              {
                column: Type.String({ description: 'The CSV header as written; "" for the whole row.' }),
                code: Type.String({ pattern: "^[a-z][a-z0-9_]*$" }),
                message: Type.String(),
              },
              NO_EXTRA,
            ),
          ),
        },
        NO_EXTRA,
      ),
      { description: "Every row, valid and invalid, in file order." },
    ),
    document: Type.Object(
      {
        page_count: Type.Integer({ minimum: 1 }),
        page_count_basis: Type.String({
          description: "How the page count every piece is priced at was decided.",
        }),
      },
      NO_EXTRA,
    ),
    quote: Type.Object(
      {
        price_cents: Type.Integer({ minimum: 0 }),
        price_usd: PriceUsd,
        currency: Type.Literal("usd"),
        pricing_version: Type.String(),
        pieces: Type.Integer({ minimum: 1 }),
        by_route: Type.Array(
          Type.Object(
            {
              destination_country: Country,
              pieces: Type.Integer({ minimum: 1 }),
              unit_cents: Type.Integer(),
              amount_cents: Type.Integer(),
            },
            NO_EXTRA,
          ),
        ),
      },
      NO_EXTRA,
    ),
    options: NormalisedOptions,
    warnings: Type.Array(Issue),
  },
  { ...NO_EXTRA, title: "CampaignValidation" },
);

export const WellKnownX402 = Type.Object(
  {
    version: Type.Literal(1),
    resources: Type.Array(Type.String({ format: "uri" })),
    instructions: Type.Optional(Type.String()),
  },
  { ...NO_EXTRA, title: "X402Discovery" },
);

const Step = enumOf([
  "payment_received",
  "receiver_address_verified",
  "sender_address_verified",
  "pdf_normalized",
  "letter_created",
  "email_sent",
  "canceled",
  "refunded",
  "abandoned",
]);

const PaymentView = Type.Union([
  Type.Object(
    {
      protocol: enumOf(["x402", "mpp", "checkout"]),
      reference: Type.Union([Type.String(), Type.Null()]),
      payer: Type.Union([Type.String(), Type.Null()]),
      amount_cents: Type.Integer(),
      settled_at: Type.Union([DateTime, Type.Null()]),
    },
    NO_EXTRA,
  ),
  Type.Null(),
]);

const PaymentStatus = enumOf(["unpaid", "settled_pending_webhook", "paid"]);

const Tracking = Type.Union([
  Type.Object(
    {
      number: Type.Union([Type.String(), Type.Null()]),
      url: Type.Union([Type.String(), Type.Null()]),
      events: Type.Array(
        Type.Object({ status: Type.String(), at: Type.String(), description: Type.String() }, NO_EXTRA),
      ),
    },
    NO_EXTRA,
  ),
  Type.Null(),
]);

const Timeline = Type.Array(
  Type.Object(
    {
      id: Type.String(),
      event_type: Type.String(),
      status_before: Type.Union([Type.String(), Type.Null()]),
      status_after: Type.String(),
      source: Type.String(),
      created_at: DateTime,
    },
    NO_EXTRA,
  ),
  { description: "Every status change since payment, oldest first." },
);

export const OrderStatus = Type.Object(
  {
    object: Type.Literal("order_status"),
    order_id: Uuid,
    request_ids: Type.Array(Type.String(), {
      description:
        "The request_id this answer was asked with (create, or status by request_id); empty when asked by order_id. Other request_ids collapsed onto the same order are never shown.",
    }),
    status: Type.String({ description: "awaiting_payment, then the order statuses (queued ... delivered)." }),
    payment_status: PaymentStatus,
    is_paid: Type.Boolean(),
    terminal: Type.Boolean(),
    current_step: Type.Union([Step, Type.Null()]),
    steps: Type.Array(Type.Object({ step: Step, at: DateTime }, NO_EXTRA)),
    mailpiece_type: enumOf(MAILPIECE_TYPES),
    page_count: Type.Integer({ minimum: 1 }),
    quote: Type.Object(
      {
        price_cents: Type.Integer(),
        price_usd: PriceUsd,
        currency: Type.Literal("usd"),
        pricing_version: Type.String(),
      },
      NO_EXTRA,
    ),
    payment: PaymentView,
    tracking: Tracking,
    timeline: Timeline,
    created_at: DateTime,
    updated_at: DateTime,
    status_url: Type.String({ format: "uri" }),
    campaign: Type.Optional(
      Type.Object(
        {
          pieces: Type.Integer({ minimum: 1 }),
          by_status: Type.Optional(
            Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
              description: "Once paid: how many pieces are at each status.",
            }),
          ),
        },
        { ...NO_EXTRA, description: "For a bulk order: how many pieces the campaign mails." },
      ),
    ),
    campaign_url: Type.Optional(
      Type.String({
        format: "uri",
        description: "For a bulk order: the campaign page (HTML, or JSON with the same data).",
      }),
    ),
    message: Type.Optional(Type.String({ description: "On create: what happened and what to do next." })),
  },
  { ...NO_EXTRA, title: "OrderStatus" },
);

export const Campaign = Type.Object(
  {
    object: Type.Literal("campaign"),
    campaign_id: Uuid,
    name: Type.Union([Type.String(), Type.Null()]),
    content_mode: Type.String(),
    payment_status: PaymentStatus,
    pieces: Type.Integer({ minimum: 1 }),
    price_cents: Type.Integer({ minimum: 0 }),
    items: Type.Array(
      Type.Object(
        {
          row_number: Type.Integer({ minimum: 1 }),
          order_id: Type.Union([Uuid, Type.Null()]),
          recipient: Type.String(),
          status: Type.String(),
          tracking: Tracking,
          timeline: Timeline,
        },
        NO_EXTRA,
      ),
      { description: "One item per valid CSV row: its order, status, delivery events and tracking." },
    ),
  },
  { ...NO_EXTRA, title: "Campaign" },
);

/** The JSON body that opens an upload slot; checked by the machine app itself. */
export const UploadSlotRequest = Type.Object(
  {
    file_name: Type.String({
      minLength: 1,
      maxLength: 255,
      description: "Display name of the PDF. 1 to 255 characters.",
    }),
    content_type: Type.Literal("application/pdf"),
    content_length: Type.Integer({
      minimum: 1,
      maximum: MAX_PDF_BYTES,
      description: `The PDF's size in bytes, 1 to ${MAX_PDF_BYTES}.`,
    }),
  },
  { ...NO_EXTRA, title: "UploadSlotRequest" },
);

export const UploadSlot = Type.Object(
  {
    upload_token: Type.String({ description: "Send it as pdf: {upload_token} in one order." }),
    upload_url: Type.String({ format: "uri", description: "Where to POST the PDF as multipart/form-data." }),
    expires_at: DateTime,
    max_bytes: Type.Integer({ minimum: 1 }),
    required_headers: Type.Record(Type.String(), Type.String()),
  },
  { ...NO_EXTRA, title: "UploadSlot" },
);

export const Upload = Type.Object(
  {
    object: Type.Literal("upload"),
    upload_token: Type.String(),
    status: Type.Literal("uploaded"),
    file_name: Type.String(),
    size: Type.Integer({ minimum: 1 }),
    sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }),
    expires_at: DateTime,
  },
  { ...NO_EXTRA, title: "Upload" },
);

export const UploadFile = Type.Object(
  {
    file: Type.Optional(Type.String({ format: "binary", description: "The PDF (aliases: pdf, pdfFile)." })),
    pdf: Type.Optional(Type.String({ format: "binary" })),
    pdfFile: Type.Optional(Type.String({ format: "binary" })),
  },
  { title: "UploadFile" },
);

const FlowerQuote = Type.Object(
  {
    total_cents: Cents("What the buyer pays."),
    price_usd: PriceUsd,
    currency: Type.Literal("usd"),
    product_cents: Type.Integer(),
    delivery_cents: Type.Integer(),
    service_fee_cents: Type.Integer(),
    tax_cents: Type.Integer(),
    lines: Type.Array(
      Type.Object({ code: Type.String(), label: Type.String(), amount_cents: Type.Integer() }, NO_EXTRA),
    ),
    bounds: Bounds,
  },
  { ...NO_EXTRA, title: "FlowerQuote" },
);

export const FlowerLetterQuote = Type.Object(
  {
    object: Type.Literal("flower_letter_quote"),
    request_id: Uuid,
    product: Type.Object(
      {
        code: Type.String(),
        name: Type.String(),
        description: Type.String(),
        price_cents: Type.Integer(),
        currency: Type.Literal("usd"),
      },
      NO_EXTRA,
    ),
    delivery_date: Type.String({ format: "date" }),
    zipcode: Type.String(),
    note: Type.String(),
    allow_substitutions: Type.Boolean(),
    recipient: Type.Object(
      {
        name: Type.String(),
        phone: Type.String(),
        address1: Type.String(),
        city: Type.String(),
        state: Type.String(),
        zipcode: Type.String(),
        country: Country,
      },
      NO_EXTRA,
    ),
    quote: FlowerQuote,
  },
  { ...NO_EXTRA, title: "FlowerLetterQuote" },
);

const FloristStatus = enumOf(["accepted", "out_for_delivery", "delivered", "failed"]);

export const FlowerLetter = Type.Object(
  {
    object: Type.Literal("flower_letter"),
    order_id: Uuid,
    request_id: Uuid,
    status: enumOf(["awaiting_payment", "submission_queued", "submitted", "submission_failed"]),
    payment_status: PaymentStatus,
    is_paid: Type.Boolean(),
    terminal: Type.Boolean(),
    product: Type.Object({ code: Type.String(), name: Type.String() }, NO_EXTRA),
    delivery_date: Type.String({ format: "date" }),
    zipcode: Type.String(),
    note: Type.String(),
    allow_substitutions: Type.Boolean(),
    recipient: Type.Object(
      {
        name: Type.String(),
        city: Type.String(),
        state: Type.String(),
        zipcode: Type.String(),
        country: Country,
      },
      NO_EXTRA,
    ),
    quote: FlowerQuote,
    payment: PaymentView,
    submission: Type.Object(
      {
        attempts: Type.Integer({ minimum: 0 }),
        reference: Type.Union([Type.String(), Type.Null()]),
        submitted_at: Type.Union([DateTime, Type.Null()]),
        last_error: Type.Union([
          Type.Object({ code: Type.String(), message: Type.String(), at: DateTime }, NO_EXTRA),
          Type.Null(),
        ]),
      },
      NO_EXTRA,
    ),
    delivery: Type.Union([
      Type.Object(
        {
          status: FloristStatus,
          events: Type.Array(
            Type.Object(
              {
                status: FloristStatus,
                at: DateTime,
                description: Type.String(),
                location: Type.Optional(Type.String()),
              },
              NO_EXTRA,
            ),
          ),
        },
        NO_EXTRA,
      ),
      Type.Null(),
    ]),
    created_at: DateTime,
    updated_at: DateTime,
    status_url: Type.String({ format: "uri" }),
    message: Type.Optional(Type.String({ description: "On create: what happened and what to do next." })),
  },
  { ...NO_EXTRA, title: "FlowerLetter" },
);

export const FormSummary = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    aliases: Type.Array(Type.String()),
    purpose: Type.String(),
    certified: enumOf(["required", "optional"]),
    checkout_flow: Type.Optional(enumOf(["home", "forms_order"])),
    schema_version: Type.Integer({ minimum: 1 }),
    workflow_version: Type.Integer({ minimum: 1 }),
  },
  { ...NO_EXTRA, title: "FormSummary" },
);

export const FormList = Type.Object(
  {
    object: Type.Literal("list"),
    forms: Type.Array(FormSummary),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: "The cursor of the next page; null on the last page.",
    }),
  },
  { ...NO_EXTRA, title: "FormList" },
);

const Rule = Type.Unknown({ description: "A visibility or eligibility rule over the form's answers." });

export const FormSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    aliases: Type.Array(Type.String()),
    purpose: Type.String(),
    schema_version: Type.Integer({ minimum: 1 }),
    workflow_version: Type.Integer({ minimum: 1 }),
    versions: Type.Object(
      { schema_version: Type.Integer({ minimum: 1 }), workflow_version: Type.Integer({ minimum: 1 }) },
      NO_EXTRA,
    ),
    certified: enumOf(["required", "optional"]),
    certified_required: Type.Boolean(),
    checkout_flow: Type.Optional(enumOf(["home", "forms_order"])),
    recipient_mode: Type.Literal("user"),
    envelope: Type.Record(Type.String(), Type.Unknown(), {
      description: "How the packet's envelope is addressed.",
    }),
    fields: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          type: Type.String(),
          label: Type.String(),
          help: Type.Optional(Type.String()),
          required: Type.Union([Type.Boolean(), Type.Literal("when_active")]),
          role: Type.String(),
          text_class: Type.Optional(Type.String()),
          min_length: Type.Optional(Type.Integer({ minimum: 0 })),
          max_length: Type.Optional(Type.Integer({ minimum: 0 })),
          pattern: Type.Optional(Type.String()),
          pattern_description: Type.Optional(Type.String()),
          choices: Type.Optional(Type.Array(Type.String())),
          visible_when: Type.Optional(Rule),
          not_in_future: Type.Optional(Type.Boolean()),
          not_in_past: Type.Optional(Type.Boolean()),
          default: Type.Optional(Type.Union([Type.String(), Type.Boolean()])),
          subfields: Type.Optional(Type.Array(Type.String())),
        },
        NO_EXTRA,
      ),
    ),
    dependencies: Type.Array(
      Type.Object(
        {
          field: Type.String(),
          depends_on: Type.String(),
          operator: enumOf(["truthy", "equals"]),
          value: Type.Optional(Type.String()),
          visible_when: Rule,
        },
        NO_EXTRA,
      ),
    ),
    attachments: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          label: Type.String(),
          help: Type.Optional(Type.String()),
          required: Type.Boolean(),
          types: Type.Array(Type.String()),
          min_files: Type.Integer({ minimum: 0 }),
          max_files: Type.Integer({ minimum: 0 }),
          max_file_bytes: Type.Integer({ minimum: 0 }),
          max_file_size_mb: Type.Number({ minimum: 0 }),
          order: Type.Integer(),
        },
        NO_EXTRA,
      ),
    ),
    attachments_max_total_bytes: Type.Integer({ minimum: 0 }),
    attachments_max_total_size_mb: Type.Number({ minimum: 0 }),
    eligibility: Type.Array(
      Type.Object({ code: Type.String(), field: Type.String(), when: Rule, reason: Type.String() }, NO_EXTRA),
    ),
    compliance: Type.Object(
      { policy: Type.Union([Type.String(), Type.Null()]), stages: Type.Array(Type.Unknown()) },
      NO_EXTRA,
    ),
  },
  { ...NO_EXTRA, title: "FormSchema" },
);

/** An x402 v2 PaymentRequired object (the PAYMENT-REQUIRED header, decoded), as the 402 body repeats it. */
const x402Challenge = {
  x402Version: Type.Literal(2),
  error: Type.Optional(
    Type.String({ description: "Why a payment sent was refused, or that one is required." }),
  ),
  resource: Type.Object(
    {
      url: Type.String({ format: "uri" }),
      description: Type.Optional(Type.String()),
      mimeType: Type.Optional(Type.String()),
    },
    { description: "The paid resource: the order's own URL." },
  ),
  accepts: Type.Array(
    Type.Object(
      {
        scheme: Type.String(),
        network: Type.String({ pattern: "^[a-z0-9-]+:[A-Za-z0-9-]+$", description: "CAIP-2 network." }),
        amount: Type.String({ pattern: "^[0-9]+$", description: "Atomic units of the asset." }),
        asset: Type.String(),
        payTo: Type.String(),
        maxTimeoutSeconds: Type.Integer({ minimum: 1 }),
        extra: Type.Object(
          { order_id: Type.String({ description: "The order this requirement pays, and no other." }) },
          { description: "The asset's EIP-712 domain (name, version) and the order_id." },
        ),
      },
      { description: "A payment requirement (x402 v2)." },
    ),
    { minItems: 1 },
  ),
  extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  message: Type.String({ description: "How to pay, for people and agents." }),
  code: Type.Optional(Type.String({ description: "Why the payment sent was refused." })),
};

/** An RFC 9457 problem details object of MPP (the Payment HTTP authentication scheme). */
const mppProblem = {
  type: Type.String({ format: "uri" }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.Optional(Type.String({ description: "Why the payment sent was refused." })),
};

const PreviewUrl = Type.Optional(
  Type.String({ format: "uri", description: "A signed, short-lived link to the PDF that would print." }),
);

export const X402OrderChallenge = Type.Object(
  { ...x402Challenge, order: OrderStatus, preview_url: PreviewUrl },
  {
    ...NO_EXTRA,
    title: "X402OrderChallenge",
    description: "x402: pay the challenge, then send the same body again.",
  },
);

export const MppOrderChallenge = Type.Object(
  { ...mppProblem, order: OrderStatus, preview_url: PreviewUrl },
  { ...NO_EXTRA, title: "MppOrderChallenge", description: "MPP: problem details with the unpaid order." },
);

export const X402FlowerChallenge = Type.Object(
  { ...x402Challenge, flower_letter: FlowerLetter },
  { ...NO_EXTRA, title: "X402FlowerChallenge" },
);

export const MppFlowerChallenge = Type.Object(
  { ...mppProblem, flower_letter: FlowerLetter },
  { ...NO_EXTRA, title: "MppFlowerChallenge" },
);

export const Health = Type.Object(
  { status: Type.Literal("ok"), version: Type.Optional(Type.String()) },
  { ...NO_EXTRA, title: "Health" },
);

/** The OpenAPI description itself (GET /openapi.json). */
export const OpenApiDocument = Type.Object(
  {
    openapi: Type.Literal("3.1.0"),
    info: Type.Object({ title: Type.String(), version: Type.String() }),
    paths: Type.Record(Type.String(), Type.Object({})),
  },
  { title: "OpenApiDocument", description: "An OpenAPI 3.1.0 document." },
);

/** Schemas of parameters, headers and bodies that are not JSON. */
export const Wire = {
  text: Type.String(),
  /** A page size of the form catalogue. */
  pageSize: Type.Integer({ minimum: 1 }),
  /** Whole seconds, as in Retry-After. */
  seconds: Type.Integer({ minimum: 0 }),
  pdf: Type.String({ contentMediaType: "application/pdf", description: "The PDF's bytes." }),
  html: Type.String({ contentMediaType: "text/html", description: "An HTML page." }),
};

import Type from "typebox";

/** Response schemas of the machine API. The OpenAPI description and the tests use these same objects. */

export const Issue = Type.Object(
  {
    path: Type.String({
      description:
        'Dotted JSON path of the field at fault, e.g. "recipient_address_manual.state"; "" for the body.',
    }),
    code: Type.String({ pattern: "^[a-z][a-z0-9_]*$", description: "Stable snake_case code." }),
    message: Type.String({ description: "What is wrong and what to change, for people." }),
  },
  { additionalProperties: false, title: "Issue" },
);

export const ErrorBody = Type.Object(
  {
    error: Type.String({ pattern: "^[a-z][a-z0-9_]*$", description: "Stable snake_case error code." }),
    message: Type.String(),
    issues: Type.Optional(Type.Array(Issue, { description: "Every problem found (422 only)." })),
    retry_after_seconds: Type.Optional(
      Type.Integer({ minimum: 1, description: "429 and 503: whole seconds to wait, as in Retry-After." }),
    ),
  },
  { additionalProperties: false, title: "Error" },
);

const Country = Type.String({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2 country code." });

export const PartyView = Type.Object(
  {
    name: Type.String(),
    country: Country,
    address_type: Type.Union([Type.Literal("Address"), Type.Literal("Manual")]),
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
        { additionalProperties: false },
      ),
    ),
    lines: Type.Array(Type.String(), {
      description: "The address lines as they print in the envelope window.",
    }),
  },
  { additionalProperties: false, title: "ResolvedParty" },
);

export const LineItem = Type.Object(
  {
    code: Type.String(),
    description: Type.String(),
    quantity: Type.Integer(),
    unit_cents: Type.Integer(),
    amount_cents: Type.Integer(),
  },
  { additionalProperties: false, title: "LineItem" },
);

export const QuoteView = Type.Object(
  {
    price_cents: Type.Integer({ minimum: 0, description: "What the buyer pays, in US cents." }),
    price_usd: Type.String({
      pattern: "^[0-9]+\\.[0-9]{2}$",
      description: 'The same price as a decimal string, e.g. "3.40".',
    }),
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
        zone: Type.Union([Type.Literal("domestic"), Type.Literal("international")]),
        proof: Type.Union([Type.Literal("none"), Type.Literal("certified"), Type.Literal("registered")]),
      },
      { additionalProperties: false },
    ),
    bounds: Type.Object(
      { min_cents: Type.Integer(), max_cents: Type.Integer() },
      { additionalProperties: false, description: "The price range of one machine order (3.40 to 200.00)." },
    ),
  },
  { additionalProperties: false, title: "Quote" },
);

export const NormalisedOptions = Type.Object(
  {
    double_sided: Type.Boolean(),
    color: Type.Boolean(),
    mail_class: Type.Union([Type.Literal("standard"), Type.Literal("priority"), Type.Literal("express")]),
    certified: Type.Boolean(),
    certified_return_receipt: Type.Boolean(),
    return_receipt_format: Type.Union([Type.Literal("electronic"), Type.Literal("physical")]),
    restricted_delivery: Type.Boolean(),
    err_delivery: Type.Union([Type.Literal("manual"), Type.Literal("email")]),
    err_email: Type.Optional(Type.String()),
    signature_required: Type.Boolean(),
  },
  { additionalProperties: false, title: "NormalisedOptions" },
);

export const OrderValidation = Type.Object(
  {
    object: Type.Literal("order_validation"),
    valid: Type.Literal(true),
    request_id: Type.String({ format: "uuid" }),
    mailpiece_type: Type.Union([Type.Literal("letter"), Type.Literal("postcard")]),
    postcard_size: Type.Union([Type.Literal("4x6"), Type.Literal("6x9"), Type.Literal("11x6"), Type.Null()]),
    document: Type.Object(
      {
        source: Type.Union([Type.Literal("pdf"), Type.Literal("letter"), Type.Literal("form")]),
        format: Type.Union([Type.String(), Type.Null()]),
        page_count: Type.Integer({ minimum: 1, description: "Pages of the print-ready document." }),
      },
      { additionalProperties: false },
    ),
    sender: PartyView,
    recipient: PartyView,
    options: NormalisedOptions,
    quote: QuoteView,
    warnings: Type.Array(Issue, { description: "Options the service changed or ignored, and why." }),
    postcard_route: Type.Optional(
      Type.Object(
        {
          route: Type.Union([
            Type.Literal("domestic"),
            Type.Literal("international_first"),
            Type.Literal("international_second"),
          ]),
          reason: Type.String(),
        },
        { additionalProperties: false, description: "Which production route carries a postcard (spec 1)." },
      ),
    ),
    preview_url: Type.Optional(
      Type.String({
        format: "uri",
        description: "A signed, short-lived link to the PDF exactly as it would print.",
      }),
    ),
  },
  { additionalProperties: false, title: "OrderValidation" },
);

export const WellKnownX402 = Type.Object(
  {
    version: Type.Literal(1),
    resources: Type.Array(Type.String({ format: "uri" })),
    instructions: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: "X402Discovery" },
);

const Step = Type.Union(
  [
    "payment_received",
    "receiver_address_verified",
    "sender_address_verified",
    "pdf_normalized",
    "letter_created",
    "email_sent",
    "canceled",
    "refunded",
    "abandoned",
  ].map((s) => Type.Literal(s)),
);

export const OrderStatus = Type.Object(
  {
    object: Type.Literal("order_status"),
    order_id: Type.String({ format: "uuid" }),
    request_ids: Type.Array(Type.String(), {
      description:
        "The request_id this answer was asked with (create, or status by request_id); empty when asked by order_id. Other request_ids collapsed onto the same order are never shown.",
    }),
    status: Type.String({ description: "awaiting_payment, then the order statuses (queued ... delivered)." }),
    payment_status: Type.Union([
      Type.Literal("unpaid"),
      Type.Literal("settled_pending_webhook"),
      Type.Literal("paid"),
    ]),
    is_paid: Type.Boolean(),
    terminal: Type.Boolean(),
    current_step: Type.Union([Step, Type.Null()]),
    steps: Type.Array(
      Type.Object({ step: Step, at: Type.String({ format: "date-time" }) }, { additionalProperties: false }),
    ),
    mailpiece_type: Type.Union([Type.Literal("letter"), Type.Literal("postcard")]),
    page_count: Type.Integer({ minimum: 1 }),
    quote: Type.Object(
      {
        price_cents: Type.Integer(),
        price_usd: Type.String(),
        currency: Type.Literal("usd"),
        pricing_version: Type.String(),
      },
      { additionalProperties: false },
    ),
    payment: Type.Union([
      Type.Object(
        {
          protocol: Type.Union([Type.Literal("x402"), Type.Literal("mpp")]),
          reference: Type.Union([Type.String(), Type.Null()]),
          payer: Type.Union([Type.String(), Type.Null()]),
          amount_cents: Type.Integer(),
          settled_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    tracking: Type.Union([
      Type.Object(
        {
          number: Type.Union([Type.String(), Type.Null()]),
          url: Type.Union([Type.String(), Type.Null()]),
          events: Type.Array(
            Type.Object(
              { status: Type.String(), at: Type.String(), description: Type.String() },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    timeline: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          event_type: Type.String(),
          status_before: Type.Union([Type.String(), Type.Null()]),
          status_after: Type.String(),
          source: Type.String(),
          created_at: Type.String({ format: "date-time" }),
        },
        { additionalProperties: false },
      ),
      { description: "Every status change since payment, oldest first." },
    ),
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
    status_url: Type.String({ format: "uri" }),
    campaign: Type.Optional(Type.Object({ pieces: Type.Integer() }, { additionalProperties: false })),
    campaign_url: Type.Optional(
      Type.String({
        format: "uri",
        description: "For a bulk order: the campaign page (HTML, or JSON with the same data).",
      }),
    ),
    message: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: "OrderStatus" },
);

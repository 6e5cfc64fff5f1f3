import { FLOWER_LETTER_BOUNDS, FlowerLetterRequest } from "@mailpiece/flowers";
import { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES, MAX_PDF_BYTES, OrderRequest } from "@mailpiece/orders";
import { LETTER_LIMITS } from "@mailpiece/typesetter/light";
import type { Static, TSchema } from "typebox";
import Type from "typebox";
import { FLOWER_BODY_BYTES, UPLOAD_SLOT_BODY_BYTES } from "./read-json.ts";
import {
  Campaign,
  CampaignValidation,
  ErrorBody,
  errorBodyOf,
  FlowerLetter,
  FlowerLetterQuote,
  FormList,
  FormSchema,
  Health,
  MppFlowerChallenge,
  MppOrderChallenge,
  OpenApiDocument,
  OrderStatus,
  OrderValidation,
  Upload,
  UploadFile,
  UploadSlot,
  UploadSlotRequest,
  WellKnownX402,
  Wire,
  X402FlowerChallenge,
  X402OrderChallenge,
} from "./schemas.ts";
import type { MachineErrorCode } from "./status-table.ts";
import { codesWithStatus, errorStatuses, RETRY_AFTER_CODES, STATUS_TABLE, statusOf } from "./status-table.ts";

export interface OpenApiOptions {
  /** Absolute base URL of the deployment, e.g. https://mail.example.com */
  publicUrl: string;
  maxBodyBytes: number;
  /** The rails this deployment accepts; their payment answers are described. */
  rails?: { x402?: unknown; mpp?: unknown };
  /** Whether the deployment takes flower letters (it has a florist); default true. */
  flowers?: boolean;
  /** The price range of one machine order, in cents (the core's configured bounds). */
  orderBounds?: { min_cents: number; max_cents: number };
  /** Largest PDF accepted, in bytes; default the orders engine's MAX_PDF_BYTES. */
  maxPdfBytes?: number;
}

type Json = Record<string, unknown>;
type Family = "x402" | "MPP";

/** Every schema that is a component of the description; a schema nested in another becomes a $ref to it. */
const COMPONENTS: TSchema[] = [
  OrderRequest,
  UploadSlotRequest,
  UploadFile,
  OrderValidation,
  CampaignValidation,
  OrderStatus,
  Campaign,
  UploadSlot,
  Upload,
  FlowerLetterQuote,
  FlowerLetter,
  FormList,
  FormSchema,
  X402OrderChallenge,
  MppOrderChallenge,
  X402FlowerChallenge,
  MppFlowerChallenge,
  WellKnownX402,
  Health,
  OpenApiDocument,
  ErrorBody,
];

/** The error body of each status of the status table: its code is one of that status's codes. */
const STATUS_ERRORS: Map<number, TSchema> = new Map(
  errorStatuses().map((status) => [status, errorBodyOf(codesWithStatus(status), `Error${status}`)]),
);

const titleOf = (schema: unknown) => (schema as { title?: string }).title;

/**
 * The description as plain JSON: every TypeBox schema in it becomes JSON Schema, and every schema nested in the
 * description that is a component (one with a component's title and content) becomes a $ref to it. TypeBox keeps
 * its own markers out of JSON.
 */
function toJson(value: unknown, components: Map<string, string>, isComponent = false): unknown {
  if (Array.isArray(value)) return value.map((item) => toJson(item, components));
  if (typeof value !== "object" || value === null) return value;
  const title = titleOf(value);
  if (!isComponent && title !== undefined && components.get(title) === JSON.stringify(value)) {
    return { $ref: `#/components/schemas/${title}` };
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJson(item, components)]));
}

function json(schema: TSchema): Json {
  return { "application/json": { schema } };
}

/** Dollars for people: 340 -> "3.40". */
const dollars = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;

/** What each error code means on an operation, when it needs more than the code's own sentence. */
type ErrorNotes = Partial<Record<MachineErrorCode, string>>;

const RETRY_AFTER_HEADER = (required: boolean): Json => ({
  description: "Whole seconds to wait before trying again.",
  required,
  schema: Wire.seconds,
});

/** The error answers of an operation, grouped by the status the status table gives each code. */
function errorAnswers(codes: readonly MachineErrorCode[], notes: ErrorNotes = {}): Record<string, Json> {
  const byStatus = new Map<number, MachineErrorCode[]>();
  for (const code of codes) byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  const answers: Record<string, Json> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    // Whatever says when to retry (429, 503) says it in Retry-After too; codes that always do, always send it.
    const retries = status === 429 || status === 503;
    answers[String(status)] = {
      description: list.map((code) => `${code}: ${notes[code] ?? STATUS_TABLE[code].means}.`).join(" "),
      ...(retries
        ? {
            headers: {
              "Retry-After": RETRY_AFTER_HEADER(list.every((code) => RETRY_AFTER_CODES.includes(code))),
            },
          }
        : {}),
      content: json(STATUS_ERRORS.get(status)!),
    };
  }
  return answers;
}

/** Adds further bodies to the error answer of one status: a union for the same media type, or another media type. */
function alsoAnswers(
  answers: Record<string, Json>,
  status: number,
  content: Record<string, TSchema>,
  note: string,
): void {
  const current = answers[String(status)] ?? { description: "" };
  const media = { ...(current.content as Record<string, { schema: TSchema }> | undefined) };
  for (const [type, schema] of Object.entries(content)) {
    const existing = media[type]?.schema;
    media[type] = { schema: existing ? Type.Union([existing, schema]) : schema };
  }
  answers[String(status)] = {
    ...current,
    description: `${current.description} ${note}`.trim(),
    content: media,
  };
}

const BODY_CODES: MachineErrorCode[] = [
  "invalid_json",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error",
  "service_busy",
];

function orderBodyTooLarge(maxBodyBytes: number, maxPdfBytes: number): string {
  const pdfMb = Math.floor((maxBodyBytes * 3) / 4 / 1_000_000);
  return `the body is larger than ${maxBodyBytes} bytes. A data-URL PDF fits in this body up to about ${pdfMb} MB (base64 adds a third); upload larger PDFs, up to ${maxPdfBytes} bytes, with POST /api/machine/uploads and send {"pdf": {"upload_token": ...}}`;
}

function letterLimits(): string {
  return `A markdown letter is refused with letter_too_complex beyond ${LETTER_LIMITS.markdown_nesting_depth} levels of nested lists or quotations, ${LETTER_LIMITS.markdown_lines} lines, ${LETTER_LIMITS.markdown_list_items} list items, ${LETTER_LIMITS.markdown_emphasis_markers} emphasis markers or ${LETTER_LIMITS.markdown_link_brackets} link brackets, and a table of any format beyond ${LETTER_LIMITS.table_columns} columns; a document that cannot be prepared within the service's time or memory with document_too_complex`;
}

function orderRequestBody(maxBodyBytes: number): Json {
  return {
    required: true,
    description: `The order request; at most ${maxBodyBytes} bytes of JSON. Send large PDFs with an upload_token.`,
    content: json(OrderRequest),
    "x-max-body-bytes": maxBodyBytes,
  };
}

function validateOperation(
  operationId: string,
  family: Family,
  maxBodyBytes: number,
  maxPdfBytes: number,
): Json {
  return {
    operationId,
    tags: [family === "x402" ? "Orders (x402)" : "Orders (MPP)"],
    summary: "Validate and quote an order",
    description:
      "Checks the whole order request (every field and cross-field rule), prepares the document to count its pages, and quotes the price. No payment, nothing stored. Every problem is reported at once with the path of the field and a stable code.",
    requestBody: orderRequestBody(maxBodyBytes),
    responses: {
      "200": {
        description: `The order is valid: the quote, the resolved sender and recipient, the page count and the normalised options. For a bulk campaign (object campaign_validation): bulk.recipient_count, bulk.content_mode, a report per CSV row and the quote by route. Campaigns take at most ${MAX_CAMPAIGN_ROWS} rows and ${MAX_CSV_BYTES} bytes of CSV; the whole campaign is refused only when no row is valid or a limit is exceeded.`,
        content: json(Type.Union([OrderValidation, CampaignValidation])),
      },
      ...errorAnswers([...BODY_CODES, "request_id_conflict", "validation_failed", "rate_limited"], {
        payload_too_large: orderBodyTooLarge(maxBodyBytes, maxPdfBytes),
        validation_failed: `\`issues\` lists every problem with its path and code. ${letterLimits()}`,
        rate_limited:
          "too many validations from this client; Retry-After and retry_after_seconds say when to try again",
      }),
    },
  };
}

/** The answers of a create operation (order or flower letter) on one rail. */
function createAnswers(
  family: Family,
  payable: boolean,
  thing: { name: string; view: TSchema; x402: TSchema; mpp: TSchema },
  codes: MachineErrorCode[],
  notes: ErrorNotes,
): Record<string, Json> {
  if (!payable) return errorAnswers(["payment_rail_unavailable", "internal_error"]);
  const x402 = family === "x402";
  const receipt: Json = x402
    ? { "PAYMENT-RESPONSE": { description: "x402 settlement response (base64 JSON).", schema: Wire.text } }
    : { "Payment-Receipt": { description: "MPP receipt (base64url JSON).", schema: Wire.text } };
  const challenge: Record<string, TSchema> = x402
    ? { "application/json": thing.x402 }
    : { "application/problem+json": thing.mpp };
  const answers: Record<string, Json> = {
    "200": {
      description: `Already paid: this request_id's ${thing.name} was paid before; nothing was charged now.`,
      headers: receipt,
      content: json(thing.view),
    },
    "202": {
      description: `Payment settled (or being confirmed: payment_status settled_pending_webhook); the ${thing.name} is durable. Poll status_url.`,
      headers: receipt,
      content: json(thing.view),
    },
    "402": x402
      ? {
          description: `Payment required: the challenge is in PAYMENT-REQUIRED; the body repeats it with a message and the unpaid ${thing.name}. A credential that was refused says why in error and code.`,
          headers: {
            "PAYMENT-REQUIRED": {
              description: "x402 v2 PaymentRequired (base64 JSON).",
              required: true,
              schema: Wire.text,
            },
          },
          content: mediaOf(challenge),
        }
      : {
          description: `Payment required: one WWW-Authenticate: Payment challenge per accepted method; the body is problem details with the unpaid ${thing.name}.`,
          headers: {
            "WWW-Authenticate": { description: "Payment challenges.", required: true, schema: Wire.text },
            "Retry-After": RETRY_AFTER_HEADER(false),
          },
          content: mediaOf(challenge),
        },
    ...errorAnswers(codes, notes),
  };
  alsoAnswers(
    answers,
    503,
    challenge,
    "With a payment challenge: the payment provider could not be reached; nothing was charged, send the same request again later.",
  );
  if (!x402) {
    alsoAnswers(
      answers,
      400,
      challenge,
      "With a payment challenge: the payment method sent is not accepted here.",
    );
  }
  return answers;
}

function mediaOf(content: Record<string, TSchema>): Json {
  return Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }]));
}

function paymentParameters(family: Family): Json[] {
  return family === "x402"
    ? [
        {
          name: "PAYMENT-SIGNATURE",
          in: "header",
          required: false,
          description: "The x402 v2 payment payload (base64 JSON).",
          schema: Wire.text,
        },
      ]
    : [
        {
          name: "Authorization",
          in: "header",
          required: false,
          description: "Payment <base64url credential>.",
          schema: Wire.text,
        },
      ];
}

function createOperation(
  operationId: string,
  family: Family,
  options: OpenApiOptions,
  maxPdfBytes: number,
): Json {
  const x402 = family === "x402";
  const payable = Boolean(x402 ? options.rails?.x402 : options.rails?.mpp);
  const bounds = options.orderBounds;
  return {
    operationId,
    tags: [x402 ? "Orders (x402)" : "Orders (MPP)"],
    summary: "Create and pay an order",
    description: x402
      ? "Unpaid: 402 with the x402 v2 challenge in PAYMENT-REQUIRED. Pay it and send the byte-for-byte identical body again with PAYMENT-SIGNATURE: 202 with PAYMENT-RESPONSE once settled. A retry of an order that is already paid answers 200 and charges nothing. x402 reference clients refuse payments above $1 by default: raise the cap (spendControls.maxAmountPerPayment) first."
      : "Unpaid: 402 application/problem+json with one WWW-Authenticate: Payment challenge per accepted method. Pay one and send the byte-for-byte identical body again with Authorization: Payment: 202 with Payment-Receipt. A retry of an order that is already paid answers 200 and charges nothing.",
    ...(payable
      ? {
          "x-payment-info": {
            price: {
              mode: "range",
              currency: "USD",
              ...(bounds ? { min: dollars(bounds.min_cents), max: dollars(bounds.max_cents) } : {}),
            },
            protocols: [x402 ? { x402: {} } : { mpp: {} }],
          },
        }
      : {}),
    parameters: paymentParameters(family),
    requestBody: orderRequestBody(options.maxBodyBytes),
    responses: createAnswers(
      family,
      payable,
      { name: "order", view: OrderStatus, x402: X402OrderChallenge, mpp: MppOrderChallenge },
      [...BODY_CODES, "request_id_conflict", "validation_failed", "rate_limited"],
      {
        payload_too_large: orderBodyTooLarge(options.maxBodyBytes, maxPdfBytes),
        rate_limited: "too many unpaid orders from this client; Retry-After says when to try again",
        service_busy:
          "every document worker is busy, or other large requests are being read; nothing was stored or charged; Retry-After says when to try again",
      },
    ),
  };
}

const ID_PARAMETER = (description: string): Json => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: Wire.text,
});

function statusOperation(operationId: string, family: Family): Json {
  return {
    operationId,
    tags: [family === "x402" ? "Orders (x402)" : "Orders (MPP)"],
    summary: "Order status",
    description:
      "By order_id or any request_id aliased to it. settled_pending_webhook means the payment is being confirmed: poll, and do not pay again.",
    parameters: [ID_PARAMETER("order_id or request_id (a uuid).")],
    responses: {
      "200": { description: "The order's status.", content: json(OrderStatus) },
      ...errorAnswers(["not_found", "invalid_path", "internal_error"], {
        not_found: "no order has this id or request_id",
      }),
    },
  };
}

function flowerPaths(options: OpenApiOptions): Json {
  const florist = options.flowers !== false;
  const paths: Json = {};
  for (const family of ["x402", "MPP"] as const) {
    const x402 = family === "x402";
    const base = x402 ? "/api/machine/flower-letters" : "/api/machine/mpp/flower-letters";
    const tag = x402 ? "Flower letters (x402)" : "Flower letters (MPP)";
    const suffix = x402 ? "" : "Mpp";
    const payable = Boolean(x402 ? options.rails?.x402 : options.rails?.mpp);
    const body = {
      required: true,
      description: `The flower-letter request; at most ${FLOWER_BODY_BYTES} bytes of JSON. Its quote must fall between ${formatCents(FLOWER_LETTER_BOUNDS.min_cents)} and ${formatCents(FLOWER_LETTER_BOUNDS.max_cents)} USD.`,
      content: json(FlowerLetterRequest),
      "x-max-body-bytes": FLOWER_BODY_BYTES,
    };
    const noFlorist: ErrorNotes = { florist_unavailable: "this deployment does not take flower letters" };
    const notes: ErrorNotes = {
      florist_unavailable:
        "the florist cannot be reached; nothing was stored or charged; Retry-After says when to try again",
      payload_too_large: `the body is larger than ${FLOWER_BODY_BYTES} bytes`,
    };
    paths[`${base}/validate`] = {
      post: {
        operationId: `validateFlowerLetter${suffix}`,
        tags: [tag],
        summary: "Check product, ZIP, delivery date and the final quote",
        requestBody: body,
        responses: florist
          ? {
              "200": { description: "The quote.", content: json(FlowerLetterQuote) },
              ...errorAnswers(
                [
                  ...BODY_CODES,
                  "request_id_conflict",
                  "validation_failed",
                  "rate_limited",
                  "florist_unavailable",
                ],
                { ...notes, rate_limited: "too many validations from this client; see Retry-After" },
              ),
            }
          : errorAnswers(["florist_unavailable", "internal_error"], noFlorist),
      },
    };
    paths[base] = {
      post: {
        operationId: `createFlowerLetter${suffix}`,
        tags: [tag],
        summary: "Create and pay a flower letter",
        ...(florist && payable
          ? {
              "x-payment-info": {
                price: { mode: "dynamic", currency: "USD" },
                protocols: [x402 ? { x402: {} } : { mpp: {} }],
              },
            }
          : {}),
        parameters: paymentParameters(family),
        requestBody: body,
        responses: florist
          ? createAnswers(
              family,
              payable,
              {
                name: "flower letter",
                view: FlowerLetter,
                x402: X402FlowerChallenge,
                mpp: MppFlowerChallenge,
              },
              [
                ...BODY_CODES,
                "request_id_conflict",
                "validation_failed",
                "rate_limited",
                "florist_unavailable",
              ],
              { ...notes, rate_limited: "too many unpaid flower letters from this client; see Retry-After" },
            )
          : errorAnswers(["florist_unavailable", "internal_error"], noFlorist),
      },
    };
    paths[`${base}/{id}`] = {
      get: {
        operationId: `getFlowerLetter${suffix}`,
        tags: [tag],
        summary: "Flower-letter status by id or request_id",
        parameters: [ID_PARAMETER("order_id or request_id (a uuid).")],
        responses: florist
          ? {
              "200": { description: "The flower letter.", content: json(FlowerLetter) },
              ...errorAnswers(["not_found", "invalid_path", "florist_unavailable", "internal_error"], {
                ...notes,
                not_found: "no flower letter has this id or request_id",
              }),
            }
          : errorAnswers(["florist_unavailable", "internal_error"], noFlorist),
      },
    };
  }
  return paths;
}

function uploadPaths(maxPdfBytes: number): Json {
  const multipart = { "multipart/form-data": { schema: UploadFile } };
  const tooLarge = `the file is larger than ${maxPdfBytes} bytes, the largest PDF that prints`;
  return {
    "/api/machine/uploads": {
      post: {
        operationId: "createUpload",
        tags: ["Uploads"],
        summary: "Open an upload slot, or upload a PDF in one step",
        description:
          "JSON {file_name, content_type: application/pdf, content_length}: 201 with upload_token, upload_url, expires_at, max_bytes and required_headers; then POST the PDF to upload_url as multipart/form-data in the field `file` (aliases `pdf`, `pdfFile`). Or POST the multipart form here directly. Send `pdf: {upload_token}` in the order; a token serves one order and expires.",
        requestBody: {
          required: true,
          content: { "application/json": { schema: UploadSlotRequest }, ...multipart },
          "x-max-body-bytes": UPLOAD_SLOT_BODY_BYTES,
        },
        responses: {
          "201": {
            description: "The slot (JSON request), or the stored upload (multipart request).",
            content: json(Type.Union([UploadSlot, Upload])),
          },
          ...errorAnswers([...BODY_CODES, "invalid_multipart", "validation_failed", "rate_limited"], {
            payload_too_large: tooLarge,
            unsupported_media_type: "neither JSON nor multipart/form-data",
            invalid_json: "the JSON body is not valid JSON",
            validation_failed: "a bad slot request, no file in the form, or a file that is not a PDF",
            rate_limited:
              "this client opened too many upload slots or declared too many bytes this hour; see Retry-After",
          }),
        },
      },
    },
    "/api/machine/uploads/{token}": {
      post: {
        operationId: "fillUpload",
        tags: ["Uploads"],
        summary: "Upload the PDF into a slot",
        parameters: [{ name: "token", in: "path", required: true, schema: Wire.text }],
        requestBody: { required: true, content: multipart },
        responses: {
          "201": { description: "Stored.", content: json(Upload) },
          ...errorAnswers(
            [
              "invalid_multipart",
              "not_found",
              "payload_too_large",
              "unsupported_media_type",
              "validation_failed",
              "invalid_path",
              "internal_error",
              "service_busy",
            ],
            {
              not_found: "unknown upload token",
              payload_too_large: `larger than the slot's max_bytes, or ${tooLarge}`,
              unsupported_media_type: "not multipart/form-data",
              validation_failed: "expired, already filled, no file, or not a PDF",
            },
          ),
        },
      },
    },
    "/api/machine/previews/{file}": {
      get: {
        operationId: "getPreview",
        tags: ["Uploads"],
        summary: "A signed, short-lived preview of the PDF that would print",
        parameters: [
          { name: "file", in: "path", required: true, description: "<sha256>.pdf", schema: Wire.text },
          { name: "expires", in: "query", required: true, schema: Wire.text },
          { name: "sig", in: "query", required: true, schema: Wire.text },
        ],
        responses: {
          "200": {
            description: "The PDF.",
            content: { "application/pdf": { schema: Wire.pdf } },
          },
          ...errorAnswers(["preview_link_invalid", "not_found", "invalid_path", "internal_error"], {
            not_found: "the document is no longer kept",
          }),
        },
      },
    },
  };
}

/** The OpenAPI 3.1.0 description of the machine API, generated from the same schemas the server validates with. */
export function buildOpenApi(options: OpenApiOptions): Json {
  const maxPdfBytes = options.maxPdfBytes ?? MAX_PDF_BYTES;
  const bounds = options.orderBounds;
  const price = bounds
    ? `machine orders cost ${dollars(bounds.min_cents)} to ${dollars(bounds.max_cents)} USD, above the $1 per-payment cap that x402 reference clients apply by default`
    : "machine orders cost more than the $1 per-payment cap that x402 reference clients apply by default";
  const schemas = [...COMPONENTS, ...STATUS_ERRORS.values()];
  const components = new Map(schemas.map((schema) => [titleOf(schema)!, JSON.stringify(schema)]));
  const document: Json = {
    openapi: "3.1.0",
    info: {
      title: "Mailpiece machine API",
      version: "1.0.0",
      summary: "Print, envelope and post physical mail, paid per order with x402 or MPP.",
      description: [
        "Sequence: (1) optionally discover workflow forms; (2) POST the order to a validate endpoint for a quote, with no payment side effect; (3) create it unpaid and receive 402 with a payment challenge; (4) pay and retry the byte-for-byte identical body; (5) poll the order status.",
        "`request_id` is the idempotency key of one logical mailing: reuse it with an identical body when retrying.",
        `Paying with x402: ${price}. Raise the cap before paying, e.g. \`x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } })\`.`,
        "Errors: a JSON body `{error, message, issues?, retry_after_seconds?}`; `error` is a stable snake_case code, each code has one HTTP status, and `issues` lists every problem with the dotted path of its field.",
        "Besides the operations listed: a path not listed answers components.responses.NotFound; another method on a listed path answers components.responses.MethodNotAllowed; an OPTIONS on a listed path answers components.responses.Preflight when it is a CORS preflight and components.responses.Options otherwise; a path with a malformed percent-encoding answers components.responses.InvalidPath.",
      ].join("\n\n"),
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: options.publicUrl }],
    tags: [
      { name: "Orders (x402)", description: "Paths under /api/machine/, paid with x402 v2." },
      {
        name: "Orders (MPP)",
        description: "Paths under /api/machine/mpp/, paid with the Payment HTTP authentication scheme.",
      },
      { name: "Uploads", description: "PDF uploads and previews." },
      { name: "Flower letters (x402)" },
      { name: "Flower letters (MPP)" },
      {
        name: "Forms",
        description: "Workflow forms that turn structured answers into a signed letter packet.",
      },
      { name: "Discovery" },
    ],
    paths: {
      "/api/machine/orders/validate": {
        post: validateOperation("validateOrder", "x402", options.maxBodyBytes, maxPdfBytes),
      },
      "/api/machine/mpp/orders/validate": {
        post: validateOperation("validateOrderMpp", "MPP", options.maxBodyBytes, maxPdfBytes),
      },
      "/api/machine/orders": { post: createOperation("createOrder", "x402", options, maxPdfBytes) },
      "/api/machine/mpp/orders": { post: createOperation("createOrderMpp", "MPP", options, maxPdfBytes) },
      "/api/machine/forms": {
        get: {
          operationId: "listForms",
          tags: ["Forms"],
          summary: "Workflow-form catalogue",
          parameters: [
            {
              name: "q",
              in: "query",
              required: false,
              description: "Search over slug, name and aliases.",
              schema: Wire.text,
            },
            {
              name: "limit",
              in: "query",
              required: false,
              description: "Page size.",
              schema: Wire.pageSize,
            },
            {
              name: "cursor",
              in: "query",
              required: false,
              description: "next_cursor of the previous page.",
              schema: Wire.text,
            },
          ],
          responses: {
            "200": {
              description: "A page of forms, and next_cursor (null on the last page).",
              content: json(FormList),
            },
            ...errorAnswers(["invalid_query", "internal_error"]),
          },
        },
      },
      "/api/machine/forms/{slug}/schema": {
        get: {
          operationId: "getFormSchema",
          tags: ["Forms"],
          summary: "A workflow form's live schema",
          description:
            "Fields, visibility dependencies, attachment slots, attachments_max_total_size_mb and checkout_flow. Send the answers as `form: {slug, fields, attachments}` in the order request.",
          parameters: [
            {
              name: "slug",
              in: "path",
              required: true,
              description: "Slug or alias.",
              schema: Wire.text,
            },
          ],
          responses: {
            "200": { description: "The schema.", content: json(FormSchema) },
            ...errorAnswers(["not_found", "invalid_path", "internal_error"], { not_found: "unknown form" }),
          },
        },
      },
      ...flowerPaths(options),
      ...uploadPaths(maxPdfBytes),
      "/api/machine/campaigns/{id}": {
        get: {
          operationId: "getCampaign",
          tags: ["Orders (x402)"],
          summary: "A bulk campaign: each row's order, status, delivery events and tracking",
          description:
            "JSON by default; an HTML page with the same data for Accept: text/html or an id ending in .html.",
          parameters: [
            ID_PARAMETER("The campaign's order_id or request_id, optionally ending in .json or .html."),
          ],
          responses: {
            "200": {
              description: "The campaign.",
              content: {
                "application/json": { schema: Campaign },
                "text/html": { schema: Wire.html },
              },
            },
            ...errorAnswers(["not_found", "invalid_path", "internal_error"], {
              not_found: "no campaign has this id or request_id",
            }),
          },
        },
      },
      "/api/machine/orders/{id}": { get: statusOperation("getOrder", "x402") },
      "/api/machine/mpp/orders/{id}": { get: statusOperation("getOrderMpp", "MPP") },
      "/openapi.json": {
        get: {
          operationId: "getOpenApi",
          tags: ["Discovery"],
          summary: "This description",
          responses: {
            "200": {
              description: "OpenAPI 3.1.0 document.",
              content: json(OpenApiDocument),
            },
            ...errorAnswers(["internal_error"]),
          },
        },
      },
      "/.well-known/x402": {
        get: {
          operationId: "getX402Discovery",
          tags: ["Discovery"],
          summary: "x402 resource manifest for crawlers",
          responses: {
            "200": { description: "The paid resources.", content: json(WellKnownX402) },
            ...errorAnswers(["internal_error"]),
          },
        },
      },
      "/health": {
        get: {
          operationId: "getHealth",
          tags: ["Discovery"],
          summary: "Liveness and store health",
          responses: {
            "200": { description: "The service is up.", content: json(Health) },
            ...errorAnswers(["store_unavailable", "internal_error"]),
          },
        },
      },
    },
    components: {
      responses: {
        NotFound: {
          description: "A path this description does not list (not_found).",
          content: json(STATUS_ERRORS.get(statusOf("not_found"))!),
        },
        MethodNotAllowed: {
          description:
            "Another method on a listed path (method_not_allowed); Allow lists the methods it answers.",
          headers: {
            Allow: { description: "The methods this path answers.", required: true, schema: Wire.text },
          },
          content: json(STATUS_ERRORS.get(statusOf("method_not_allowed"))!),
        },
        Options: {
          description:
            "An OPTIONS request that is not a CORS preflight: no body; Allow lists the methods the path answers.",
          headers: {
            Allow: { description: "The methods this path answers.", required: true, schema: Wire.text },
          },
        },
        InvalidPath: {
          description: "A path whose percent-encoding is malformed (invalid_path), listed or not.",
          content: json(STATUS_ERRORS.get(statusOf("invalid_path"))!),
        },
        Preflight: {
          description:
            "A CORS preflight: any origin may send the payment headers (PAYMENT-SIGNATURE, Authorization) and read the payment answers.",
          headers: {
            "Access-Control-Allow-Origin": { required: true, schema: Wire.text },
            "Access-Control-Allow-Methods": { required: true, schema: Wire.text },
            "Access-Control-Allow-Headers": { required: true, schema: Wire.text },
            "Access-Control-Expose-Headers": { required: true, schema: Wire.text },
          },
        },
      },
    },
  };
  const described = toJson(document, components) as Json & { components: Json };
  described.components = {
    schemas: Object.fromEntries(
      schemas.map((schema) => [titleOf(schema)!, toJson(schema, components, true)]),
    ),
    ...described.components,
  };
  return described;
}

/** The x402 resource manifest (/.well-known/x402) for crawlers that do not read the OpenAPI description. */
export function buildX402Manifest(options: {
  publicUrl: string;
  orderBounds: { min_cents: number; max_cents: number };
  flowers: boolean;
}): Static<typeof WellKnownX402> {
  const { publicUrl, orderBounds, flowers } = options;
  return {
    version: 1,
    resources: [
      `${publicUrl}/api/machine/orders`,
      ...(flowers ? [`${publicUrl}/api/machine/flower-letters`] : []),
    ],
    instructions: [
      `Mailpiece prints and mails letters and postcards. Validate first with POST /api/machine/orders/validate, then POST /api/machine/orders unpaid to receive the x402 challenge, pay it and send the identical body again with PAYMENT-SIGNATURE. Prices are ${dollars(orderBounds.min_cents)} to ${dollars(orderBounds.max_cents)} USD: raise your client's per-payment spend cap above $1.`,
      ...(flowers
        ? [
            "Flower letters (a florist's bouquet with a card note) follow the same steps at /api/machine/flower-letters/validate and /api/machine/flower-letters; the quote states the price and the range it falls in.",
          ]
        : []),
      "Full description: /openapi.json",
    ].join(" "),
  };
}

/** Cents as a USD amount with two decimals. */
function formatCents(cents: number): string {
  return (cents / 100).toFixed(2);
}

import { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES, OrderRequest } from "@mailpiece/orders";
import { LETTER_LIMITS } from "@mailpiece/typesetter";
import { ErrorBody, OrderStatus, OrderValidation, WellKnownX402 } from "./schemas.ts";

export interface OpenApiOptions {
  /** Absolute base URL of the deployment, e.g. https://mail.example.com */
  publicUrl: string;
  maxBodyBytes: number;
  /** The rails this deployment accepts; their create operations are described. */
  rails?: { x402?: unknown; mpp?: unknown };
  /** Whether the deployment takes flower letters (it has a florist); default true. */
  flowers?: boolean;
}

type Json = Record<string, unknown>;

const errorRef = { $ref: "#/components/schemas/Error" };

function jsonContent(schema: Json): Json {
  return { "application/json": { schema } };
}

function errorResponse(description: string): Json {
  return { description, content: jsonContent(errorRef) };
}

function validateOperation(operationId: string, family: "x402" | "MPP", maxBodyBytes: number): Json {
  return {
    operationId,
    tags: [family === "x402" ? "Orders (x402)" : "Orders (MPP)"],
    summary: "Validate and quote an order",
    description:
      "Checks the whole order request (every field and cross-field rule), prepares the document to count its pages, and quotes the price. No payment, nothing stored. Every problem is reported at once with the path of the field and a stable code.",
    requestBody: {
      required: true,
      description: `The order request; at most ${maxBodyBytes} bytes of JSON. Send large PDFs with an upload_token.`,
      content: jsonContent({ $ref: "#/components/schemas/OrderRequest" }),
      "x-max-body-bytes": maxBodyBytes,
    },
    responses: {
      "200": {
        description: `The order is valid: the quote, the resolved sender and recipient, the page count and the normalised options. For a bulk campaign (object campaign_validation): bulk.recipient_count, bulk.content_mode, a report per CSV row {row_number, status, errors[{column, code, message}]} and the quote by route. Campaigns take at most ${MAX_CAMPAIGN_ROWS} rows and ${MAX_CSV_BYTES} bytes of CSV; the whole campaign is refused only when no row is valid or a limit is exceeded.`,
        content: jsonContent({
          oneOf: [
            { $ref: "#/components/schemas/OrderValidation" },
            {
              type: "object",
              properties: { object: { const: "campaign_validation" } },
              required: ["object"],
            },
          ],
        }),
      },
      "400": errorResponse("The body is not valid JSON (invalid_json)."),
      "409": errorResponse(
        "request_id was already used with a different body (request_id_conflict). Use a new request_id for a new mailing.",
      ),
      "413": errorResponse(tooLargeDescription(maxBodyBytes)),
      "415": errorResponse("The content type is not application/json (unsupported_media_type)."),
      "422": errorResponse(
        `Validation failed (validation_failed): \`issues\` lists every problem with its path and code. A markdown letter is refused with letter_too_complex beyond ${LETTER_LIMITS.markdown_nesting_depth} levels of nested lists or quotations, ${LETTER_LIMITS.markdown_lines} lines, ${LETTER_LIMITS.markdown_list_items} list items, ${LETTER_LIMITS.markdown_emphasis_markers} emphasis markers or ${LETTER_LIMITS.markdown_link_brackets} link brackets, and a table of any format beyond ${LETTER_LIMITS.table_columns} columns; a document that cannot be prepared within the service's time or memory with document_too_complex.`,
      ),
      "429": errorResponse(
        "Too many validations from this client (rate_limited); Retry-After and retry_after_seconds say when to try again.",
      ),
      "500": errorResponse("An unexpected failure on the service side (internal_error)."),
      "503": errorResponse(
        "Every document worker is busy (service_busy); nothing was stored. Retry-After says when to try again.",
      ),
    },
  };
}

/** The 413 of a JSON body: how large a data-URL PDF can be under this body limit, and what to do instead. */
function tooLargeDescription(maxBodyBytes: number): string {
  const pdfMb = Math.floor((maxBodyBytes * 3) / 4 / 1_000_000);
  return `The body is larger than ${maxBodyBytes} bytes (payload_too_large). A data-URL PDF fits in this body up to about ${pdfMb} MB (base64 adds a third); upload larger PDFs, up to 100 MB, with POST /api/machine/uploads and send {"pdf": {"upload_token": ...}}.`;
}

function createOperation(operationId: string, family: "x402" | "MPP", maxBodyBytes: number): Json {
  const x402 = family === "x402";
  return {
    operationId,
    tags: [x402 ? "Orders (x402)" : "Orders (MPP)"],
    summary: "Create and pay an order",
    description: x402
      ? "Unpaid: 402 with the x402 v2 challenge in PAYMENT-REQUIRED. Pay it and send the byte-for-byte identical body again with PAYMENT-SIGNATURE: 202 with PAYMENT-RESPONSE once settled. A retry of an order that is already paid answers 200 and charges nothing. x402 reference clients refuse payments above $1 by default: raise the cap (spendControls.maxAmountPerPayment) first."
      : "Unpaid: 402 application/problem+json with one WWW-Authenticate: Payment challenge per accepted method. Pay one and send the byte-for-byte identical body again with Authorization: Payment: 202 with Payment-Receipt. A retry of an order that is already paid answers 200 and charges nothing.",
    "x-payment-info": {
      price: { mode: "range", currency: "USD", min: "3.40", max: "200.00" },
      protocols: [x402 ? { x402: {} } : { mpp: {} }],
    },
    requestBody: {
      required: true,
      description: `The order request; at most ${maxBodyBytes} bytes of JSON.`,
      content: jsonContent({ $ref: "#/components/schemas/OrderRequest" }),
      "x-max-body-bytes": maxBodyBytes,
    },
    parameters: x402
      ? [
          {
            name: "PAYMENT-SIGNATURE",
            in: "header",
            required: false,
            description: "The x402 v2 payment payload (base64 JSON).",
            schema: { type: "string" },
          },
        ]
      : [
          {
            name: "Authorization",
            in: "header",
            required: false,
            description: "Payment <base64url credential>.",
            schema: { type: "string" },
          },
        ],
    responses: {
      "200": {
        description: "Already paid: this request_id's order was paid before; nothing was charged now.",
        content: jsonContent({ $ref: "#/components/schemas/OrderStatus" }),
      },
      "202": {
        description:
          "Payment settled (or being confirmed: payment_status settled_pending_webhook); the order is durable and pending finalisation.",
        headers: x402
          ? {
              "PAYMENT-RESPONSE": {
                description: "x402 settlement response (base64 JSON).",
                schema: { type: "string" },
              },
            }
          : {
              "Payment-Receipt": { description: "MPP receipt (base64url JSON).", schema: { type: "string" } },
            },
        content: jsonContent({ $ref: "#/components/schemas/OrderStatus" }),
      },
      "402": x402
        ? {
            description:
              "Payment required: the challenge is in PAYMENT-REQUIRED; the body repeats it with a message and the unpaid order.",
            headers: {
              "PAYMENT-REQUIRED": {
                description: "x402 v2 PaymentRequired (base64 JSON).",
                schema: { type: "string" },
              },
            },
            content: jsonContent({ type: "object" }),
          }
        : {
            description:
              "Payment required: one WWW-Authenticate: Payment challenge per method; the body is problem details.",
            headers: {
              "WWW-Authenticate": { description: "Payment challenges.", schema: { type: "string" } },
            },
            content: { "application/problem+json": { schema: { type: "object" } } },
          },
      "400": errorResponse("The body is not valid JSON (invalid_json)."),
      "409": errorResponse("request_id was already used with a different body (request_id_conflict)."),
      "413": errorResponse(tooLargeDescription(maxBodyBytes)),
      "415": errorResponse("The content type is not application/json (unsupported_media_type)."),
      "422": errorResponse(
        "Validation failed (validation_failed): `issues` lists every problem with its path and code.",
      ),
      "429": errorResponse("Too many unpaid orders from this client (rate_limited); see Retry-After."),
      "500": errorResponse("An unexpected failure on the service side (internal_error)."),
      "503": errorResponse(
        "This payment rail is not available (payment_rail_unavailable), or the payment provider could not be reached.",
      ),
    },
  };
}

function statusOperation(operationId: string, family: "x402" | "MPP"): Json {
  return {
    operationId,
    tags: [family === "x402" ? "Orders (x402)" : "Orders (MPP)"],
    summary: "Order status",
    description:
      "By order_id or any request_id aliased to it. settled_pending_webhook means the payment is being confirmed: poll, and do not pay again.",
    parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
    responses: {
      "200": {
        description: "The order's status.",
        content: jsonContent({ $ref: "#/components/schemas/OrderStatus" }),
      },
      "404": errorResponse("No order has this id or request_id (not_found)."),
    },
  };
}

function flowerPaths(_maxBodyBytes: number): Json {
  const paths: Json = {};
  for (const family of ["x402", "MPP"] as const) {
    const base = family === "x402" ? "/api/machine/flower-letters" : "/api/machine/mpp/flower-letters";
    const tag = family === "x402" ? "Flower letters (x402)" : "Flower letters (MPP)";
    const suffix = family === "x402" ? "" : "Mpp";
    const body = {
      required: true,
      description:
        "request_id (uuid), buyer_name, buyer_email, note (at most 200 characters), zipcode, product_code, delivery_date (YYYY-MM-DD), customer, recipient, allow_substitutions.",
      content: jsonContent({ type: "object" }),
    };
    paths[`${base}/validate`] = {
      post: {
        operationId: `validateFlowerLetter${suffix}`,
        tags: [tag],
        summary: "Check product, ZIP, delivery date and the final quote (1.00 to 250.00)",
        requestBody: body,
        responses: {
          "200": { description: "The quote.", content: jsonContent({ type: "object" }) },
          "409": errorResponse("request_id was used with a different body (request_id_conflict)."),
          "422": errorResponse("Validation failed (validation_failed)."),
          "429": errorResponse("Too many validations from this client (rate_limited); see Retry-After."),
          "503": errorResponse("The florist cannot be reached (florist_unavailable)."),
        },
      },
    };
    paths[base] = {
      post: {
        operationId: `createFlowerLetter${suffix}`,
        tags: [tag],
        summary: "Create and pay a flower letter",
        "x-payment-info": {
          price: { mode: "range", currency: "USD", min: "1.00", max: "250.00" },
          protocols: [family === "x402" ? { x402: {} } : { mpp: {} }],
        },
        requestBody: body,
        responses: {
          "200": {
            description: "Already paid; nothing charged now.",
            content: jsonContent({ type: "object" }),
          },
          "202": {
            description: "Paid; the florist submission is queued.",
            content: jsonContent({ type: "object" }),
          },
          "402": {
            description: "Payment required (the challenge, as for orders).",
            content: jsonContent({ type: "object" }),
          },
          "409": errorResponse("request_id was used with a different body (request_id_conflict)."),
          "422": errorResponse("Validation failed (validation_failed)."),
          "429": errorResponse("Too many unpaid orders from this client (rate_limited); see Retry-After."),
          "503": errorResponse("The florist or the payment rail is unavailable."),
        },
      },
    };
    paths[`${base}/{id}`] = {
      get: {
        operationId: `getFlowerLetter${suffix}`,
        tags: [tag],
        summary: "Flower-letter status by id or request_id",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        responses: {
          "200": { description: "The flower letter.", content: jsonContent({ type: "object" }) },
          "404": errorResponse("Unknown id (not_found)."),
        },
      },
    };
  }
  return paths;
}

/** The OpenAPI 3.1.0 description of the machine API, generated from the same schemas the server validates with. */
export function buildOpenApi(options: OpenApiOptions): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Mailpiece machine API",
      version: "1.0.0",
      summary: "Print, envelope and post physical mail, paid per order with x402 or MPP.",
      description: [
        "Sequence: (1) optionally discover workflow forms; (2) POST the order to a validate endpoint for a quote, with no payment side effect; (3) create it unpaid and receive 402 with a payment challenge; (4) pay and retry the byte-for-byte identical body; (5) poll the order status.",
        "`request_id` is the idempotency key of one logical mailing: reuse it with an identical body when retrying.",
        'Paying with x402: machine orders cost 3.40 to 200.00 USD, above the $1 per-payment cap that x402 reference clients apply by default. Raise the cap before paying, e.g. `x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } })`.',
        "Errors: a JSON body `{error, message, issues?}`; `error` is a stable snake_case code, and for 422 `issues` lists every problem with the dotted path of its field.",
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
        post: validateOperation("validateOrder", "x402", options.maxBodyBytes),
      },
      "/api/machine/mpp/orders/validate": {
        post: validateOperation("validateOrderMpp", "MPP", options.maxBodyBytes),
      },
      ...(options.rails?.x402
        ? { "/api/machine/orders": { post: createOperation("createOrder", "x402", options.maxBodyBytes) } }
        : {}),
      ...(options.rails?.mpp
        ? {
            "/api/machine/mpp/orders": {
              post: createOperation("createOrderMpp", "MPP", options.maxBodyBytes),
            },
          }
        : {}),
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
              schema: { type: "string" },
            },
            {
              name: "limit",
              in: "query",
              required: false,
              schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
            },
            {
              name: "cursor",
              in: "query",
              required: false,
              description: "next_cursor of the previous page.",
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": {
              description: "A page of forms, and next_cursor (null on the last page).",
              content: jsonContent({ type: "object" }),
            },
            "400": errorResponse("Invalid query (invalid_query)."),
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
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": { description: "The schema.", content: jsonContent({ type: "object" }) },
            "404": errorResponse("Unknown form (not_found)."),
          },
        },
      },
      ...(options.flowers === false ? {} : flowerPaths(options.maxBodyBytes)),
      "/api/machine/uploads": {
        post: {
          operationId: "createUpload",
          tags: ["Uploads"],
          summary: "Open an upload slot, or upload a PDF in one step",
          description:
            "JSON {file_name, content_type: application/pdf, content_length}: 201 with upload_token, upload_url, expires_at, max_bytes and required_headers; then POST the PDF to upload_url as multipart/form-data in the field `file` (aliases `pdf`, `pdfFile`). Or POST the multipart form here directly. Send `pdf: {upload_token}` in the order; a token serves one order and expires.",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  additionalProperties: false,
                  required: ["file_name", "content_type", "content_length"],
                  properties: {
                    file_name: { type: "string", minLength: 1, maxLength: 255 },
                    content_type: { type: "string", enum: ["application/pdf"] },
                    content_length: { type: "integer", minimum: 1, maximum: 104857600 },
                  },
                },
              },
              "multipart/form-data": {
                schema: { type: "object", properties: { file: { type: "string", format: "binary" } } },
              },
            },
          },
          responses: {
            "201": {
              description: "The slot, or the stored upload.",
              content: jsonContent({ type: "object" }),
            },
            "400": errorResponse("Unreadable multipart body (invalid_multipart)."),
            "413": errorResponse("The file is larger than 100 MB (payload_too_large)."),
            "415": errorResponse("Neither JSON nor multipart/form-data (unsupported_media_type)."),
            "422": errorResponse("Bad slot request, no file, or not a PDF (validation_failed)."),
            "429": errorResponse(
              "This client opened too many upload slots or declared too many bytes this hour (rate_limited); see Retry-After.",
            ),
          },
        },
      },
      "/api/machine/uploads/{token}": {
        post: {
          operationId: "fillUpload",
          tags: ["Uploads"],
          summary: "Upload the PDF into a slot",
          parameters: [{ name: "token", in: "path", required: true, schema: { type: "string" } }],
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: { type: "object", properties: { file: { type: "string", format: "binary" } } },
              },
            },
          },
          responses: {
            "201": { description: "Stored.", content: jsonContent({ type: "object" }) },
            "404": errorResponse("Unknown upload token (not_found)."),
            "413": errorResponse("Larger than the slot's max_bytes (payload_too_large)."),
            "415": errorResponse("Not multipart/form-data (unsupported_media_type)."),
            "422": errorResponse("Expired, already filled, no file, or not a PDF (validation_failed)."),
          },
        },
      },
      "/api/machine/previews/{file}": {
        get: {
          operationId: "getPreview",
          tags: ["Uploads"],
          summary: "A signed, short-lived preview of the PDF that would print",
          parameters: [
            { name: "file", in: "path", required: true, schema: { type: "string" } },
            { name: "expires", in: "query", required: true, schema: { type: "string" } },
            { name: "sig", in: "query", required: true, schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "The PDF.",
              content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
            },
            "403": errorResponse("Tampered or expired link (preview_link_invalid)."),
            "404": errorResponse("The document is no longer kept (not_found)."),
          },
        },
      },
      "/api/machine/campaigns/{id}": {
        get: {
          operationId: "getCampaign",
          tags: ["Orders (x402)"],
          summary: "A bulk campaign: each row's order, status, delivery events and tracking",
          description:
            "JSON by default; an HTML page with the same data for Accept: text/html or an id ending in .html.",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "The campaign.",
              content: {
                "application/json": { schema: { type: "object" } },
                "text/html": { schema: { type: "string" } },
              },
            },
            "404": errorResponse("No campaign has this id or request_id (not_found)."),
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
            "200": { description: "OpenAPI 3.1.0 document.", content: jsonContent({ type: "object" }) },
          },
        },
      },
      "/.well-known/x402": {
        get: {
          operationId: "getX402Discovery",
          tags: ["Discovery"],
          summary: "x402 resource manifest for crawlers",
          responses: {
            "200": {
              description: "The paid resources.",
              content: jsonContent({ $ref: "#/components/schemas/X402Discovery" }),
            },
          },
        },
      },
      "/health": {
        get: {
          operationId: "getHealth",
          tags: ["Discovery"],
          summary: "Liveness and store health",
          responses: {
            "200": {
              description: "The service is up.",
              content: jsonContent({
                type: "object",
                required: ["status"],
                properties: { status: { type: "string", enum: ["ok"] }, version: { type: "string" } },
              }),
            },
            "503": errorResponse("The store is unavailable."),
          },
        },
      },
    },
    components: {
      schemas: {
        OrderRequest: plain(OrderRequest),
        OrderValidation: plain(OrderValidation),
        OrderStatus: plain(OrderStatus),
        Error: plain(ErrorBody),
        X402Discovery: plain(WellKnownX402),
      },
    },
  };
}

/** A TypeBox schema as plain JSON Schema (drops any non-JSON members). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

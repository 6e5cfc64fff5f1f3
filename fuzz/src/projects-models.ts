import type { Schema } from "./schema-arbitrary.ts";

/**
 * The request bodies of the Projects API as spec 3 states their fields (shared/spec/3-projects-api.md), written as
 * JSON Schema so that the same builder makes valid and near-valid values of them. Where spec 3 leaves a bound open,
 * the bound is the one the API documents in its own messages (ids 1 to 128 characters, metadata of at most 50
 * keys, permissions 1 to 20).
 */

const countryCode = {
  type: "string",
  minLength: 2,
  maxLength: 2,
  enum: ["US", "CA", "AT", "BE", "CH", "DE", "ES", "FR", "GB", "IN", "LU", "NL", "us", "ca"],
};
const documentId = { type: "string", minLength: 1, maxLength: 128 };

const letterOptions = {
  mail_class: {
    type: "string",
    enum: [
      "standard",
      "carrier_first_class",
      "usps_first_class",
      "priority",
      "carrier_priority",
      "usps_priority",
      "express",
      "carrier_express",
      "usps_express",
    ],
  },
  color: { type: "boolean" },
  double_sided: { type: "boolean" },
  standalone_address_page: { type: "boolean" },
  certified: { type: "boolean" },
  certified_return_receipt: { type: "boolean" },
  return_receipt_format: { type: "string", enum: ["electronic", "physical"] },
  restricted_delivery: { type: "boolean" },
  err_delivery: { type: "string", enum: ["manual", "email"] },
  err_email: { type: "string", format: "email", maxLength: 256 },
  signature_required: { type: "boolean" },
};

/** The metadata map of an order or a send: string values, at most 50 keys. */
const metadata = {
  type: "object",
  additionalProperties: { type: "string", maxLength: 500 },
  maxProperties: 50,
};

/** The address object: name and the spec 3 fields under their own names (the aliases are sent by hints). */
const address: Schema = {
  type: "object",
  required: ["name", "line1", "city", "postal_code"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 255 },
    company: { type: "string", maxLength: 255 },
    line1: { type: "string", minLength: 1, maxLength: 256 },
    line2: { type: "string", minLength: 1, maxLength: 256 },
    city: { type: "string", minLength: 1, maxLength: 128 },
    state: { type: "string", minLength: 2, maxLength: 2 },
    postal_code: { type: "string", minLength: 1, maxLength: 20 },
    countryCode: { type: "string", minLength: 2, maxLength: 2 },
  },
  additionalProperties: false,
};

export const PROJECTS_MODELS = {
  uploadIntent: {
    type: "object",
    required: ["content_type", "byte_size"],
    properties: {
      content_type: { const: "application/pdf" },
      byte_size: { type: "integer", minimum: 1, maximum: 104_857_600 },
      page_count: { type: "integer", minimum: 1, maximum: 100 },
    },
    additionalProperties: false,
  },
  complete: {
    type: "object",
    required: ["page_count"],
    properties: { page_count: { type: "integer", minimum: 1, maximum: 100 } },
    additionalProperties: false,
  },
  letterQuote: {
    type: "object",
    required: ["document_id"],
    properties: {
      document_id: documentId,
      page_count: { type: "integer", minimum: 1 },
      ...letterOptions,
      destination_country_code: countryCode,
      origin_country_code: countryCode,
    },
    additionalProperties: false,
  },
  postcardQuote: {
    type: "object",
    required: ["document_id", "postcard_size"],
    properties: {
      document_id: documentId,
      page_count: { type: "integer", minimum: 1 },
      postcard_size: { type: "string", enum: ["4x6", "6x9", "11x6"] },
      color: { const: true },
      double_sided: { const: true },
      destination_country_code: countryCode,
      origin_country_code: countryCode,
    },
    additionalProperties: false,
  },
  order: {
    type: "object",
    required: ["quote_id", "recipient"],
    properties: {
      quote_id: { type: "string", minLength: 1, maxLength: 128 },
      recipient: address,
      sender: address,
      metadata,
    },
    additionalProperties: false,
  },
  topUp: {
    type: "object",
    required: ["amount_cents"],
    properties: { amount_cents: { type: "integer", minimum: 100, maximum: 100_000 } },
    additionalProperties: false,
  },
  setup: {
    type: "object",
    properties: { mode: { type: "string", enum: ["test", "live"] } },
    additionalProperties: false,
  },
  draft: {
    type: "object",
    required: ["type", "quote_id", "recipient"],
    properties: {
      type: { type: "string", enum: ["letter", "postcard"] },
      quote_id: { type: "string", minLength: 1, maxLength: 128 },
      recipient: address,
      sender: address,
      metadata,
    },
    additionalProperties: false,
  },
  draftPatch: {
    type: "object",
    properties: {
      quote_id: { type: "string", minLength: 1, maxLength: 128 },
      recipient: address,
      sender: address,
      metadata,
    },
    additionalProperties: false,
  },
  template: {
    type: "object",
    required: ["name", "body"],
    properties: {
      name: { type: "string", minLength: 1, maxLength: 200 },
      body: { type: "string", minLength: 1, maxLength: 2000 },
      format: { type: "string", enum: ["text", "markdown", "html", "rtf"] },
      variables: {
        type: "array",
        maxItems: 10,
        items: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]{0,63}$" },
            required: { type: "boolean" },
            default: { type: "string", maxLength: 100 },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  templatePatch: {
    type: "object",
    properties: {
      name: { type: "string", minLength: 1, maxLength: 200 },
      body: { type: "string", minLength: 1, maxLength: 2000 },
      format: { type: "string", enum: ["text", "markdown", "html", "rtf"] },
    },
    additionalProperties: false,
  },
  templateSend: {
    type: "object",
    required: ["recipient"],
    properties: {
      variables: {
        type: "object",
        additionalProperties: { type: "string", maxLength: 200 },
        maxProperties: 10,
      },
      recipient: address,
      sender: address,
      ...letterOptions,
      metadata,
    },
    additionalProperties: false,
  },
  handwritten: {
    type: "object",
    required: ["message", "recipient", "sender"],
    properties: {
      message: { type: "string", minLength: 1, maxLength: 800 },
      recipient: address,
      sender: address,
      style: { type: "string", enum: ["casual", "neat", "slanted"] },
      metadata,
    },
    additionalProperties: false,
  },
  webhookEndpoint: {
    type: "object",
    required: ["url"],
    properties: {
      url: { type: "string", format: "uri", pattern: "^https://", maxLength: 2048 },
      ed25519: { type: "boolean" },
    },
    additionalProperties: false,
  },
  autoRefill: {
    type: "object",
    required: ["threshold_cents", "refill_amount_cents"],
    properties: {
      mode: { type: "string", enum: ["test", "live"] },
      enabled: { type: "boolean" },
      threshold_cents: { type: "integer", minimum: 100, maximum: 100_000 },
      refill_amount_cents: { type: "integer", minimum: 100, maximum: 100_000 },
    },
    additionalProperties: false,
  },
  rotate: {
    type: "object",
    required: ["mode"],
    properties: {
      mode: { type: "string", enum: ["test", "live"] },
      permissions: {
        type: "array",
        minItems: 1,
        maxItems: 20,
        items: {
          type: "string",
          enum: [
            "mailings.submit_test",
            "mailings.submit_live",
            "mailings.submit_without_approval",
            "letters:write",
            "letters:read",
          ],
        },
      },
    },
    additionalProperties: false,
  },
} satisfies Record<string, Schema>;

export type ModelName = keyof typeof PROJECTS_MODELS;

/** The spec 3 address fields' other names: an issue about an alias is reported under the field's own name. */
export const ADDRESS_ALIASES: Record<string, string[]> = {
  line1: ["street1", "address_line1", "addressLine1"],
  line2: ["street2", "address_line2", "addressLine2"],
  city: ["address_city", "addressCity"],
  state: ["province", "provinceOrState", "address_state", "addressState"],
  postal_code: ["postalCode", "postalOrZip", "zip", "address_zip", "addressZip"],
  countryCode: ["country_code", "country", "address_country", "addressCountry"],
};

/** A Projects API route: method, path under /api/v1 (`{name}` for a path parameter), and its body model. */
export interface ProjectsRoute {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  model?: ModelName;
  /** The route takes no key: the upload URL carries its own secret. */
  public?: boolean;
  /** Order creation: the Idempotency-Key header is required. */
  idempotent?: boolean;
  /** Query parameters the route reads. */
  query?: string[];
}

/** Every route of apps/v1/src/routes/*.ts (the suite checks the list against the route modules). */
export const PROJECTS_ROUTES: ProjectsRoute[] = [
  { method: "GET", path: "/openapi.json", public: true },
  { method: "POST", path: "/documents/upload-intent", model: "uploadIntent" },
  { method: "PUT", path: "/documents/{document_id}/upload", public: true, query: ["token"] },
  { method: "POST", path: "/documents/{document_id}/complete", model: "complete" },
  { method: "GET", path: "/documents/{document_id}" },
  { method: "POST", path: "/letters/quotes", model: "letterQuote" },
  { method: "POST", path: "/postcards/quotes", model: "postcardQuote" },
  { method: "POST", path: "/letters", model: "order", idempotent: true },
  { method: "POST", path: "/postcards", model: "order", idempotent: true },
  { method: "GET", path: "/letters/{order_id}" },
  { method: "GET", path: "/postcards/{order_id}" },
  { method: "GET", path: "/letters/{order_id}/document.pdf" },
  { method: "GET", path: "/postcards/{order_id}/document.pdf" },
  { method: "POST", path: "/credits/checkout-session", model: "topUp" },
  { method: "POST", path: "/credits/payment-methods/setup-session", model: "setup" },
  { method: "GET", path: "/credits/payment-methods" },
  { method: "GET", path: "/credits/auto-refill" },
  { method: "POST", path: "/credits/auto-refill", model: "autoRefill" },
  { method: "GET", path: "/credits/balance" },
  { method: "GET", path: "/credits/ledger", query: ["limit", "cursor"] },
  { method: "GET", path: "/api-keys" },
  { method: "POST", path: "/api-keys/rotate", model: "rotate" },
  { method: "GET", path: "/drafts", query: ["state", "limit", "cursor"] },
  { method: "POST", path: "/drafts", model: "draft" },
  { method: "GET", path: "/drafts/{draft_id}", query: ["revision"] },
  { method: "PATCH", path: "/drafts/{draft_id}", model: "draftPatch" },
  { method: "POST", path: "/drafts/{draft_id}/request-approval" },
  { method: "POST", path: "/drafts/{draft_id}/withdraw" },
  { method: "POST", path: "/drafts/{draft_id}/discard" },
  { method: "POST", path: "/drafts/{draft_id}/refresh" },
  { method: "POST", path: "/drafts/{draft_id}/release" },
  { method: "GET", path: "/approvals", query: ["state", "limit", "cursor"] },
  { method: "GET", path: "/approvals/{draft_id}" },
  { method: "GET", path: "/webhook-endpoints" },
  { method: "POST", path: "/webhook-endpoints", model: "webhookEndpoint" },
  { method: "DELETE", path: "/webhook-endpoints/{endpoint_id}" },
  { method: "POST", path: "/webhook-endpoints/{endpoint_id}/rotate-secret" },
  { method: "GET", path: "/webhook-events", query: ["limit", "cursor"] },
  { method: "POST", path: "/webhook-events/{event_id}/replay" },
  { method: "GET", path: "/letters/{order_id}/return-receipt.pdf" },
  { method: "GET", path: "/return-receipts/export.zip", query: ["limit", "cursor", "from", "to"] },
  { method: "GET", path: "/templates", query: ["limit", "cursor"] },
  { method: "POST", path: "/templates", model: "template" },
  { method: "GET", path: "/templates/{template_id}" },
  { method: "PATCH", path: "/templates/{template_id}", model: "templatePatch" },
  { method: "DELETE", path: "/templates/{template_id}" },
  { method: "POST", path: "/templates/{template_id}/send", model: "templateSend", idempotent: true },
  { method: "POST", path: "/templates/{template_id}/drafts", model: "templateSend" },
  { method: "POST", path: "/handwritten", model: "handwritten", idempotent: true },
  { method: "POST", path: "/handwritten/drafts", model: "handwritten" },
  { method: "GET", path: "/handwritten/{order_id}" },
  { method: "GET", path: "/handwritten/{order_id}/document.pdf" },
];

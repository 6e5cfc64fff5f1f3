import { DRAFT_TYPE_NAMES, PERMISSIONS } from "@mailpiece/core";
import {
  ALLOWED_COUNTRIES,
  LetterQuoteBody,
  MAX_METADATA_KEY_CHARS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_CHARS,
  MAX_PROJECTS_ID_CHARS,
  MAX_PROJECTS_NAME_CHARS,
  PROJECTS_ADDRESS_ALIASES,
} from "@mailpiece/orders";
import { HandwrittenFields, TemplateValues } from "@mailpiece/templates";
import type { TSchema } from "typebox";
import Type from "typebox";
import { CLOSED, enumOf, orNull, ref } from "./component.ts";

/**
 * Request bodies of the Projects API that no engine publishes as a schema: the core checks them with hand-written
 * rules (the address and create-order rules of @mailpiece/orders, the core's send, credit, document and webhook
 * rules). Each schema here states those rules; the validators stay the source of truth, and the tests send the
 * bodies the routes take through both.
 */

/** The longest text of each address field after trimming (the machine API's manual address rules). */
const ADDRESS_FIELD_CHARS = {
  line1: 256,
  line2: 256,
  city: 128,
  state: 60,
  postal_code: 20,
} as const;

/** Credit amounts a request may name (spec 3): top-ups, refill thresholds and amounts, in cents. */
export const CREDIT_AMOUNT_CENTS = { minimum: 100, maximum: 100_000 } as const;

/** The Idempotency-Key the order routes take: 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = "^[!-~]{1,255}$";

/** Most permissions a rotation may list. */
export const MAX_ROTATION_PERMISSIONS = 20;

const addressText = (field: keyof typeof ADDRESS_FIELD_CHARS, description: string) =>
  Type.String({ maxLength: ADDRESS_FIELD_CHARS[field], description });

const COUNTRY = Type.String({
  pattern: "^[A-Za-z]{2}$",
  description: `ISO 3166-1 alpha-2 country code, any case: ${ALLOWED_COUNTRIES.join(", ")}. Default US; only a US address may leave it out.`,
});

/** Each address field's schema; its aliases take the same schema. */
const ADDRESS_FIELDS: Record<keyof typeof PROJECTS_ADDRESS_ALIASES, TSchema> = {
  name: Type.String({
    minLength: 1,
    maxLength: MAX_PROJECTS_NAME_CHARS,
    pattern: "\\S",
    description: `The addressee, 1 to ${MAX_PROJECTS_NAME_CHARS} characters after trimming (some routes print fewer: a longer name is refused with name_too_long before any credit is reserved, never shortened).`,
  }),
  company: Type.String({ maxLength: MAX_PROJECTS_NAME_CHARS, description: "Optional company line." }),
  line1: addressText("line1", "First street line. Required."),
  line2: addressText("line2", "Second street line."),
  city: addressText("city", "City. Required."),
  state: addressText(
    "state",
    "State or province: required for US and CA, as its code or full name (normalised to the code).",
  ),
  postal_code: addressText(
    "postal_code",
    "ZIP or postal code. Required; a US ZIP is 12345 or 12345-6789, a Canadian code A1A 1A1.",
  ),
  countryCode: COUNTRY,
};

/** A field required under its name or any of its aliases. */
const requiredAliased = (field: keyof typeof PROJECTS_ADDRESS_ALIASES) => ({
  anyOf: [field, ...PROJECTS_ADDRESS_ALIASES[field]].map((name) => ({ required: [name] })),
});

/**
 * The address object of spec 3 (parseProjectsAddress): each field under its name or one of its aliases (sending two
 * that differ is conflicting_alias); name, line1, city and postal_code required.
 */
export const Address = Type.Unsafe<Record<string, string>>({
  type: "object",
  properties: Object.fromEntries(
    Object.entries(PROJECTS_ADDRESS_ALIASES).flatMap(([field, aliases]) => {
      const schema = ADDRESS_FIELDS[field as keyof typeof PROJECTS_ADDRESS_ALIASES];
      return [field, ...aliases].map((name) => [name, schema]);
    }),
  ),
  required: ["name"],
  allOf: (["line1", "city", "postal_code"] as const).map(requiredAliased),
  additionalProperties: false,
  description: `A sender or recipient. Aliases: ${Object.entries(PROJECTS_ADDRESS_ALIASES)
    .filter(([, aliases]) => aliases.length > 0)
    .map(([field, aliases]) => `${field} (${aliases.join(", ")})`)
    .join("; ")}. Unknown fields are refused.`,
});

/** The metadata map of an order or a send. */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: "object",
  maxProperties: MAX_METADATA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_METADATA_KEY_CHARS },
  additionalProperties: { type: "string", maxLength: MAX_METADATA_VALUE_CHARS },
  description: `Stored on the order and returned in reads and webhooks: at most ${MAX_METADATA_KEYS} keys of 1 to ${MAX_METADATA_KEY_CHARS} characters, each a string of at most ${MAX_METADATA_VALUE_CHARS} characters.`,
});

const PARTIES = {
  recipient: ref("Address"),
  sender: ref("Address"),
  metadata: Type.Optional(ref("Metadata")),
};

/** The fields of POST /letters and /postcards (parseCreateOrderBody, then the quote's route). */
const ORDER_FIELDS = {
  quote_id: Type.String({
    minLength: 1,
    maxLength: MAX_PROJECTS_ID_CHARS,
    description: "The quote's quote_id: unused and unexpired, of this kind of mail.",
  }),
  ...PARTIES,
};

export const CreateOrderBody = Type.Object(ORDER_FIELDS, {
  ...CLOSED,
  description:
    "An order from a quote. The recipient must be in the quote's destination country and the sender, required as the envelope's return address, in its origin country. Unknown fields are refused.",
});

/** The letter options a template send takes: a letter quote's, without its document. */
const {
  document_id: _document,
  page_count: _pages,
  standalone_address_page: _standalone,
  ...SEND_OPTIONS
} = LetterQuoteBody.properties;

/** The fields of POST /templates/{template_id}/send (the core's template send rules). */
const TEMPLATE_SEND_FIELDS = {
  variables: Type.Optional(TemplateValues),
  version: Type.Optional(
    Type.Integer({ minimum: 1, description: "The template version to merge; default the current one." }),
  ),
  ...PARTIES,
  ...SEND_OPTIONS,
};

export const TemplateSendBody = Type.Object(TEMPLATE_SEND_FIELDS, {
  ...CLOSED,
  description:
    "One letter from a template: the values of its variables (a missing required one is refused at variables.<name>), the addresses, and a letter quote's mail options; destination_country_code and origin_country_code default to the recipient's and the sender's countries.",
});

/** The fields of POST /handwritten (parseHandwrittenRequest and the order address rules). */
const HANDWRITTEN_FIELDS = { ...HandwrittenFields, ...PARTIES };

export const HandwrittenBody = Type.Object(HANDWRITTEN_FIELDS, {
  ...CLOSED,
  description:
    "A handwritten card: the message in a handwriting style, mailed from the sender's country to the recipient's.",
});

const draftOf = (types: readonly string[], fields: Record<string, TSchema>, description: string) =>
  Type.Object({ type: enumOf(types), ...fields }, { ...CLOSED, description });

/** POST /drafts: `type` and the body of that type's send. */
export const DraftBody = Type.Union(
  [
    draftOf(
      ["letter", "postcard"],
      ORDER_FIELDS,
      "A letter or postcard: the body of POST /letters or /postcards.",
    ),
    draftOf(
      ["template"],
      {
        template_id: Type.String({ minLength: 1, description: "The template to send." }),
        ...TEMPLATE_SEND_FIELDS,
      },
      "A template send: the template and the body of POST /templates/{template_id}/send.",
    ),
    draftOf(["handwritten"], HANDWRITTEN_FIELDS, "A handwritten card: the body of POST /handwritten."),
  ],
  {
    description:
      "A draft: its type and the body of that type's send. A type the deployment does not offer is refused at type.",
  },
);

/**
 * Every field a draft of any type takes, each nullable: a PATCH names the fields it changes (null removes one); its
 * type may be repeated, never changed.
 */
const PATCH_FIELDS = {
  type: Type.Optional(enumOf(DRAFT_TYPE_NAMES, "The draft's own type: it cannot change.")),
  ...Object.fromEntries(
    Object.entries({
      template_id: Type.String({ minLength: 1 }),
      ...ORDER_FIELDS,
      ...TEMPLATE_SEND_FIELDS,
      ...HANDWRITTEN_FIELDS,
    }).map(([field, schema]) => [field, Type.Optional(orNull(schema))]),
  ),
};

export const DraftPatchBody = Type.Object(PATCH_FIELDS, {
  ...CLOSED,
  minProperties: 1,
  description:
    "The fields of the draft's body to change; null removes an optional one, and type cannot change. The result is checked as a whole, as a new draft of its type is, and saved as the next revision.",
});

/** The body of the draft actions (request-approval, withdraw, discard, refresh, release): none, or an empty object. */
export const NoFieldsBody = Type.Object({}, { ...CLOSED, description: "No fields: send no body, or {}." });

/** The limits of documents a deployment takes. */
export interface DocumentLimits {
  maxPdfBytes: number;
  maxPdfPages: number;
}

/** POST /documents/upload-intent (the core's upload intent rules). */
export const uploadIntentBody = (limits: DocumentLimits) =>
  Type.Object(
    {
      content_type: Type.Literal("application/pdf", { description: "Documents are PDFs." }),
      byte_size: Type.Integer({
        minimum: 1,
        maximum: limits.maxPdfBytes,
        description: "The PDF's exact size in bytes: the upload must have this Content-Length.",
      }),
      page_count: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: limits.maxPdfPages,
          description: "The PDF's page count; checked again at completion.",
        }),
      ),
    },
    { ...CLOSED, description: "An upload intent: what will be PUT to the upload URL." },
  );

/** POST /documents/{document_id}/complete: other fields are ignored. */
export const completeBody = (limits: DocumentLimits) =>
  Type.Object(
    {
      page_count: Type.Integer({
        minimum: 1,
        maximum: limits.maxPdfPages,
        description: "The uploaded PDF's page count, checked by its preflight.",
      }),
    },
    { description: "Completes an uploaded document." },
  );

const creditAmount = (description: string) =>
  Type.Integer({ ...CREDIT_AMOUNT_CENTS, description: `${description} Integer cents, 100 to 100000.` });

const MODE = (description: string) => Type.Optional(enumOf(["test", "live"], description));

/** POST /credits/checkout-session. */
export const TopUpBody = Type.Object(
  { amount_cents: creditAmount("What the person pays into the key's mode's credits.") },
  { ...CLOSED, description: "A hosted top-up of the key's mode's credits." },
);

/** POST /credits/payment-methods/setup-session: the body may be left out. */
export const SetupSessionBody = Type.Object(
  {
    mode: MODE("The mode the card is saved for; default the key's. A live setup live-enables the workspace."),
  },
  { ...CLOSED, description: "A hosted page where a person saves a card." },
);

/** POST /credits/auto-refill. */
export const AutoRefillBody = Type.Object(
  {
    mode: MODE("The mode refilled; default the key's. A test key sets test refills only."),
    enabled: Type.Optional(Type.Boolean({ description: "Default true; enabling needs a saved card." })),
    threshold_cents: creditAmount("Refill when the available credits fall below this."),
    refill_amount_cents: creditAmount("What the default card is charged, once per fall below the threshold."),
  },
  { ...CLOSED, description: "The automatic refill of a mode's credits." },
);

/** POST /webhook-endpoints (the core's receiver URL rules). */
export const WebhookEndpointBody = Type.Object(
  {
    url: Type.String({
      format: "uri",
      pattern: "^[Hh][Tt][Tt][Pp][Ss]://",
      maxLength: 2048,
      description:
        "The absolute https URL that receives the events, at most 2048 characters, without user name, password or #fragment.",
    }),
    ed25519: Type.Optional(
      Type.Boolean({ description: "Also sign deliveries with ed25519 (a v1a signature); default false." }),
    ),
  },
  { ...CLOSED, description: "A webhook endpoint: one endpoint receives the events of both modes." },
);

/** POST /api-keys/rotate (rotateRequest in routes/keys.ts). */
export const RotateKeyBody = Type.Object(
  {
    mode: enumOf(["test", "live"], "The mode of the new key."),
    permissions: Type.Optional(
      Type.Array(enumOf(PERMISSIONS), {
        minItems: 1,
        maxItems: MAX_ROTATION_PERMISSIONS,
        description:
          "The new key's permissions, no more than the calling key holds; default the calling key's.",
      }),
    ),
  },
  {
    ...CLOSED,
    description: "A key rotation. Unknown fields are refused, so a misspelt permissions never widens a key.",
  },
);

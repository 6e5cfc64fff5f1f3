import { DraftOrderRequest, MAIL_OPTION_FIELDS, UUID_PATTERN } from "@mailpiece/orders";
import { type TSchema, Type } from "typebox";
import { MAILPIECE_ITEM_ID, MAILPIECE_MEMBER, SPT_HANDLER_ID } from "./protocol.ts";

const draft = DraftOrderRequest.properties;

/** The fields of the mail order member: a PDF, two address-search parties and the mail options. */
export const MAILPIECE_FIELDS = [
  "pdf",
  "file_name",
  "mailpiece_type",
  "postcard_size",
  "sender_name",
  "sender_address_type",
  "sender_address_id",
  "sender_address_text",
  "recipient_name",
  "recipient_address_type",
  "recipient_address_id",
  "recipient_address_text",
  ...MAIL_OPTION_FIELDS,
] as const satisfies readonly (keyof typeof draft)[];

/**
 * The mail order member. Its fields are those of a machine order, and the core checks them as it checks one; only
 * PDF orders with Address-type parties travel through UCP.
 */
export const MailpieceMember = Type.Object(
  Object.fromEntries(MAILPIECE_FIELDS.map((field) => [field, draft[field]])) as Record<string, TSchema>,
  {
    additionalProperties: true,
    description: `The mail order: pdf ({upload_token} from svc.create_pdf_upload at /mcp, or a data:application/pdf;base64 URL), sender and recipient as *_name with *_address_type "Address", *_address_id and *_address_text from svc.search_addresses (type Address only), and the mail options of a machine order (mail_class, color, double_sided, certified...). Manual addresses, letter text and forms are not taken here: use the svc.create_*_order_draft tools at /mcp for those.`,
  },
);

const Id = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The checkout's id, as create_checkout gave it.",
});
const IdempotencyKey = (required: boolean) =>
  Type.String({
    pattern: UUID_PATTERN,
    description: `A UUID${required ? "" : " (optional)"} for retry safety: a retry with the same key and the same arguments returns the same result and never charges twice; the same key with other arguments is refused with idempotency_conflict.`,
  });

const LineItem = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 128 })),
    item: Type.Object(
      { id: Type.String({ minLength: 1, maxLength: 128 }) },
      {
        additionalProperties: true,
        description: `The item: "${MAILPIECE_ITEM_ID}", the mail order of this checkout.`,
      },
    ),
    quantity: Type.Integer({ description: "1: a checkout mails one piece." }),
  },
  { additionalProperties: true },
);
const LineItems = Type.Array(LineItem, {
  minItems: 1,
  maxItems: 10,
  description: `Exactly one line item, {item: {id: "${MAILPIECE_ITEM_ID}"}, quantity: 1}: the piece that ${MAILPIECE_MEMBER} describes.`,
});

const Buyer = Type.Object(
  {
    email: Type.Optional(Type.String({ format: "email", maxLength: 256 })),
    first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    phone_number: Type.Optional(Type.String({ maxLength: 32 })),
  },
  {
    additionalProperties: false,
    description: "Who pays: first_name and email are needed to complete; the receipt goes to the email.",
  },
);

/** A payment instrument for the shared-payment-token handler. The token is never shown back. */
export const SharedPaymentTokenInstrument = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    handler_id: Type.String({ description: `"${SPT_HANDLER_ID}"` }),
    type: Type.String({ maxLength: 64, description: 'The instrument type, e.g. "card".' }),
    credential: Type.Optional(
      Type.Object(
        {
          type: Type.String({ maxLength: 64, description: '"shared_payment_token"' }),
          token: Type.Optional(
            Type.String({ pattern: "^spt_", maxLength: 256, description: "The shared payment token." }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
    selected: Type.Optional(Type.Boolean()),
    billing_address: Type.Optional(Type.Object({}, { additionalProperties: true })),
    display: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

const Payment = Type.Object(
  {
    instruments: Type.Optional(Type.Array(SharedPaymentTokenInstrument, { maxItems: 10 })),
    selected_instrument_id: Type.Optional(Type.String({ maxLength: 128 })),
  },
  { additionalProperties: true },
);

const Currency = Type.String({ minLength: 3, maxLength: 3, description: "USD: prices are in US cents." });

/** create_checkout: the checkout's fields at the top level of the arguments (UCP 2026-01-11 MCP binding). */
export const CreateCheckoutInput = Type.Object(
  {
    line_items: LineItems,
    [MAILPIECE_MEMBER]: MailpieceMember,
    buyer: Type.Optional(Buyer),
    currency: Type.Optional(Currency),
    payment: Type.Optional(Payment),
    idempotency_key: Type.Optional(IdempotencyKey(false)),
  },
  { additionalProperties: true },
);

export const GetCheckoutInput = Type.Object({ id: Id }, { additionalProperties: false });

export const UpdateCheckoutInput = Type.Object(
  {
    id: Id,
    line_items: Type.Optional(LineItems),
    [MAILPIECE_MEMBER]: Type.Optional(MailpieceMember),
    buyer: Type.Optional(Buyer),
    currency: Type.Optional(Currency),
    payment: Type.Optional(Payment),
  },
  { additionalProperties: true },
);

export const CompleteCheckoutInput = Type.Object(
  {
    id: Id,
    idempotency_key: IdempotencyKey(true),
    payment: Type.Optional(Payment),
    payment_data: Type.Optional(SharedPaymentTokenInstrument),
    buyer: Type.Optional(Buyer),
  },
  { additionalProperties: true },
);

export const CancelCheckoutInput = Type.Object(
  { id: Id, idempotency_key: IdempotencyKey(true) },
  { additionalProperties: true },
);

/** The configuration schema of the shared-payment-token handler, served at /ucp/schemas. */
export const SharedPaymentTokenConfig = Type.Object(
  {
    currency: Type.Literal("USD"),
    simulated: Type.Boolean({
      description:
        "True when no money moves: the tokens spt_test_ok, spt_test_declined and spt_test_3ds are taken.",
    }),
  },
  { additionalProperties: false, title: "Shared payment token handler configuration" },
);

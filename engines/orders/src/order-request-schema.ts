import Type, { type Static } from "typebox";
import { BulkObject } from "./bulk-schema.ts";
import { FormPayload } from "./form-schema.ts";
import { LetterFormatSchema, LetterSource } from "./letter-schema.ts";
import { ManualAddress } from "./manual-address-schema.ts";
import { PdfSource } from "./pdf-source-schema.ts";
import { UUID_PATTERN } from "./request-id.ts";
import { StringEnum } from "./schema-helpers.ts";

export const MAIL_CLASSES = ["standard", "priority", "express"] as const;
export const MAILPIECE_TYPES = ["letter", "postcard"] as const;
export const POSTCARD_SIZES = ["4x6", "6x9", "11x6"] as const;
export const ADDRESS_TYPES = ["Address", "Manual"] as const;
export const RETURN_RECEIPT_FORMATS = ["electronic", "physical"] as const;
export const ERR_DELIVERIES = ["manual", "email"] as const;

/** Leading segment of an address id: two to four letters (the country), a vertical bar, then the rest. */
export const ADDRESS_ID_PATTERN = "^[A-Za-z]{2,4}\\|.+";

const Name = (who: string) =>
  Type.String({ minLength: 1, maxLength: 256, description: `${who}. 1 to 256 characters.` });

const addressType = (party: "sender" | "recipient") =>
  Type.Optional(
    StringEnum(ADDRESS_TYPES, {
      description: `Address strategy of the ${party}: Address (${party}_address_id plus ${party}_address_text, from address search) or Manual (${party}_address_manual). When omitted, Address is assumed if ${party}_address_manual is absent, Manual otherwise. Exactly one strategy per party.`,
    }),
  );

const addressId = (party: "sender" | "recipient") =>
  Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: ADDRESS_ID_PATTERN,
      description: `Address search id of the ${party}: the id of a suggestion of type Address from address search (svc.search_addresses); two to four letters (the country, alpha-2 or alpha-3, an allowed country), a vertical bar, then the provider's id. 1 to 512 characters. Required in Address mode. The deployment's address provider looks it up and the structured address it names is what prints; an id it does not know is refused with address_not_found, and a deployment without address search refuses Address mode with address_mode_unavailable.`,
    }),
  );

const addressText = (party: "sender" | "recipient") =>
  Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description: `Human-readable ${party} address as returned by address search. 1 to 2000 characters. Required in Address mode. Shown back to the client; the printed lines come from the address the id names.`,
    }),
  );

/** The order request of the machine API (validate and create, x402 and MPP). */
export const OrderRequest = Type.Object(
  {
    request_id: Type.String({
      format: "uuid",
      pattern: UUID_PATTERN,
      description:
        "Client-generated idempotency key for one logical mailing, a UUID in canonical form (8-4-4-4-12 hexadecimal digits). A retry after 402 reuses it with a byte-for-byte identical body.",
    }),
    buyer_name: Type.Optional(Name("Buyer display name")),
    buyer_email: Type.String({
      format: "email",
      maxLength: 256,
      description: "Buyer email, needed for receipt delivery. At most 256 characters.",
    }),
    pdf: Type.Optional(PdfSource),
    form: Type.Optional(FormPayload),
    letter: Type.Optional(LetterSource),
    format: Type.Optional(LetterFormatSchema),
    file_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: "Optional display name. 1 to 255 characters.",
      }),
    ),
    sender_name: Name("Sender name, printed on the return address"),
    sender_address_type: addressType("sender"),
    sender_address_id: addressId("sender"),
    sender_address_text: addressText("sender"),
    sender_address_manual: Type.Optional(ManualAddress),
    recipient_name: Type.Optional(Name("Recipient name. Required for single orders; not allowed with bulk")),
    recipient_address_type: addressType("recipient"),
    recipient_address_id: addressId("recipient"),
    recipient_address_text: addressText("recipient"),
    recipient_address_manual: Type.Optional(ManualAddress),
    double_sided: Type.Optional(
      Type.Boolean({ default: true, description: "Print on both sides. Default true." }),
    ),
    color: Type.Optional(Type.Boolean({ default: false, description: "Print in color. Default false." })),
    mail_class: Type.Optional(
      StringEnum(MAIL_CLASSES, {
        default: "standard",
        description:
          "standard, priority or express. Default standard. Priority and express do not combine with certified.",
      }),
    ),
    certified: Type.Optional(
      Type.Boolean({ default: false, description: "Proof mail (US Certified Mail). Default false." }),
    ),
    certified_return_receipt: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Adds a return receipt for US Certified Mail. Requires certified. Default false. Certified mail to a recipient outside the US travels as registered mail, which has no return receipt: there it is ignored (false in the normalised options, with an option_ignored warning), and so are return_receipt_format physical and err_delivery email.",
      }),
    ),
    return_receipt_format: Type.Optional(
      StringEnum(RETURN_RECEIPT_FORMATS, {
        default: "electronic",
        description:
          "electronic (default) or physical (mailed green card). physical requires certified_return_receipt true; the default may always be sent.",
      }),
    ),
    restricted_delivery: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Addressee-only delivery. true requires certified_return_receipt true, and is sold with US Certified Mail only (not with registered mail to a recipient outside the US). Default false.",
      }),
    ),
    err_delivery: Type.Optional(
      StringEnum(ERR_DELIVERIES, {
        default: "manual",
        description:
          "manual (default) or email (the service acquires and emails the signed electronic receipt). email requires certified_return_receipt true and an electronic receipt.",
      }),
    ),
    err_email: Type.Optional(
      Type.String({
        format: "email",
        maxLength: 256,
        description:
          "Where the electronic receipt goes when err_delivery is email; defaults to buyer_email. At most 256 characters.",
      }),
    ),
    signature_required: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "Signature on delivery. Default false. Ignored (with a warning) for postcards and when mail_class is standard.",
      }),
    ),
    mailpiece_type: Type.Optional(
      StringEnum(MAILPIECE_TYPES, {
        default: "letter",
        description:
          "letter (default) or postcard. Postcards take a pdf and are normalised to standard mail, full color, double-sided, no proof-mail or signature options.",
      }),
    ),
    postcard_size: Type.Optional(
      StringEnum(POSTCARD_SIZES, {
        description: "4x6, 6x9 or 11x6. Required when mailpiece_type is postcard.",
      }),
    ),
    bulk: Type.Optional(BulkObject),
  },
  {
    additionalProperties: false,
    title: "OrderRequest",
    description:
      "A machine order. Unknown top-level properties are rejected. A single-recipient order carries exactly one document source: pdf, form or letter. A bulk order carries bulk instead of recipient name, recipient address fields and document source. Every order needs the sender name and address.",
  },
);

export type OrderRequest = Static<typeof OrderRequest>;

/**
 * An order draft (spec 1: the draft tools): the order request of one mailpiece whose buyer is named later, on the
 * hosted checkout page. The same fields and rules as OrderRequest, except that buyer_name and buyer_email are
 * optional.
 */
export const DraftOrderRequest = Type.Object(
  { ...OrderRequest.properties, buyer_email: Type.Optional(OrderRequest.properties.buyer_email) },
  {
    additionalProperties: false,
    title: "DraftOrderRequest",
    description:
      "An order draft: the order request of one mailpiece, paid later on a hosted checkout page by a buyer who gives their name and email there.",
  },
);

import Type, { type Static } from "typebox";
import { ERR_DELIVERIES, POSTCARD_SIZES, RETURN_RECEIPT_FORMATS } from "./order-request-schema.ts";
import { StringEnum } from "./schema-helpers.ts";

/**
 * The mail_class values of the Projects API (spec 3): the engine's three classes and their carrier names, in the
 * neutral form (carrier_...) and the live form (usps_...). Each names one class of MAIL_CLASSES.
 */
export const PROJECTS_MAIL_CLASSES = [
  "standard",
  "carrier_first_class",
  "usps_first_class",
  "priority",
  "carrier_priority",
  "usps_priority",
  "express",
  "carrier_express",
  "usps_express",
] as const;

export type ProjectsMailClass = (typeof PROJECTS_MAIL_CLASSES)[number];

/** Chosen: the longest document_id (and quote_id) the Projects API takes. */
export const MAX_PROJECTS_ID_CHARS = 128;

const DocumentId = Type.String({
  minLength: 1,
  maxLength: MAX_PROJECTS_ID_CHARS,
  description: "The uploaded and completed PDF document. 1 to 128 characters.",
});

const PageCount = Type.Optional(
  Type.Integer({
    minimum: 1,
    description: "Explicit page count of the document; makes pricing deterministic. At least 1.",
  }),
);

const CountryCodeField = (which: string) =>
  Type.Optional(
    Type.String({
      minLength: 2,
      maxLength: 2,
      default: "US",
      description: `ISO 3166-1 alpha-2 code of the ${which}, any case. Default US. Supported: US, CA, AT, BE, CH, DE, ES, FR, GB, IN, LU, NL.`,
    }),
  );

/** The letter options, with their types; which values are available is decided by the request's rules. */
const letterOptionFields = {
  mail_class: Type.Optional(
    StringEnum(PROJECTS_MAIL_CLASSES, {
      default: "usps_first_class",
      description:
        "First class (standard, carrier_first_class, usps_first_class), priority (priority, carrier_priority, usps_priority) or express (express, carrier_express, usps_express). Default first class. Priority and express do not combine with certified.",
    }),
  ),
  color: Type.Optional(Type.Boolean({ default: false, description: "Print in color. Default false." })),
  double_sided: Type.Optional(
    Type.Boolean({ default: true, description: "Print on both sides. Default true." }),
  ),
  standalone_address_page: Type.Optional(
    Type.Boolean({
      description:
        "Keep the inserted address page on its own sheet for duplex letters. Default: the workspace setting; the resolved value is fixed on the quote.",
    }),
  ),
  certified: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "Proof mail: U.S. certified mail to US, registered mail to CA, BE, CH, ES and FR; not available to other destinations. Default false.",
    }),
  ),
  certified_return_receipt: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "Return receipt of U.S. certified mail (destination US only). Requires certified. Default false.",
    }),
  ),
  return_receipt_format: Type.Optional(
    StringEnum(RETURN_RECEIPT_FORMATS, {
      default: "electronic",
      description: "electronic (default) or physical. physical requires certified_return_receipt true.",
    }),
  ),
  restricted_delivery: Type.Optional(
    Type.Boolean({
      default: false,
      description: "Addressee-only delivery. true requires certified_return_receipt true. Default false.",
    }),
  ),
  err_delivery: Type.Optional(
    StringEnum(ERR_DELIVERIES, {
      default: "manual",
      description:
        "manual (default) or email (the service acquires, stores and emails the signed receipt). email requires certified_return_receipt true and does not go with physical receipts.",
    }),
  ),
  err_email: Type.Optional(
    Type.String({
      format: "email",
      maxLength: 256,
      description:
        "Where the electronic receipt is emailed; only with err_delivery email. Default the account email. At most 256 characters.",
    }),
  ),
  signature_required: Type.Optional(
    Type.Boolean({
      default: false,
      description: "Signature on delivery: U.S. priority and express letters only. Default false.",
    }),
  ),
};

/** The letter quote request of the Projects API (POST /api/v1/letters/quotes). */
export const LetterQuoteBody = Type.Object(
  {
    document_id: DocumentId,
    page_count: PageCount,
    ...letterOptionFields,
    destination_country_code: CountryCodeField("destination"),
    origin_country_code: CountryCodeField("origin"),
  },
  {
    additionalProperties: false,
    title: "LetterQuoteBody",
    description:
      "A letter quote request. Unknown properties are rejected, and an option that is not available for the destination is a validation error, never a silent change.",
  },
);

export type LetterQuoteBody = Static<typeof LetterQuoteBody>;

/** The postcard quote request of the Projects API (POST /api/v1/postcards/quotes). */
export const PostcardQuoteBody = Type.Object(
  {
    document_id: DocumentId,
    page_count: PageCount,
    postcard_size: StringEnum(POSTCARD_SIZES, { description: "4x6, 6x9 or 11x6." }),
    ...letterOptionFields,
    destination_country_code: CountryCodeField("destination"),
    origin_country_code: CountryCodeField("origin"),
  },
  {
    additionalProperties: false,
    title: "PostcardQuoteBody",
    description:
      "A postcard quote request. Postcards are quoted first-class, in color and double-sided, without proof mail: a letter option is accepted only with that value (its default, or color and double_sided true).",
  },
);

export type PostcardQuoteBody = Static<typeof PostcardQuoteBody>;

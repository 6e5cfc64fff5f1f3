import Type, { type Static } from "typebox";

/** The longest card note, in characters (Unicode code points; spec 1, Limits). */
export const MAX_CARD_NOTE_CHARS = 200;

/** A phone number as people write it: an optional +, digits, spaces, dots, dashes and brackets. */
export const PHONE_PATTERN = "^\\+?[0-9(][0-9 ().-]*[0-9]$";
/** An upper-case ISO 3166-1 alpha-2 country code. */
export const COUNTRY_PATTERN = "^[A-Z]{2}$";
/** A florist product code: letters, digits, `-` and `_`, starting with a letter or digit. */
export const PRODUCT_CODE_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

const text = (min: number, max: number, description: string) =>
  Type.String({ minLength: min, maxLength: max, description: `${description} ${min} to ${max} characters.` });

const phone = (description: string) =>
  Type.String({
    minLength: 7,
    maxLength: 32,
    pattern: PHONE_PATTERN,
    description: `${description} Digits with an optional leading +, spaces, dots, dashes and brackets, at most 32 characters: a number of the party's country with its area code, e.g. (217) 555-0142, or an international number, e.g. +44 20 7946 0958. No extension. Kept in E.164.`,
  });

const country = (party: string) =>
  Type.Optional(
    Type.String({
      pattern: COUNTRY_PATTERN,
      default: "US",
      description: `Country of the ${party}: upper-case ISO 3166-1 alpha-2 code. Default US.`,
    }),
  );

/** `recipient`: who receives the flowers. Every field but `country` is required; no other properties. */
export const FlowerRecipient = Type.Object(
  {
    name: text(1, 256, "Recipient name, written on the card envelope."),
    phone: phone("Recipient phone; the driver calls it when nobody answers the door."),
    address1: text(1, 256, "Street address, with apartment or suite."),
    city: text(1, 128, "City or town."),
    state: text(1, 60, "State, province or region."),
    zipcode: text(1, 20, "Postal code; the same ZIP as the top-level zipcode (a ZIP+4 suffix aside)."),
    country: country("recipient"),
  },
  {
    additionalProperties: false,
    title: "FlowerRecipient",
    description:
      "Who receives the flowers. Required: name, phone, address1, city, state, zipcode. No other properties.",
  },
);
export type FlowerRecipient = Static<typeof FlowerRecipient>;

/** `customer`: who sends them, the florist's contact. Only `name` is required; no other properties. */
export const FlowerCustomer = Type.Object(
  {
    name: text(1, 256, "Customer name: who sends the flowers, signed on the order."),
    phone: Type.Optional(
      phone("Customer phone, for the florist's questions about substitutions or delivery."),
    ),
    address1: Type.Optional(text(1, 256, "Customer street address.")),
    city: Type.Optional(text(1, 128, "Customer city.")),
    state: Type.Optional(text(1, 60, "Customer state, province or region.")),
    zipcode: Type.Optional(text(1, 20, "Customer postal code.")),
    country: country("customer"),
    email: Type.Optional(
      Type.String({
        format: "email",
        maxLength: 256,
        description:
          "Customer email for the florist's questions. At most 256 characters. Default buyer_email.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "FlowerCustomer",
    description:
      "Who sends the flowers: the florist's contact. Required: name. Address fields are optional; country defaults to US and email to buyer_email. No other properties.",
  },
);
export type FlowerCustomer = Static<typeof FlowerCustomer>;

/** The flower-letter request of the machine API (validate and create, x402 and MPP). */
export const FlowerLetterRequest = Type.Object(
  {
    request_id: Type.String({
      format: "uuid",
      description:
        "Client-generated idempotency key for one flower letter. A retry after 402 reuses it with a byte-for-byte identical body.",
    }),
    buyer_name: Type.Optional(text(1, 256, "Buyer display name.")),
    buyer_email: Type.String({
      format: "email",
      maxLength: 256,
      description: "Buyer email, needed for receipt delivery. At most 256 characters.",
    }),
    note: Type.String({
      minLength: 1,
      maxLength: MAX_CARD_NOTE_CHARS,
      description: `The card note, printed on the card that goes with the flowers. 1 to ${MAX_CARD_NOTE_CHARS} characters (Unicode code points); not blank.`,
    }),
    zipcode: text(1, 20, "ZIP code the flowers are delivered to; checked against the florist's coverage."),
    product_code: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: PRODUCT_CODE_PATTERN,
      description:
        "Florist product code from the catalogue: letters, digits, '-' and '_', 1 to 64 characters. Checked before the 402.",
    }),
    delivery_date: Type.String({
      format: "date",
      description:
        "Delivery date, YYYY-MM-DD, in the florist's calendar. Must be one of the florist's available dates for the product and ZIP; checked before the 402.",
    }),
    customer: FlowerCustomer,
    recipient: FlowerRecipient,
    allow_substitutions: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "Whether the florist may replace flowers that are out of season with others of the same style and value. Default true.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "FlowerLetterRequest",
    description:
      "A flower letter: a florist product delivered with a card note. Required: request_id, buyer_email, note, zipcode, product_code, delivery_date, customer, recipient. Unknown properties are rejected. The product, ZIP coverage, delivery date and final quote (1.00 to 250.00) are validated before the 402 challenge.",
  },
);
export type FlowerLetterRequestBody = Static<typeof FlowerLetterRequest>;

import Type, { type Static } from "typebox";
import { COUNTRY_CODE_VALUES } from "./countries.ts";
import { StringEnum } from "./schema-helpers.ts";

/** `sender_address_manual` / `recipient_address_manual`: an address typed in by the client. */
export const ManualAddress = Type.Object(
  {
    line1: Type.String({ minLength: 1, maxLength: 256, description: "Street address. 1 to 256 characters." }),
    line2: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: "Apartment, suite, floor. 1 to 256 characters.",
      }),
    ),
    city: Type.String({ minLength: 1, maxLength: 128, description: "City or town. 1 to 128 characters." }),
    state: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 60,
        description:
          "State, province or region. 1 to 60 characters. Required for US and CA: a USPS state, territory or military code (IL, DC, PR, AE) or a Canada Post province or territory code (ON, BC), or its full name in any case (Illinois, british columbia); normalised to the code.",
      }),
    ),
    zip: Type.String({
      minLength: 1,
      maxLength: 20,
      description: "Postal code. 1 to 20 characters. US: 12345 or 12345-6789. CA: A1A 1A1.",
    }),
    countryCode: Type.Optional(
      StringEnum(COUNTRY_CODE_VALUES, {
        default: "US",
        description:
          "ISO 3166-1 alpha-2 country code. Default US: an address without it is a US address, so every address outside the US must state it.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "ManualAddress",
    description:
      "An address given field by field (Manual mode). No extra properties. Required: line1, city, zip.",
  },
);

export type ManualAddress = Static<typeof ManualAddress>;

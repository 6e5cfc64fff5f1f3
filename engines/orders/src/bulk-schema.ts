import Type, { type Static } from "typebox";
import { MAX_CAMPAIGN_ROWS, MAX_CSV_BYTES, MAX_LETTER_CHARS, MAX_TEMPLATE_HTML_CHARS } from "./limits.ts";
import { PdfSource } from "./pdf-source-schema.ts";
import { StringEnum } from "./schema-helpers.ts";

export const CONTENT_MODES = ["text", "html", "pdf"] as const;
export type ContentMode = (typeof CONTENT_MODES)[number];

/** `bulk`: a campaign with one mailed item per CSV row. */
export const BulkObject = Type.Object(
  {
    campaign_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "Display name of the campaign. 1 to 200 characters.",
      }),
    ),
    csv_content: Type.String({
      minLength: 1,
      maxLength: MAX_CSV_BYTES,
      description: `The recipient CSV, at most ${MAX_CSV_BYTES} bytes (50 MB) and ${MAX_CAMPAIGN_ROWS} data rows. A header row names the columns: recipient_name, line1, city and zip are required; line2, state and a country column (country, country_code or countrycode; alpha-2 or alpha-3, default US) are optional; other columns are kept for the template. Blank lines are skipped. Rows with problems are reported and left out; the campaign is refused only when no row is valid.`,
    }),
    content_mode: StringEnum(CONTENT_MODES, {
      description:
        "text: template_text is the letter; html: template_html is the letter; pdf: the same `pdf` for every row.",
    }),
    template_text: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_LETTER_CHARS,
        description:
          "Letter text with {{column}} placeholders naming CSV columns (case-insensitive). Required in text mode. 1 to 20000 characters.",
      }),
    ),
    template_html: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TEMPLATE_HTML_CHARS,
        description:
          "Letter HTML with {{column}} placeholders. Required in html mode. 1 to 100000 characters.",
      }),
    ),
    pdf: Type.Optional(PdfSource),
  },
  {
    additionalProperties: false,
    title: "BulkObject",
    description:
      "A bulk campaign. Replaces recipient_name, the recipient address fields and the document source (pdf, form, letter, format); the sender fields stay required. No other properties.",
  },
);
export type BulkObject = Static<typeof BulkObject>;

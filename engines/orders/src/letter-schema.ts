import Type, { type Static } from "typebox";
import {
  base64Chars,
  MAX_LETTER_CHARS,
  MAX_LETTER_TITLE_CHARS,
  MAX_SIGNATURE_IMAGE_BYTES,
  MAX_SIGNATURE_TEXT_CHARS,
} from "./limits.ts";
import { StringEnum } from "./schema-helpers.ts";

export const LETTER_FORMATS = ["text", "html", "markdown", "rtf"] as const;
export type LetterFormat = (typeof LETTER_FORMATS)[number];

/** `letter.format` and the top-level shorthand `format`. */
export const LetterFormatSchema = StringEnum(LETTER_FORMATS, {
  default: "text",
  description: "How the letter body is written: text, html, markdown or rtf. Default text.",
});

/** `letter.render`: page set-up of a server-rendered letter. */
export const LetterRender = Type.Object(
  {
    paper: Type.Optional(
      StringEnum(["letter"], { default: "letter", description: "Paper size. Only letter." }),
    ),
    font_size: Type.Optional(
      Type.Integer({
        minimum: 9,
        maximum: 14,
        default: 11,
        description: "Font size in points, 9 to 14. Default 11.",
      }),
    ),
    margin_in: Type.Optional(
      Type.Number({
        minimum: 0.5,
        maximum: 1.5,
        default: 1,
        description: "Page margin in inches, 0.5 to 1.5. Default 1.",
      }),
    ),
    font: Type.Optional(
      StringEnum(["times", "helvetica"], { default: "times", description: "Typeface. Default times." }),
    ),
  },
  {
    additionalProperties: false,
    title: "LetterRender",
    description: "Page set-up of a server-rendered letter. No other properties.",
  },
);
export type LetterRender = Static<typeof LetterRender>;

const imageDataUrl = (what: string) =>
  Type.String({
    minLength: 1,
    maxLength: base64Chars(MAX_SIGNATURE_IMAGE_BYTES) + 64,
    description: `${what} as a data:image/png;base64 or data:image/jpeg;base64 URL, at most 2 MB decoded.`,
  });

const SignatureObject = Type.Object(
  {
    mode: Type.Optional(
      StringEnum(["typed", "drawn"], {
        description:
          "typed prints `text` as the signature; drawn prints the image. When omitted: drawn if an image is given, else typed.",
      }),
    ),
    text: Type.Optional(
      Type.String({
        maxLength: MAX_SIGNATURE_TEXT_CHARS,
        description:
          "The typed signature (required in typed mode), or the printed name under a drawn one. At most 2000 characters.",
      }),
    ),
    dataUrl: Type.Optional(imageDataUrl("The drawn signature")),
    printDataUrl: Type.Optional(imageDataUrl("A print-optimised version of the drawn signature")),
  },
  { additionalProperties: false, description: "A typed or drawn signature. No other properties." },
);

/** `letter.signature`: a typed signature string, or a typed or drawn signature object. */
export const LetterSignature = Type.Union(
  [
    Type.String({
      maxLength: MAX_SIGNATURE_TEXT_CHARS,
      description: "A typed signature, at most 2000 characters.",
    }),
    SignatureObject,
  ],
  {
    title: "LetterSignature",
    description:
      "String (max 2000, a typed signature); or {mode: typed or drawn, text (max 2000), dataUrl, printDataUrl}. A drawn signature needs dataUrl or printDataUrl (PNG or JPEG data URL); a typed one needs non-blank text.",
  },
);
export type LetterSignature = Static<typeof LetterSignature>;

/** `letter` in its object form. */
export const LetterObject = Type.Object(
  {
    title: Type.Optional(
      Type.String({
        maxLength: MAX_LETTER_TITLE_CHARS,
        description: "Optional heading. At most 200 characters.",
      }),
    ),
    body: Type.String({
      minLength: 1,
      maxLength: MAX_LETTER_CHARS,
      description: "The letter text in `format`. 1 to 20000 characters.",
    }),
    signature: Type.Optional(LetterSignature),
    format: Type.Optional(LetterFormatSchema),
    render: Type.Optional(LetterRender),
  },
  {
    additionalProperties: false,
    title: "LetterObject",
    description: "A letter rendered server-side. No other properties.",
  },
);
export type LetterObject = Static<typeof LetterObject>;

/** The `letter` property: a plain string or a LetterObject. */
export const LetterSource = Type.Union(
  [
    Type.String({
      minLength: 1,
      maxLength: MAX_LETTER_CHARS,
      description: "The letter text, 1 to 20000 characters, in the top-level `format` (default text).",
    }),
    LetterObject,
  ],
  {
    title: "LetterSource",
    description:
      "String: 1 to 20000 chars, rendered server-side, format text unless top-level `format` is set. Object: title (max 200), body (required, 1 to 20000), signature, format, render.",
  },
);

import Type, { type Static } from "typebox";
import { MAX_ATTACHMENTS } from "./limits.ts";
import { OpenObject } from "./schema-helpers.ts";

/** One inline attachment of a workflow form. */
export const FormAttachment = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The attachment slot id of the form (e.g. primary_document). 1 to 200 characters.",
    }),
    label: Type.Optional(
      Type.String({ maxLength: 256, description: "Display label. At most 256 characters." }),
    ),
    file_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: "File name. 1 to 255 characters." }),
    ),
    content_type: Type.Optional(
      Type.String({
        maxLength: 255,
        pattern: "^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*",
        description: "MIME type, optional; the MIME type of a data URL in `base64` also works.",
      }),
    ),
    base64: Type.String({
      minLength: 1,
      description:
        "The file as raw base64 or as a base64 data URL. All attachments of an order together: at most 12 MB decoded.",
    }),
  },
  {
    additionalProperties: false,
    title: "FormAttachment",
    description: "An inline attachment. No other properties.",
  },
);
export type FormAttachment = Static<typeof FormAttachment>;

/** `form`: the answers to a workflow form (document 2). */
export const FormPayload = Type.Object(
  {
    slug: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The workflow form's slug. 1 to 200 characters.",
    }),
    fields: OpenObject({
      description:
        "Answers keyed by workflow field id; compound fields use nested objects keyed by subfield id. Checked against the form's schema.",
    }),
    attachments: Type.Optional(
      Type.Array(FormAttachment, {
        maxItems: MAX_ATTACHMENTS,
        description: "Inline attachments, at most 100; at most 12 MB combined after base64 decoding.",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "FormPayload",
    description:
      "{slug, fields, attachments?}; no other properties. Workflow forms are letters, never postcards.",
  },
);
export type FormPayload = Static<typeof FormPayload>;

import { LETTER_FORMATS, LetterFormatSchema } from "@mailpiece/orders";
import Type, { type Static } from "typebox";
import { TEMPLATE_LIMITS, VARIABLE_NAME_PATTERN } from "./limits.ts";

const NAME_RULE = `a letter or _, then up to ${TEMPLATE_LIMITS.variable_name_chars - 1} letters, digits or _ (case-sensitive)`;

/** One declared variable of a template. */
export const TemplateVariableSchema = Type.Object(
  {
    name: Type.String({
      pattern: VARIABLE_NAME_PATTERN,
      description: `The name the body writes as {{name}} or {{ name }}: ${NAME_RULE}.`,
    }),
    required: Type.Optional(
      Type.Boolean({
        description:
          "Whether every merge must give a value. Default true, or false when a default is given; true together with a default is refused.",
      }),
    ),
    default: Type.Optional(
      Type.String({
        maxLength: TEMPLATE_LIMITS.value_chars,
        description: `The value used when a merge gives none. At most ${TEMPLATE_LIMITS.value_chars} characters.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    title: "TemplateVariable",
    description: "A variable of a template: its name, whether a value is required, and an optional default.",
  },
);
export type TemplateVariableSchema = Static<typeof TemplateVariableSchema>;

const nameField = Type.String({
  minLength: 1,
  maxLength: TEMPLATE_LIMITS.name_chars,
  description: `The template's name, for people. 1 to ${TEMPLATE_LIMITS.name_chars} characters, not blank.`,
});

const bodyField = Type.String({
  minLength: 1,
  maxLength: TEMPLATE_LIMITS.body_chars,
  description: `The letter text in \`format\`, with {{variable}} placeholders, each naming a declared variable. 1 to ${TEMPLATE_LIMITS.body_chars} characters.`,
});

const variablesField = Type.Array(TemplateVariableSchema, {
  maxItems: TEMPLATE_LIMITS.variables,
  description: `The variables the body may use, each name once; a declared variable need not be used. At most ${TEMPLATE_LIMITS.variables}.`,
});

/** The body of POST /api/v1/templates: a new template (its first version). */
export const TemplateBody = Type.Object(
  {
    name: nameField,
    body: bodyField,
    format: Type.Optional(LetterFormatSchema),
    variables: Type.Optional(variablesField),
  },
  {
    additionalProperties: false,
    title: "TemplateBody",
    description: `A letter template: a name, a body in one of the letter formats (${LETTER_FORMATS.join(", ")}; default text) with {{variable}} placeholders, and the variables it declares (default none). Unknown properties are refused.`,
  },
);
export type TemplateBody = Static<typeof TemplateBody>;

/** The body of PATCH /api/v1/templates/{template_id}: the fields to change, making the template's next version. */
export const TemplatePatchBody = Type.Object(
  {
    name: Type.Optional(nameField),
    body: Type.Optional(bodyField),
    format: Type.Optional(LetterFormatSchema),
    variables: Type.Optional(variablesField),
  },
  {
    additionalProperties: false,
    title: "TemplatePatchBody",
    description:
      "The fields of a template to change; at least one. The result is checked as a whole (every placeholder of the body must name a declared variable) and becomes a new version; earlier versions are kept unchanged. `variables` replaces the whole list.",
  },
);
export type TemplatePatchBody = Static<typeof TemplatePatchBody>;

/** The values of a merge: `variables` of POST /api/v1/templates/{template_id}/send and /drafts. */
export const TemplateValues = Type.Record(
  Type.String(),
  Type.Union([
    Type.String({ maxLength: TEMPLATE_LIMITS.value_chars }),
    Type.Number({ description: "Printed in its shortest form, e.g. 42 or 3.5." }),
  ]),
  {
    title: "TemplateValues",
    description: `The value of each variable, by name: a string of at most ${TEMPLATE_LIMITS.value_chars} characters, or a number. Every required variable needs a non-blank value; a variable the template does not declare is refused. Values print as text: they are escaped for the template's format and can never add markup.`,
  },
);
export type TemplateValues = Static<typeof TemplateValues>;

/** A template version as the engine keeps it: what a read of a template answers, besides the core's id and dates. */
export const TemplateVersionObject = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: "1 for a new template, one more for each update." }),
    name: Type.String(),
    body: Type.String(),
    format: LetterFormatSchema,
    variables: Type.Array(
      Type.Object(
        {
          name: Type.String({ pattern: VARIABLE_NAME_PATTERN }),
          required: Type.Boolean(),
          default: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: "The declared variables, `required` resolved." },
    ),
    placeholders: Type.Array(Type.String(), {
      description: "The variables the body uses, each once, in order of first use.",
    }),
  },
  {
    additionalProperties: false,
    title: "TemplateVersion",
    description: "One immutable version of a template.",
  },
);

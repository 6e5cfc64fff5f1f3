import Type, { type Static } from "typebox";

/** The stages at which a workflow's compliance policy is re-checked (spec 2, shared rules). */
export const COMPLIANCE_STAGES = [
  "preview",
  "approval",
  "checkout",
  "payment",
  "fulfillment",
  "machine",
] as const;
export type ComplianceStage = (typeof COMPLIANCE_STAGES)[number];

export const FIELD_TYPES = [
  "select",
  "text",
  "textarea",
  "date",
  "checkbox",
  "address",
  "signature",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Value classes a text field can be held to. */
export const TEXT_CLASSES = ["phone", "email", "currency"] as const;
export type TextClass = (typeof TEXT_CLASSES)[number];

/**
 * What an answer means. `fact` answers may have a default; `eligibility` answers decide whether the workflow
 * applies; `declaration` and `consent` answers are statements the sender makes. Eligibility answers,
 * declarations, consents and signatures are never taken from a default.
 */
export const FIELD_ROLES = ["fact", "eligibility", "declaration", "consent"] as const;
export type FieldRole = (typeof FIELD_ROLES)[number];

/** File types an attachment slot can accept, named by file extension. */
export const ATTACHMENT_TYPES = ["pdf", "png", "jpg", "jpeg"] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

export const CHECKOUT_FLOWS = ["home", "forms_order"] as const;
export const CERTIFIED_POLICIES = ["required", "optional"] as const;
export const PACKET_KINDS = ["letter", "cover_sheet"] as const;

/** A string enum as plain JSON Schema (`{type: "string", enum}`), typed as the union of its values. */
function StringEnum<const T extends readonly string[]>(values: T, description?: string) {
  return Type.Unsafe<T[number]>({
    type: "string",
    enum: [...values],
    ...(description === undefined ? {} : { description }),
  });
}

function Text(minLength: number, maxLength: number, description?: string) {
  return Type.String({ minLength, maxLength, ...(description === undefined ? {} : { description }) });
}

const SNAKE_ID = "^[a-z][a-z0-9_]{0,63}$";
const KEBAB_SLUG = "^[a-z0-9]+(?:-[a-z0-9]+)*$";

const FieldId = Type.String({
  pattern: SNAKE_ID,
  description: "A field id: snake_case, at most 64 characters.",
});
const Slug = Type.String({
  pattern: KEBAB_SLUG,
  maxLength: 100,
  description: "kebab-case, at most 100 characters.",
});

const Var = Type.Object({ var: FieldId }, { additionalProperties: false });

/**
 * A rule over the answers, in json-logic, limited to the two operators of spec 2: truthy
 * (`{"!!": [{"var": "checkbox_id"}]}`, a checked box) and equals (`{"==": [{"var": "select_id"}, "choice"]}`).
 */
export const Rule = Type.Union(
  [
    Type.Object({ "!!": Type.Union([Var, Type.Tuple([Var])]) }, { additionalProperties: false }),
    Type.Object({ "==": Type.Tuple([Var, Type.String({ minLength: 1 })]) }, { additionalProperties: false }),
  ],
  {
    description:
      'A rule: {"!!": [{"var": "checkbox_id"}]} or {"==": [{"var": "select_id"}, "exact choice"]}.',
  },
);
export type Rule = Static<typeof Rule>;

export const FieldDefinition = Type.Object(
  {
    id: FieldId,
    type: StringEnum(FIELD_TYPES),
    label: Text(1, 200),
    help: Type.Optional(Text(1, 2000)),
    required: Type.Union([Type.Boolean(), Type.Literal("when_active")], {
      description: 'true, false, or "when_active" (required while the visibility rule shows the field).',
    }),
    role: Type.Optional(StringEnum(FIELD_ROLES, "What the answer means; default fact.")),
    text_class: Type.Optional(StringEnum(TEXT_CLASSES, "text fields only: phone, email or currency.")),
    min_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    max_length: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    pattern: Type.Optional(Type.String({ format: "regex", minLength: 1, maxLength: 500 })),
    pattern_description: Type.Optional(
      Text(1, 200, "How the pattern reads to people: 'exactly four digits'."),
    ),
    choices: Type.Optional(Type.Array(Text(1, 500), { minItems: 1, maxItems: 100 })),
    visible_when: Type.Optional(Rule),
    not_in_future: Type.Optional(
      Type.Boolean({ description: "date fields only: the date is today or earlier." }),
    ),
    not_in_past: Type.Optional(
      Type.Boolean({
        description:
          "date fields only: the date is today or later (a deadline that has not passed), checked again at every stage.",
      }),
    ),
    default: Type.Optional(Type.Union([Type.String(), Type.Boolean()])),
  },
  { additionalProperties: false },
);
export type FieldDefinition = Static<typeof FieldDefinition>;

export const AttachmentSlot = Type.Object(
  {
    id: FieldId,
    label: Text(1, 200),
    help: Type.Optional(Text(1, 2000)),
    required: Type.Boolean(),
    types: Type.Array(StringEnum(ATTACHMENT_TYPES), { minItems: 1, uniqueItems: true }),
    min_files: Type.Integer({ minimum: 0, maximum: 100 }),
    max_files: Type.Integer({ minimum: 1, maximum: 100 }),
    max_file_bytes: Type.Integer({ minimum: 1 }),
    order: Type.Integer({ minimum: 1, description: "Print order of the slot among the slots." }),
  },
  { additionalProperties: false },
);
export type AttachmentSlot = Static<typeof AttachmentSlot>;

export const EligibilityRule = Type.Object(
  {
    code: Type.String({
      pattern: "^out_of_scope_[a-z0-9]+(?:_[a-z0-9]+)*$",
      maxLength: 100,
      description: "The refusal code, naming the answer: out_of_scope_…",
    }),
    when: Rule,
    reason: Text(1, 1000, "Shown to the sender when the answer is refused."),
  },
  { additionalProperties: false },
);
export type EligibilityRule = Static<typeof EligibilityRule>;

export const PacketSection = Type.Object(
  {
    heading: Type.Optional(Text(1, 200)),
    when: Type.Optional(Rule),
    lines: Type.Array(Text(0, 2000), {
      description: "Lines with {{field_id}} placeholders; a line naming an unanswered field is left out.",
    }),
    attachments: Type.Optional(
      Type.Array(FieldId, { minItems: 1, description: "Slot ids whose files are listed, in print order." }),
    ),
  },
  { additionalProperties: false },
);
export type PacketSection = Static<typeof PacketSection>;

export const PacketTemplate = Type.Object(
  {
    kind: StringEnum(PACKET_KINDS),
    titles: Type.Array(
      Type.Object({ when: Type.Optional(Rule), text: Text(1, 200) }, { additionalProperties: false }),
      {
        minItems: 1,
        description: "The first title whose rule holds (or that has none) is the letter's title.",
      },
    ),
    sections: Type.Array(PacketSection, { minItems: 1 }),
    closing: Type.Optional(Text(1, 200)),
    signature_field: Type.Optional(FieldId),
    footer: Text(1, 300),
  },
  { additionalProperties: false },
);
export type PacketTemplate = Static<typeof PacketTemplate>;

export const WorkflowDefinition = Type.Object(
  {
    slug: Slug,
    name: Text(1, 200),
    aliases: Type.Array(Slug, { uniqueItems: true }),
    schema_version: Type.Literal(1),
    workflow_version: Type.Integer({ minimum: 1 }),
    purpose: Text(1, 2000),
    certified: StringEnum(CERTIFIED_POLICIES),
    checkout_flow: Type.Optional(StringEnum(CHECKOUT_FLOWS)),
    recipient_mode: Type.Literal("user"),
    envelope: Type.Object(
      {
        mailpiece_type: Type.Literal("letter"),
        mail_class: StringEnum(["standard", "priority", "express"] as const),
        double_sided: Type.Boolean(),
        color: Type.Boolean(),
        certified: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    compliance: Type.Object(
      {
        policy: Type.Union([Text(1, 200), Type.Null()]),
        stages: Type.Array(StringEnum(COMPLIANCE_STAGES), { uniqueItems: true }),
      },
      { additionalProperties: false },
    ),
    fields: Type.Array(FieldDefinition, { minItems: 1, maxItems: 200 }),
    attachments: Type.Object(
      {
        max_total_bytes: Type.Integer({ minimum: 1 }),
        slots: Type.Array(AttachmentSlot, { maxItems: 20 }),
      },
      { additionalProperties: false },
    ),
    eligibility: Type.Array(EligibilityRule),
    packet: PacketTemplate,
  },
  { additionalProperties: false },
);
export type WorkflowDefinition = Static<typeof WorkflowDefinition>;

export {
  DEFAULT_HANDWRITING_STYLE,
  HANDWRITING_STYLES,
  type HandwritingStyle,
} from "@mailpiece/typesetter/light";
export type { TemplatesErrorCode } from "./errors.ts";
export { TemplatesError } from "./errors.ts";
export { escapeValue } from "./escape-value.ts";
export {
  HandwrittenFields,
  HandwrittenMessage,
  type HandwrittenRequest,
  parseHandwrittenRequest,
} from "./handwritten.ts";
export { TEMPLATE_ISSUE_CODES, type TemplateIssueCode } from "./issues.ts";
export { TEMPLATE_LIMITS, VARIABLE_NAME_PATTERN } from "./limits.ts";
export { type MergedLetter, mergeTemplate } from "./merge-template.ts";
export { type ScannedBody, scanBody, type TemplatePart } from "./placeholders.ts";
export {
  TemplateBody,
  TemplatePatchBody,
  TemplateValues,
  TemplateVariableSchema,
  TemplateVersionObject,
} from "./template-schema.ts";
export {
  nextTemplateVersion,
  parseTemplateBody,
  requireVersion,
  type TemplateVariable,
  type TemplateVersion,
} from "./template-version.ts";

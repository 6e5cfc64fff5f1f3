import { defineError } from "@mailpiece/errors";

/**
 * Stable codes of TemplatesError, thrown only for a call the engine cannot work from (a request's own problems are
 * returned as issues, never thrown):
 * - `template_version_invalid`: the template version given to `mergeTemplate` or `nextTemplateVersion` is not one
 *   that `parseTemplateBody` or `nextTemplateVersion` made (a record damaged or made by hand).
 */
export type TemplatesErrorCode = "template_version_invalid";

/** The one error class of the templates package. `code` is a stable wire contract; `message` is for people. */
export class TemplatesError extends defineError<TemplatesErrorCode>("TemplatesError") {}

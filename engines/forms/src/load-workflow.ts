import Ajv from "ajv";
import addFormats from "ajv-formats";
import { checkDefinition } from "./definition-checks.ts";
import { definitionSchemaIssues } from "./definition-issues.ts";
import type { WorkflowDefinition as Definition } from "./definition-schema.ts";
import { WorkflowDefinition } from "./definition-schema.ts";
import { FormsError } from "./errors.ts";
import type { Workflow } from "./workflow.ts";

/** The definition format compiled once (Ajv, draft-07, every error, the regex format); it holds no answers. */
const validateDefinition = (() => {
  const ajv = new Ajv.default({ allErrors: true, strict: true, verbose: true });
  addFormats.default(ajv, ["regex"]);
  return ajv.compile<Definition>(WorkflowDefinition);
})();

/**
 * Loads a workflow definition (parsed JSON): validates it against the definition format (`WorkflowDefinition`,
 * a TypeBox schema, checked with Ajv), then checks what a schema cannot say (unique ids, rule references,
 * choices compared character for character, bounds in order, no defaults on eligibility answers, declarations,
 * consents or signatures). Returns a deeply frozen copy; the argument is not kept or changed.
 *
 * Throws FormsError("invalid_workflow") whose `issues` give every problem with its path ("fields[3].choices").
 */
export function loadWorkflow(definition: unknown): Workflow {
  if (!validateDefinition(definition)) {
    // Read at once: Ajv keeps only the errors of its latest run, and nothing runs in between.
    const issues = definitionSchemaIssues(validateDefinition.errors ?? []);
    throw new FormsError("invalid_workflow", invalidMessage(definition, issues.length), { issues });
  }
  const issues = checkDefinition(definition);
  if (issues.length > 0) {
    throw new FormsError("invalid_workflow", invalidMessage(definition, issues.length), { issues });
  }
  return deepFreeze(structuredClone(definition)) as unknown as Workflow;
}

function invalidMessage(definition: unknown, count: number): string {
  const slug = (definition as { slug?: unknown } | null)?.slug;
  const name = typeof slug === "string" ? `The workflow definition "${slug}"` : "The workflow definition";
  return `${name} is invalid: ${count} problem${count === 1 ? "" : "s"} (see issues).`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

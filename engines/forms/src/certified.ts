import type { FormIssue } from "./issues.ts";
import type { Workflow } from "./workflow.ts";

/** True when orders of this workflow must be sent by Certified Mail (`certified: true`). */
export function requiresCertified(workflow: Workflow): boolean {
  return workflow.certified === "required";
}

/**
 * The issue to refuse an order with when the workflow requires Certified Mail and the order says
 * `certified: false` (code `certified_required`, path "certified"); undefined otherwise. An order that leaves
 * `certified` out takes the workflow's envelope default instead (see `workflow.envelope.certified`).
 */
export function checkCertified(workflow: Workflow, certified: boolean | undefined): FormIssue | undefined {
  if (!requiresCertified(workflow) || certified !== false) return undefined;
  return {
    path: "certified",
    code: "certified_required",
    message: `${workflow.name} is sent by Certified Mail only: set certified to true.`,
  };
}

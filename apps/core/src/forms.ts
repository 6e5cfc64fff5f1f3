import type { ComplianceStage, FormIssue, Workflow } from "@mailpiece/forms";
import { checkCertified, evaluateForm, FormsError, findWorkflow } from "@mailpiece/forms";
import type { Issue, NormalizedOrder } from "@mailpiece/orders";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { Clock } from "@mailpiece/ports";
import { windowLines } from "./party-view.ts";
import { documentWorkIssue } from "./pdf-work.ts";

export type FormResolution =
  | { ok: true; pdf: Uint8Array; page_count: number; warnings: Issue[] }
  | { ok: false; issues: Issue[] };

/**
 * Turns a `form` document into its packet: the workflow's rules and eligibility at `stage`, the certified
 * requirement, then the generated letter with the signature and the attached copies.
 */
export async function resolveForm(
  order: NormalizedOrder,
  doc: Extract<NonNullable<NormalizedOrder["document"]>, { kind: "form" }>,
  workflows: readonly Workflow[],
  stage: ComplianceStage,
  clock: Clock,
  work: PdfWork,
): Promise<FormResolution> {
  const workflow = findWorkflow(workflows, doc.slug);
  if (!workflow) {
    return {
      ok: false,
      issues: [
        {
          path: "form.slug",
          code: "form_unknown",
          message: `No workflow form is published under "${doc.slug}". List the forms with GET /api/machine/forms.`,
        },
      ],
    };
  }
  // file_name is optional in the order; the workflow names a file by its id then (types come from the MIME type).
  const input = {
    fields: doc.fields,
    attachments: doc.attachments.map((a) => ({ ...a, file_name: a.file_name ?? a.id })),
  };
  const evaluation = evaluateForm(workflow, input, { stage, clock });
  const issues: Issue[] = evaluation.issues.map(toIssue);
  const certified = checkCertified(workflow, order.options.certified);
  if (certified) issues.push(toIssue(certified));
  if (issues.length > 0) return { ok: false, issues };

  const warnings: Issue[] = evaluation.warnings.map(toIssue);
  const formRecipient = evaluation.answers.recipient_name;
  if (
    order.recipient &&
    typeof formRecipient === "string" &&
    formRecipient.trim().toLowerCase() !== order.recipient.name.trim().toLowerCase()
  ) {
    warnings.push({
      path: "form.fields.recipient_name",
      code: "form_recipient_mismatch",
      message: `The envelope goes to "${order.recipient.name}" (the top-level recipient wins); the form names "${formRecipient}".`,
    });
  }
  try {
    const lines = windowLines(order.sender, order.recipient);
    const packet = await work.buildPacket(workflow, input, {
      sender: lines.sender,
      recipient: lines.recipient ?? { lines: [] },
      stage,
      clock,
    });
    return { ok: true, pdf: packet.pdf, page_count: packet.page_count, warnings };
  } catch (error) {
    const issue = documentWorkIssue(error, "form");
    if (issue) return { ok: false, issues: [issue] };
    if (FormsError.isInstance(error)) {
      const detail = error.issues as readonly FormIssue[] | undefined;
      return {
        ok: false,
        issues: detail?.length
          ? detail.map(toIssue)
          : [{ path: "form", code: error.code, message: error.message }],
      };
    }
    throw error;
  }
}

function toIssue(issue: FormIssue): Issue {
  const path =
    issue.path.startsWith("form") || issue.path === "certified" ? issue.path : `form.${issue.path}`;
  return { path, code: issue.code, message: issue.message };
}

/**
 * The compliance check of a form order at the fulfillment stage, just before it is printed: its workflow's rules
 * and eligibility against today's date (a deadline that has passed since payment, say). Returns why the order may
 * not be printed, or undefined when it may (and for orders that are not forms).
 */
export function formRefusalAtFulfilment(
  order: NormalizedOrder,
  workflows: readonly Workflow[],
  clock: Clock,
): string | undefined {
  const doc = order.document;
  if (doc?.kind !== "form") return undefined;
  const workflow = findWorkflow(workflows, doc.slug);
  if (!workflow)
    return `The workflow form "${doc.slug}" is no longer offered, so the order cannot be printed.`;
  const input = {
    fields: doc.fields,
    attachments: doc.attachments.map((a) => ({ ...a, file_name: a.file_name ?? a.id })),
  };
  const evaluation = evaluateForm(workflow, input, { stage: "fulfillment", clock });
  if (evaluation.issues.length === 0) return undefined;
  const reasons = evaluation.issues.map((issue) => `${toIssue(issue).path}: ${issue.message}`).join("; ");
  return `The form no longer meets its workflow's rules at fulfillment: ${reasons}`;
}

import type { AddressAnswer } from "./address.ts";
import { formatAddressLine } from "./address.ts";
import type { CheckedAttachment } from "./attachments.ts";
import { formatLongDate } from "./dates.ts";
import type { AnswerValue } from "./field-answer.ts";
import { ruleHolds } from "./rules.ts";
import type { SignatureAnswer } from "./signature.ts";
import { formatCurrency, parseCurrency } from "./text-classes.ts";
import type { Workflow, WorkflowField } from "./workflow.ts";

/** The words of a packet's letter or cover sheet, ready for the typesetter. */
export interface PacketText {
  title: string;
  body: string;
  signature?: SignatureAnswer;
  footer: string;
}

const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g;

/**
 * Fills the workflow's packet template with the answers that count (`evaluateForm(...).answers`) and the checked
 * attachments. The title is the first whose rule holds; a section prints when its rule holds and at least one of
 * its lines or listed files prints; a line naming an unanswered or hidden field is left out. Dates read
 * "March 5, 2026", addresses print on one line, currency amounts as "$1,234.56".
 */
export function composePacketText(
  workflow: Workflow,
  answers: Readonly<Record<string, AnswerValue>>,
  attachments: readonly CheckedAttachment[],
): PacketText {
  const fields = new Map(workflow.fields.map((field) => [field.id, field]));
  const ruleData: Record<string, unknown> = Object.fromEntries(
    workflow.fields.map((field) => [field.id, answers[field.id] ?? null]),
  );
  const fill = (template: string): string | undefined => {
    let complete = true;
    const text = template.replace(PLACEHOLDER, (_, id: string) => {
      const field = fields.get(id);
      const value = answers[id];
      if (field === undefined || value === undefined) {
        complete = false;
        return "";
      }
      return formatValue(field, value);
    });
    return complete ? text : undefined;
  };

  const packet = workflow.packet;
  const title =
    packet.titles
      .filter((t) => t.when === undefined || ruleHolds(t.when, ruleData))
      .map((t) => fill(t.text))
      .find((text) => text !== undefined) ?? workflow.name;

  const sections: string[] = [];
  for (const section of packet.sections) {
    if (section.when !== undefined && !ruleHolds(section.when, ruleData)) continue;
    const lines = section.lines.map(fill).filter((line): line is string => line !== undefined);
    const slots = section.attachments ?? [];
    const files = attachments.filter((file) => slots.includes(file.slot));
    const listed = files.map((file, i) => {
      const slot = workflow.attachments.slots.find((s) => s.id === file.slot);
      return `${i + 1}. ${file.file_name}${slot === undefined ? "" : ` (${slot.label})`}`;
    });
    if (lines.every((line) => line.trim() === "") && listed.length === 0) continue;
    const heading = section.heading === undefined ? undefined : fill(section.heading);
    sections.push([...(heading === undefined ? [] : [heading]), ...lines, ...listed].join("\n"));
  }
  if (packet.closing !== undefined) {
    const closing = fill(packet.closing);
    if (closing !== undefined) sections.push(closing);
  }
  const signatureValue = packet.signature_field === undefined ? undefined : answers[packet.signature_field];
  return {
    title,
    body: sections.join("\n\n"),
    ...(isSignature(signatureValue) ? { signature: signatureValue } : {}),
    footer: packet.footer,
  };
}

function formatValue(field: WorkflowField, value: AnswerValue): string {
  if (value === true) return "Yes";
  if (typeof value === "object") return "mode" in value ? "" : formatAddressLine(value as AddressAnswer);
  if (field.type === "date") return formatLongDate(value);
  if (field.text_class === "currency") {
    const cents = parseCurrency(value);
    return cents === undefined ? value : formatCurrency(cents);
  }
  return value;
}

function isSignature(value: AnswerValue | undefined): value is SignatureAnswer {
  return typeof value === "object" && "mode" in value;
}

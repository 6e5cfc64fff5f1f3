import {
  describeRequest,
  describeRequirement,
  type OutcomeStatus,
  type SuiteReport,
  totals,
} from "../kit.ts";

const OUTCOME: Record<OutcomeStatus, string> = {
  passed: "✅ passed",
  failed: "❌ failed",
  not_applicable: "➖ not applicable",
};

/** Text that stays inside one table cell: pipes escaped, line breaks as <br>. */
const cell = (text: string) => text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
/** A fence longer than any run of backticks in `text`. */
const fence = (text: string) =>
  "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));

/**
 * The reports as Markdown: the header lines as a list, the totals, then per suite a table of every test with the
 * requirement it checks and its outcome (with the reason of a test that does not apply), and a section per
 * failure with its requirement, last request and reason.
 */
export function markdownReport(reports: readonly SuiteReport[], header: readonly string[] = []): string {
  const [title = "Mailpiece conformance report", ...facts] = header;
  const sum = totals(reports);
  const lines = [`# ${title}`, "", ...facts.map((fact) => `- ${fact}`)];
  lines.push(`- **${sum.passed} passed, ${sum.failed} failed, ${sum.notApplicable} not applicable**`, "");
  for (const report of reports) {
    lines.push(`## ${report.suite}`, "");
    if (report.sideEffects) lines.push(`Side effects: ${report.sideEffects}`, "");
    lines.push(
      `${report.passed} passed, ${report.failed} failed, ${report.notApplicable} not applicable`,
      "",
    );
    lines.push("| Test | Requirement | Outcome |", "| --- | --- | --- |");
    for (const o of report.outcomes) {
      const requirement = o.requirement ? describeRequirement(o.requirement) : "";
      const outcome =
        o.status === "not_applicable" ? `${OUTCOME[o.status]}: ${o.reason ?? ""}` : OUTCOME[o.status];
      lines.push(`| ${cell(o.name)} | ${cell(requirement)} | ${cell(outcome)} |`);
    }
    lines.push("");
    for (const o of report.outcomes.filter((outcome) => outcome.status === "failed")) {
      lines.push(`### ❌ ${o.name}`, "");
      if (o.requirement) lines.push(`- Requirement: ${describeRequirement(o.requirement)}`);
      for (const request of o.requests ?? []) lines.push(`- Request: \`${describeRequest(request)}\``);
      const reason = o.reason ?? "";
      lines.push("", fence(reason), reason, fence(reason), "");
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

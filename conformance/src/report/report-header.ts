import type { ConformanceReport } from "../run/run-conformance.ts";

/**
 * The lines that open a report of a run: the target, the times, what the deployment declares (with the evidence)
 * and which suites ran. Each suite's own section says what it does to the target.
 */
export function reportHeader(report: ConformanceReport): string[] {
  const declared = report.discovery.map(
    (d) => `${d.surface}: ${d.declared ? "declared" : "not declared"} (${d.evidence})`,
  );
  return [
    `Mailpiece conformance report for ${report.target}`,
    `started ${report.startedAt}, finished ${report.finishedAt}`,
    ...declared,
    `suites run: ${report.surfaces.length > 0 ? report.surfaces.join(", ") : "none"}`,
    "checks that pay or mail run only with test-mode keys or on simulated rails; each suite says what it does",
  ];
}

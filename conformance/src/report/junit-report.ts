import XMLBuilder from "fast-xml-builder";
import { describeRequest, describeRequirement, type SuiteReport, type TestOutcome, totals } from "../kit.ts";

export interface JunitReportOptions {
  /** The name of the `testsuites` element. Default "Mailpiece conformance". */
  name?: string;
  /** When the run started (ISO 8601), set on every `testsuite`. */
  timestamp?: string;
}

/** Characters XML 1.0 cannot hold (most control characters), dropped from every text and attribute. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to drop.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const clean = (text: string) => text.replace(NOT_XML, "");
const seconds = (ms: number) => (ms / 1000).toFixed(3);
/** Dots in a class name read as packages in CI tools: a suite named after a URL keeps them out. */
const className = (suite: string) => clean(suite).replace(/\./g, "_");

function testcase(suite: string, outcome: TestOutcome): Record<string, unknown> {
  const node: Record<string, unknown> = {
    "@_name": clean(outcome.name),
    "@_classname": className(suite),
    "@_time": seconds(outcome.ms),
  };
  const reason = clean(outcome.reason ?? "");
  if (outcome.status === "failed") {
    const details = [
      ...(outcome.requirement ? [`requirement: ${describeRequirement(outcome.requirement)}`] : []),
      ...(outcome.requests ?? []).map((request) => `request: ${describeRequest(request)}`),
      reason,
    ];
    node.failure = {
      "@_message": reason.split("\n")[0]?.slice(0, 500) ?? "",
      "@_type": "AssertionError",
      "#text": clean(details.join("\n")),
    };
  }
  if (outcome.status === "not_applicable") node.skipped = { "@_message": `not applicable: ${reason}` };
  if (outcome.requirement)
    node["system-out"] = clean(`requirement: ${describeRequirement(outcome.requirement)}`);
  return node;
}

/**
 * The reports as JUnit XML, as CI tools read it: `testsuites` with one `testsuite` per suite and one `testcase` per
 * test; a failure carries its reason, requirement and last request, a test that does not apply is `skipped` with
 * its reason, and each test's requirement is in its `system-out`.
 */
export function junitReport(reports: readonly SuiteReport[], options: JunitReportOptions = {}): string {
  const sum = totals(reports);
  const ms = (report: SuiteReport) => report.outcomes.reduce((total, o) => total + o.ms, 0);
  const document = {
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    testsuites: {
      "@_name": clean(options.name ?? "Mailpiece conformance"),
      "@_tests": String(sum.passed + sum.failed + sum.notApplicable),
      "@_failures": String(sum.failed),
      "@_errors": "0",
      "@_skipped": String(sum.notApplicable),
      "@_time": seconds(reports.reduce((total, report) => total + ms(report), 0)),
      testsuite: reports.map((report) => ({
        "@_name": clean(report.suite),
        "@_tests": String(report.outcomes.length),
        "@_failures": String(report.failed),
        "@_errors": "0",
        "@_skipped": String(report.notApplicable),
        "@_time": seconds(ms(report)),
        ...(options.timestamp ? { "@_timestamp": options.timestamp } : {}),
        ...(report.sideEffects
          ? { properties: { property: [{ "@_name": "side_effects", "@_value": clean(report.sideEffects) }] } }
          : {}),
        testcase: report.outcomes.map((outcome) => testcase(report.suite, outcome)),
      })),
    },
  };
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: "@_",
    format: true,
    suppressEmptyNode: true,
  });
  return `${builder.build(document)}`;
}

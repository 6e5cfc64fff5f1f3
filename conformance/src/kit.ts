import { ConformanceError } from "./conformance-error.ts";
import { type RecordedRequest, recordRequests } from "./report/request-log.ts";

/**
 * The shape of every suite in the kit: a list of named contract tests, each a plain async function that throws on
 * failure. Suites run the same way under vitest (`registerSuite`) and from the CLI (`runSuite`).
 */
export interface ContractTest {
  /** Stable, unique within its suite; skip lists refer to it. */
  name: string;
  /** The requirement of the spec the test checks, for reports. */
  requirement?: Requirement;
  /**
   * Throws on failure. Resolves to `notApplicable(reason)` when the target does not offer what the test checks (a
   * deployment without a florist, a live-mode key for a check that pays), so that reports say so instead of passing.
   */
  run: TestBody;
}

/**
 * The body of a test: throws on failure, resolves to nothing when it passes or to `notApplicable(reason)`.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a test that passes resolves to nothing, as `async () => {}` does.
export type TestBody = () => Promise<void | NotApplicable>;

/** A requirement of a spec: the document, its section and the sentence that a test checks. */
export interface Requirement {
  /** The document, e.g. "spec 1 (machine API)", "spec 3 (Projects API)", "MCP 2025-06-18", "UCP 2026-01-11". */
  spec: string;
  /** The section, e.g. "Order request" or "§ Webhooks". */
  section: string;
  /** The sentence (or a short quotation of it). */
  sentence: string;
}

/** What a test answers when the target does not offer what it checks. */
export interface NotApplicable {
  notApplicable: string;
}

export function notApplicable(reason: string): NotApplicable {
  return { notApplicable: reason };
}

export function isNotApplicable(value: unknown): value is NotApplicable {
  return (
    typeof value === "object" && value !== null && typeof (value as NotApplicable).notApplicable === "string"
  );
}

export interface Suite<Name extends string = string> {
  name: string;
  tests: ReadonlyArray<ContractTest & { name: Name }>;
  /**
   * What running the suite does to its target, for the report's header: e.g. "creates unpaid orders only; pays
   * for nothing". A suite that pays or sends mail says that it runs only against test mode or simulated rails.
   */
  sideEffects?: string;
}

export type OutcomeStatus = "passed" | "failed" | "not_applicable";

export interface TestOutcome {
  name: string;
  status: OutcomeStatus;
  ms: number;
  /** For a failure, what went wrong (the assertion's message); for a test that does not apply, why not. */
  reason?: string;
  requirement?: Requirement;
  /**
   * For a failure, the last requests the test sent through a recording target (at most LAST_REQUESTS, oldest
   * first) with their answers' statuses: the request that failed, and those around it (a test may close a
   * session after the request that failed).
   */
  requests?: RecordedRequest[];
}

export interface SuiteReport {
  suite: string;
  sideEffects?: string;
  outcomes: TestOutcome[];
  passed: number;
  failed: number;
  notApplicable: number;
}

/** How many of a failing test's last requests its outcome keeps. */
export const LAST_REQUESTS = 3;

/** Runs each test in order and reports every outcome; never throws for a failing test. */
export async function runSuite(suite: Suite): Promise<SuiteReport> {
  const outcomes: TestOutcome[] = [];
  for (const test of suite.tests) {
    const start = performance.now();
    const requests: RecordedRequest[] = [];
    const outcome = (status: OutcomeStatus, reason?: string): TestOutcome => ({
      name: test.name,
      status,
      ms: performance.now() - start,
      ...(reason === undefined ? {} : { reason }),
      ...(test.requirement ? { requirement: test.requirement } : {}),
    });
    try {
      const answer = await recordRequests(requests, () => test.run());
      outcomes.push(
        isNotApplicable(answer) ? outcome("not_applicable", answer.notApplicable) : outcome("passed"),
      );
    } catch (error) {
      const failed = outcome("failed", error instanceof Error ? error.message : String(error));
      if (requests.length > 0) failed.requests = requests.slice(-LAST_REQUESTS).map((r) => ({ ...r }));
      outcomes.push(failed);
    }
  }
  const count = (status: OutcomeStatus) => outcomes.filter((o) => o.status === status).length;
  return {
    suite: suite.name,
    ...(suite.sideEffects ? { sideEffects: suite.sideEffects } : {}),
    outcomes,
    passed: count("passed"),
    failed: count("failed"),
    notApplicable: count("not_applicable"),
  };
}

/** The totals of several suite reports. */
export function totals(reports: readonly SuiteReport[]): {
  passed: number;
  failed: number;
  notApplicable: number;
} {
  return {
    passed: reports.reduce((n, r) => n + r.passed, 0),
    failed: reports.reduce((n, r) => n + r.failed, 0),
    notApplicable: reports.reduce((n, r) => n + r.notApplicable, 0),
  };
}

/** `spec › section: "sentence"`, one line. */
export function describeRequirement(requirement: Requirement): string {
  return `${requirement.spec} › ${requirement.section}: "${requirement.sentence}"`;
}

/** `POST /api/machine/orders → 500` (with the JSON-RPC method, when there is one). */
export function describeRequest(request: RecordedRequest): string {
  const rpc = request.rpc ? ` (${request.rpc})` : "";
  const answer =
    request.status !== undefined ? `${request.status}` : `no answer: ${request.error ?? "unknown"}`;
  return `${request.method} ${request.path}${rpc} → ${answer}`;
}

const MARK: Record<OutcomeStatus, string> = { passed: "✓", failed: "✗", not_applicable: "–" };

/**
 * A readable plain-text report of one or more suites: each suite with what it does to its target, each test with
 * its outcome, and for a failure its reason, the requirement it checks and the last request it sent; then the
 * totals, `N passed, N failed` on a line of its own, and the count of tests that did not apply.
 */
export function formatReport(reports: SuiteReport[], header: readonly string[] = []): string {
  const lines: string[] = [...header];
  if (header.length > 0) lines.push("");
  const indent = (text: string) => text.split("\n").join("\n      ");
  for (const report of reports) {
    lines.push(report.suite);
    if (report.sideEffects) lines.push(`  side effects: ${report.sideEffects}`);
    for (const o of report.outcomes) {
      const note = o.status === "not_applicable" ? ` — not applicable: ${o.reason ?? ""}` : "";
      lines.push(`  ${MARK[o.status]} ${o.name} (${o.ms.toFixed(0)} ms)${note}`);
      if (o.status !== "failed") continue;
      if (o.requirement) lines.push(`      requirement: ${describeRequirement(o.requirement)}`);
      for (const request of o.requests ?? []) lines.push(`      request: ${describeRequest(request)}`);
      if (o.reason) lines.push(`      ${indent(o.reason)}`);
    }
  }
  const sum = totals(reports);
  lines.push("");
  lines.push(`${sum.passed} passed, ${sum.failed} failed`);
  lines.push(`${sum.notApplicable} not applicable`);
  return lines.join("\n");
}

/**
 * The tests of a kit in the order of `names`, each with its requirement, less those that `disable` names (tests
 * that cannot apply to the adapter). Refuses a `disable` list that names a test the kit does not have.
 */
export function kitTests<Name extends string>(
  names: readonly Name[],
  tests: Record<Name, TestBody>,
  requirements: Record<Name, Requirement>,
  disable: readonly Name[] = [],
): Array<ContractTest & { name: Name }> {
  const known = new Set<string>(names);
  const unknown = disable.flatMap((name, index) =>
    known.has(name)
      ? []
      : [
          {
            path: `disable.${index}`,
            code: "unknown_test",
            message: `no test of this kit is named "${name}"`,
          },
        ],
  );
  if (unknown.length > 0) {
    throw new ConformanceError(
      "unknown_test",
      `disable names an unknown test: ${unknown.map((i) => i.message).join("; ")}`,
      { issues: unknown },
    );
  }
  const disabled = new Set<string>(disable);
  return names
    .filter((name) => !disabled.has(name))
    .map((name) => ({ name, requirement: requirements[name], run: tests[name] }));
}

/** A requirement of a port's contract: the port, its member (or "contract") and the MUST sentence of its JSDoc. */
export function portRequirement(port: string, section: string, sentence: string): Requirement {
  return { spec: `port ${port}`, section, sentence };
}

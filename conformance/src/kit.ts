/**
 * The shape of every suite in the kit: a list of named contract tests, each a plain async function that throws on
 * failure. Suites run the same way under vitest (`registerSuite`) and from the CLI (`runSuite`).
 */
export interface ContractTest {
  /** Stable, unique within its suite; skip lists refer to it. */
  name: string;
  run(): Promise<void>;
}

export interface Suite<Name extends string = string> {
  name: string;
  tests: ReadonlyArray<ContractTest & { name: Name }>;
}

export interface TestOutcome {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

export interface SuiteReport {
  suite: string;
  outcomes: TestOutcome[];
  passed: number;
  failed: number;
}

/** Runs each test in order and reports every outcome; never throws for a failing test. */
export async function runSuite(suite: Suite): Promise<SuiteReport> {
  const outcomes: TestOutcome[] = [];
  for (const test of suite.tests) {
    const start = performance.now();
    try {
      await test.run();
      outcomes.push({ name: test.name, ok: true, ms: performance.now() - start });
    } catch (error) {
      outcomes.push({
        name: test.name,
        ok: false,
        ms: performance.now() - start,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  const passed = outcomes.filter((o) => o.ok).length;
  return { suite: suite.name, outcomes, passed, failed: outcomes.length - passed };
}

/** A readable plain-text report of one or more suites. */
export function formatReport(reports: SuiteReport[]): string {
  const lines: string[] = [];
  let passed = 0;
  let failed = 0;
  for (const report of reports) {
    lines.push(`${report.suite}`);
    for (const o of report.outcomes) {
      lines.push(`  ${o.ok ? "✓" : "✗"} ${o.name} (${o.ms.toFixed(0)} ms)`);
      if (!o.ok && o.error) lines.push(`      ${o.error.split("\n").join("\n      ")}`);
    }
    passed += report.passed;
    failed += report.failed;
  }
  lines.push("");
  lines.push(`${passed} passed, ${failed} failed`);
  return lines.join("\n");
}

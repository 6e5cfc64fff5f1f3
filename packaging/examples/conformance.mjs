// @mailpiece/conformance: a suite of one's own, run and reported as JUnit for CI, with plain node.
import { junitReport, notApplicable, runSuite } from "@mailpiece/conformance";

const report = await runSuite({
  name: "my checks",
  tests: [
    {
      name: "a date is read back unchanged",
      requirement: { spec: "ECMAScript", section: "Date.parse", sentence: "toISOString round trips" },
      run: async () => {
        const at = "2026-01-01T00:00:00.000Z";
        if (new Date(Date.parse(at)).toISOString() !== at) throw new Error(`${at} changed`);
      },
    },
    { name: "florist checks", run: async () => notApplicable("this deployment has no florist") },
  ],
});
console.log(report.passed, report.failed, report.notApplicable); // → 1 0 1
console.log(report.outcomes[1].reason); // → this deployment has no florist
const xml = junitReport([report]);
console.log(xml.includes('<skipped message="not applicable: this deployment has no florist"/>')); // → true

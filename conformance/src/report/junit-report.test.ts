import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import type { SuiteReport } from "../kit.ts";
import { junitReport } from "./junit-report.ts";

const requirement = { spec: "spec 1 (machine API)", section: "Errors", sentence: 'A "quoted" <rule> & more' };

const reports: SuiteReport[] = [
  {
    suite: "machine API (http://127.0.0.1:3000)",
    sideEffects: "creates unpaid orders only",
    passed: 1,
    failed: 1,
    notApplicable: 1,
    outcomes: [
      { name: "passes", status: "passed", ms: 12, requirement },
      {
        name: "fails <badly>",
        status: "failed",
        ms: 1500,
        requirement,
        reason: "expected 200, got 500\n\u001b[31mred\u001b[39m second line",
        requests: [{ method: "POST", path: "/api/machine/orders", status: 500 }],
      },
      { name: "does not apply", status: "not_applicable", ms: 0, reason: "no florist" },
    ],
  },
  { suite: "empty", passed: 0, failed: 0, notApplicable: 0, outcomes: [] },
];

const parse = (xml: string) =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    isArray: (name) => ["testsuite", "testcase", "property"].includes(name),
  }).parse(xml);

describe("junitReport", () => {
  it("is XML that CI tools read: counts on testsuites and testsuite, a failure with its details, skipped with why", () => {
    const xml = junitReport(reports, { timestamp: "2026-01-01T00:00:00.000Z" });
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const doc = parse(xml);
    expect(doc.testsuites).toMatchObject({
      tests: "3",
      failures: "1",
      skipped: "1",
      errors: "0",
      time: "1.512",
    });
    const [machine, empty] = doc.testsuites.testsuite;
    expect(machine).toMatchObject({
      name: "machine API (http://127.0.0.1:3000)",
      tests: "3",
      failures: "1",
      skipped: "1",
      timestamp: "2026-01-01T00:00:00.000Z",
    });
    expect(machine.properties.property).toEqual([
      { name: "side_effects", value: "creates unpaid orders only" },
    ]);
    const [passed, failed, skipped] = machine.testcase;
    expect(passed).toMatchObject({
      name: "passes",
      classname: "machine API (http://127_0_0_1:3000)",
      time: "0.012",
    });
    expect(passed.failure).toBeUndefined();
    expect(passed["system-out"]).toBe(
      'requirement: spec 1 (machine API) › Errors: "A "quoted" <rule> & more"',
    );
    expect(failed.name).toBe("fails <badly>");
    expect(failed.failure.message).toBe("expected 200, got 500");
    // Control characters XML cannot hold are dropped; the rest of the reason stays.
    expect(failed.failure["#text"]).toBe(
      [
        'requirement: spec 1 (machine API) › Errors: "A "quoted" <rule> & more"',
        "request: POST /api/machine/orders → 500",
        "expected 200, got 500",
        "[31mred[39m second line",
      ].join("\n"),
    );
    expect(skipped.skipped).toEqual({ message: "not applicable: no florist" });
    expect(empty).toMatchObject({ name: "empty", tests: "0", failures: "0" });
  });
});

import { describe, expect, it } from "vitest";
import type { SuiteReport } from "../kit.ts";
import { markdownReport } from "./markdown-report.ts";

const report: SuiteReport = {
  suite: "agent tools over MCP",
  sideEffects: "pays for nothing",
  passed: 1,
  failed: 1,
  notApplicable: 1,
  outcomes: [
    {
      name: "a | piped name",
      status: "passed",
      ms: 3,
      requirement: { spec: "MCP 2025-06-18", section: "Tools", sentence: "line one\nline two" },
    },
    {
      name: "svc.ping answers",
      status: "failed",
      ms: 3,
      reason: "expected ``ok``\ngot nothing",
      requests: [{ method: "POST", path: "/mcp", rpc: "tools/call svc.ping", status: 200 }],
    },
    { name: "drafts", status: "not_applicable", ms: 0, reason: "no checkout" },
  ],
};

describe("markdownReport", () => {
  it("lists the header, the totals, a table per suite and a section per failure", () => {
    const md = markdownReport(
      [report],
      ["Mailpiece conformance report for http://x", "mcp: declared (3 tools)"],
    );
    const lines = md.split("\n");
    expect(lines[0]).toBe("# Mailpiece conformance report for http://x");
    expect(lines).toContain("- mcp: declared (3 tools)");
    expect(lines).toContain("- **1 passed, 1 failed, 1 not applicable**");
    expect(lines).toContain("## agent tools over MCP");
    expect(lines).toContain("Side effects: pays for nothing");
    expect(lines).toContain(
      '| a \\| piped name | MCP 2025-06-18 › Tools: "line one<br>line two" | ✅ passed |',
    );
    expect(lines).toContain("| drafts |  | ➖ not applicable: no checkout |");
    expect(lines).toContain("### ❌ svc.ping answers");
    expect(lines).toContain("- Request: `POST /mcp (tools/call svc.ping) → 200`");
    // The reason sits in a fence longer than any backtick run it holds.
    const at = lines.indexOf("expected ``ok``");
    expect(lines.slice(at - 1, at + 3)).toEqual(["```", "expected ``ok``", "got nothing", "```"]);
    expect(md.endsWith("```\n")).toBe(true);
  });
});

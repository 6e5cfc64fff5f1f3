import { describe, expect, it } from "vitest";
import type { SuiteReport } from "../kit.ts";
import { appTarget } from "../machine/http-target.ts";
import { fakeDeployment } from "./fake-deployment.fixture.ts";
import { removeSecrets, runConformance } from "./run-conformance.ts";

describe("runConformance", () => {
  it("takes its times from the clock given and runs only the surfaces named", async () => {
    const times = ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:05.000Z"];
    const report = await runConformance({
      target: appTarget({ fetch: fakeDeployment({ mcpTools: ["svc.ping"] }) }, "fake"),
      surfaces: ["ucp"],
      now: () => new Date(times.shift() as string),
    });
    expect(report).toMatchObject({
      target: "fake",
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:00:05.000Z",
      surfaces: [],
      passed: 0,
      failed: 1,
      notApplicable: 0,
    });
    expect(report.suites.map((s) => s.suite)).toEqual(["ucp surface"]);
    expect(report.problems).toEqual([
      "ucp was asked for, but the deployment does not declare it: /.well-known/ucp: GET /.well-known/ucp answered 404",
    ]);
  });
});

describe("removeSecrets", () => {
  it("replaces every secret in reasons, request paths and request errors", () => {
    const suites: SuiteReport[] = [
      {
        suite: "s",
        passed: 0,
        failed: 1,
        notApplicable: 0,
        outcomes: [
          {
            name: "t",
            status: "failed",
            ms: 1,
            reason: "got 401 for svc_test_KEY and admin-TOKEN (svc_test_KEY)",
            requests: [{ method: "GET", path: "/x/svc_test_KEY", error: "refused admin-TOKEN" }],
          },
        ],
      },
    ];
    removeSecrets(suites, ["svc_test_KEY", "admin-TOKEN"]);
    expect(suites[0]?.outcomes[0]).toMatchObject({
      reason: "got 401 for REDACTED and REDACTED (REDACTED)",
      requests: [{ path: "/x/REDACTED", error: "refused REDACTED" }],
    });
  });
});

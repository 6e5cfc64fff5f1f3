import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoopbackServer, serveOnLoopback } from "../machine/http-target.ts";
import { cliMain } from "./cli-main.ts";
import { type FakeDeployment, fakeDeployment } from "./fake-deployment.fixture.ts";
import type { ConformanceReport } from "./run-conformance.ts";

const API_KEY = "svc_test_k3y_that_must_never_be_printed";

async function cli(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await cliMain(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env,
  });
  return { code, stdout, stderr };
}

const folder = mkdtempSync(join(tmpdir(), "mailpiece-conformance-cli-"));
const servers: LoopbackServer[] = [];
async function deployment(fake: FakeDeployment): Promise<string> {
  const server = await serveOnLoopback(fakeDeployment(fake));
  servers.push(server);
  return server.url;
}
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(folder, { recursive: true, force: true });
});

describe("usage", () => {
  it("--help prints the usage and exits 0", async () => {
    for (const argv of [["--help"], ["run", "--help"], ["help"]]) {
      const { code, stdout } = await cli(argv);
      expect(code).toBe(0);
      expect(stdout).toMatch(/^Usage: mailpiece-conformance run --base-url URL/);
      expect(stdout).toContain("--junit FILE");
      expect(stdout).toContain("Exit code: 0 when no test fails, 1 when any fails, 2 on bad usage.");
    }
  });

  it("bad usage exits 2 with a message that names the flag, and runs nothing", async () => {
    const cases: [string[], RegExp][] = [
      [["run"], /--base-url must be an http\(s\) URL/],
      [["run", "--base-url", "ftp://x"], /--base-url must be an http\(s\) URL/],
      [["run", "--base-url", "http://127.0.0.1:9", "--surface", "machine,fax"], /unknown surface "fax"/],
      [["run", "--base-url", "http://127.0.0.1:9", "--colour"], /Unknown option '--colour'/],
      [["check", "--base-url", "http://127.0.0.1:9"], /unknown command "check"/],
      [["run", "--base-url", "http://127.0.0.1:9", "--address-us", "US|1"], /--address-ca/],
      [["run", "--base-url", "http://127.0.0.1:9", "--ucp-profiles-port", "70000"], /--ucp-profiles-port/],
      [["run", "--base-url", "http://127.0.0.1:9", "--ucp-profile", "file:///etc"], /--ucp-profile must be/],
    ];
    for (const [argv, message] of cases) {
      const { code, stdout, stderr } = await cli(argv);
      expect({ argv, code }).toEqual({ argv, code: 2 });
      expect(stderr).toMatch(message);
      expect(stderr).toContain('Run "mailpiece-conformance --help" for the flags.');
      expect(stdout).toBe("");
    }
  });
});

describe("runs against a deployment", () => {
  let mcpOnly: string;
  beforeAll(async () => {
    mcpOnly = await deployment({ mcpTools: ["svc.ping"], openapiPaths: ["/health"] });
  });

  it("a surface asked for that the deployment does not declare fails the run, in every report", async () => {
    const junit = join(folder, "reports", "undeclared.xml");
    const markdown = join(folder, "reports", "undeclared.md");
    const { code, stdout, stderr } = await cli([
      "run",
      "--base-url",
      mcpOnly,
      "--surface",
      "v1",
      "--junit",
      junit,
      "--markdown",
      markdown,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain("v1 was asked for, but the deployment does not declare it");
    expect(stdout).toContain(`Mailpiece conformance report for ${mcpOnly}`);
    expect(stdout).toContain("mcp: declared (1 tools at /mcp)");
    expect(stdout).toContain("suites run: none");
    expect(stdout).toMatch(/^ {2}✗ the deployment declares the v1 surface/m);
    expect(stdout).toMatch(/^0 passed, 1 failed$/m);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(
      readFileSync(junit, "utf8"),
    );
    expect(xml.testsuites).toMatchObject({ tests: "1", failures: "1" });
    expect(xml.testsuites.testsuite.testcase.failure.message).toMatch(/^not declared: none of the 1 paths/);
    expect(readFileSync(markdown, "utf8")).toContain("### ❌ the deployment declares the v1 surface");
  });

  it("a profiles port in use, or a report that cannot be written, exits 2 saying why", async () => {
    const port = new URL(mcpOnly).port;
    const busy = await cli(["run", "--base-url", mcpOnly, "--ucp-profiles-port", port]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`cannot serve UCP profiles on 127.0.0.1:${port}`);
    const unwritable = await cli([
      "--base-url",
      mcpOnly,
      "--surface",
      "v1",
      "--junit",
      "/dev/null/report.xml",
    ]);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain("cannot write the report");
    expect(unwritable.stdout).toMatch(/^0 passed, 1 failed$/m);
  });

  it("a deployment that declares no surface fails the run", async () => {
    const nothing = await deployment({});
    const { code, stdout, stderr } = await cli(["--base-url", nothing]);
    expect(code).toBe(1);
    expect(stderr).toContain("the deployment declares no surface");
    expect(stdout).toMatch(/^0 passed, 1 failed$/m);
  });

  it("runs the declared surfaces' suites, reports as JSON, and never prints the API key", async () => {
    // Every answer of this deployment quotes the key, as a leaky deployment might: the report does not.
    const leaky = await deployment({ openapiPaths: ["/api/machine/forms"], leak: API_KEY });
    const { code, stdout } = await cli(["--base-url", leaky, "--suite", "machine", "--json"], {
      MAILPIECE_API_KEY: API_KEY,
    });
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as ConformanceReport;
    expect(report.surfaces).toEqual(["machine"]);
    expect(report.discovery.find((d) => d.surface === "machine")?.declared).toBe(true);
    const [machine] = report.suites;
    expect(machine?.suite).toBe(`machine API (${leaky})`);
    expect(machine?.sideEffects).toMatch(/unpaid/);
    expect(machine?.failed).toBeGreaterThan(0);
    expect(report.failed).toBe(machine?.failed);
    const failed = machine?.outcomes.find((o) => o.name === "health answers ok");
    expect(failed).toMatchObject({ status: "failed", requirement: { section: "Endpoints" } });
    expect(failed?.requests?.at(-1)).toEqual({ method: "GET", path: "/health", status: 404 });
    expect(stdout).not.toContain(API_KEY);
  }, 120_000);
});

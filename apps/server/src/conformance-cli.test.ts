import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@mailpiece/conformance";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { RunningServer, ServerHooks } from "./start.ts";
import { startServer } from "./start.ts";

/**
 * The conformance CLI as auditors run it: a child process against the reference server over HTTP, with every
 * surface's suite, the JUnit and Markdown reports, and exit codes. The JUnit file is read with fast-xml-parser,
 * resolved from the conformance kit (its own tests read its reports the same way).
 */
const ROOT = join(import.meta.dirname, "..", "..", "..");
const CLI = join(ROOT, "conformance", "src", "cli.ts");
const ADMIN_TOKEN = "an-operator-token-of-at-least-32-characters";
const WEBHOOK_RECEIVER = "https://127.0.0.1:9/mailpiece-conformance";
const MINUTE = 60_000;

const folder = mkdtempSync(join(tmpdir(), "mailpiece-conformance-cli-"));
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(folder, { recursive: true, force: true });
});

/** A reference server on a random port with every surface on: the admin API, UCP profiles from `profilesPort`. */
async function serve(name: string, profilesPort: number, hooks: ServerHooks = {}) {
  const running = await startServer(
    loadConfig({
      PORT: "0",
      DATA_DIR: join(folder, name),
      LOG_LEVEL: "silent",
      ADMIN_TOKEN,
      UCP_PROFILE_HOSTS: `127.0.0.1:${profilesPort}`,
      WEBHOOK_PRIVATE_HOSTS: "127.0.0.1:9",
      UNPAID_ORDERS_PER_HOUR: "1000",
      VALIDATE_PER_MINUTE: "100000",
    }),
    undefined,
    hooks,
  );
  servers.push(running);
  const { test_api_key: apiKey } = await running.core.workspaces.create(`CLI ${name}`);
  return { url: running.url, apiKey };
}

/** Runs the CLI with the key and the token in its environment (never on its command line). */
async function runCli(url: string, apiKey: string, profilesPort: number, name: string) {
  const junit = join(folder, `${name}.xml`);
  const markdown = join(folder, `${name}.md`);
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      CLI,
      "run",
      "--base-url",
      url,
      "--junit",
      junit,
      "--markdown",
      markdown,
      "--ucp-profiles-port",
      String(profilesPort),
      "--webhook-url",
      WEBHOOK_RECEIVER,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, MAILPIECE_API_KEY: apiKey, MAILPIECE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = await once(child, "exit");
  return { code, stdout, stderr, junit: readJunit(junit), markdown: readFileSync(markdown, "utf8") };
}

interface JunitCase {
  name: string;
  classname: string;
  failure?: { message: string; "#text": string };
  skipped?: { message: string };
}
interface JunitSuite {
  name: string;
  tests: string;
  failures: string;
  skipped: string;
  testcase: JunitCase[];
}

/** The JUnit report as a CI tool reads it. */
function readJunit(file: string): {
  testsuites: { tests: string; failures: string; testsuite: JunitSuite[] };
} {
  const require = createRequire(join(ROOT, "conformance", "package.json"));
  const { XMLParser } = require(require.resolve("fast-xml-parser")) as {
    XMLParser: new (options: object) => { parse(xml: string): never };
  };
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    isArray: (name: string) => name === "testsuite" || name === "testcase",
  });
  return parser.parse(readFileSync(file, "utf8"));
}

const cases = (report: ReturnType<typeof readJunit>) =>
  report.testsuites.testsuite.flatMap((suite) =>
    suite.testcase.map((testcase) => ({ suite: suite.name, ...testcase })),
  );

describe("the conformance CLI against the reference server", () => {
  it(
    "finds every surface, runs every suite, passes every test and writes JUnit and Markdown reports",
    async () => {
      const profilesPort = await freePort();
      const { url, apiKey } = await serve("reference", profilesPort);
      const run = await runCli(url, apiKey, profilesPort, "reference");
      expect(run.stderr).toBe("");
      for (const surface of ["machine", "mcp", "ucp", "v1"]) {
        expect(run.stdout).toMatch(new RegExp(`^${surface}: declared \\(`, "m"));
      }
      expect(run.stdout).toContain("suites run: machine, mcp, ucp, v1");
      const [, passed] = /^(\d+) passed, 0 failed$/m.exec(run.stdout) ?? [];
      expect(run.stdout, "no test fails and every test applies").toMatch(/^0 not applicable$/m);
      expect(run.code).toBe(0);

      const report = run.junit;
      const all = cases(report);
      expect(report.testsuites.testsuite).toHaveLength(4);
      expect(Number(report.testsuites.tests)).toBe(all.length);
      expect(Number(report.testsuites.tests)).toBe(Number(passed));
      expect(report.testsuites.failures).toBe("0");
      for (const suite of report.testsuites.testsuite) {
        expect(Number(suite.tests), suite.name).toBe(suite.testcase.length);
        expect([suite.failures, suite.skipped], suite.name).toEqual(["0", "0"]);
      }
      expect(all.filter((testcase) => testcase.failure || testcase.skipped)).toEqual([]);
      expect(run.markdown).toContain(`- **${passed} passed, 0 failed, 0 not applicable**`);
      expect(run.stdout + run.markdown).not.toContain(apiKey);
      expect(run.stdout + run.markdown).not.toContain(ADMIN_TOKEN);
    },
    10 * MINUTE,
  );

  it(
    "fails exactly the requirement a deployment breaks, and exits 1",
    async () => {
      // One broken rule: the balance answers without Cache-Control: no-store.
      const dropNoStore: ServerHooks["wrapFetch"] = (fetch) => async (request) => {
        const response = await fetch(request);
        if (new URL(request.url).pathname !== "/api/v1/credits/balance") return response;
        const headers = new Headers(response.headers);
        headers.delete("cache-control");
        return new Response(response.body, { status: response.status, headers });
      };
      const profilesPort = await freePort();
      const { url, apiKey } = await serve("broken", profilesPort, { wrapFetch: dropNoStore });
      const run = await runCli(url, apiKey, profilesPort, "broken");
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^\d+ passed, 1 failed$/m);
      const failed = cases(run.junit).filter((testcase) => testcase.failure);
      expect(failed.map((testcase) => testcase.name)).toEqual([
        "every answer is marked Cache-Control: no-store",
      ]);
      const [broken] = failed;
      expect(broken?.suite).toMatch(/^Projects API/);
      expect(broken?.failure?.["#text"]).toContain("requirement: spec 3");
      expect(broken?.failure?.["#text"]).toMatch(/request: \w+ \/api\/v1\/credits\/balance → \d{3}/);
      expect(broken?.failure?.message).toContain("Cache-Control: no-store");
      expect(run.markdown).toContain("### ❌ every answer is marked Cache-Control: no-store");
      expect(run.junit.testsuites.failures).toBe("1");
    },
    10 * MINUTE,
  );
});

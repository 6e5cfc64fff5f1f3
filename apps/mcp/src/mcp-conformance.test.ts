import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startMcpServer } from "./test-server.fixture.ts";

/**
 * The official MCP conformance runner (@modelcontextprotocol/conformance), unmodified, against /mcp: every server
 * scenario runs; those that need the runner's own fixture tools or capabilities this server does not offer are
 * listed with their reasons in conformance-baseline.yml, and the runner fails on any other failure and on a listed
 * scenario that passes. On Node 20 the runner gets fs.globSync from fs-glob-sync.fixture.mjs.
 */
let started: Awaited<ReturnType<typeof startMcpServer>>;
const results = mkdtempSync(join(tmpdir(), "mailpiece-mcp-conformance-"));

beforeAll(async () => {
  started = await startMcpServer();
}, 60_000);
afterAll(async () => {
  await started.app.close();
  await started.running.close();
  rmSync(results, { recursive: true, force: true });
});

it("passes every MCP conformance scenario that applies, and only the listed ones fail", async () => {
  const runner = join(
    dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
    "dist/index.js",
  );
  const child = spawn(
    process.execPath,
    [
      "--import",
      new URL("./fs-glob-sync.fixture.mjs", import.meta.url).href,
      runner,
      "server",
      "--url",
      `${started.base}/mcp`,
      "--suite",
      "all",
      "--expected-failures",
      join(import.meta.dirname, "../conformance-baseline.yml"),
    ],
    { cwd: results, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const [code] = await once(child, "exit");
  expect(output).toMatch(/Baseline check passed/);
  for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    expect(output).toMatch(new RegExp(`\\[${scenario}|${scenario}`));
  }
  expect(code, output.slice(-3000)).toBe(0);
}, 240_000);

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConformanceError } from "../conformance-error.ts";
import { formatReport } from "../kit.ts";
import { urlTarget } from "../machine/http-target.ts";
import { DEFAULT_SUITE_ADDRESSES, type MachineSuiteOptions } from "../machine/machine-suite.ts";
import { junitReport } from "../report/junit-report.ts";
import { markdownReport } from "../report/markdown-report.ts";
import { reportHeader } from "../report/report-header.ts";
import { type PlatformProfileServer, servePlatformProfiles } from "../ucp/platform-profiles.ts";
import { type ConformanceReport, type ConformanceRunOptions, runConformance } from "./run-conformance.ts";
import { isSurfaceName, SURFACES, type SurfaceName } from "./surfaces.ts";

export const USAGE = `Usage: mailpiece-conformance run --base-url URL [--surface ${SURFACES.join(",")}]
         [--api-key KEY] [--admin-token TOKEN] [--junit FILE] [--markdown FILE] [--json]
         [--ucp-profile URL | --ucp-profiles-port PORT] [--webhook-url URL]
         [--address-us ID --address-ca ID | --without-address-search]

Finds the surfaces the deployment at URL declares (machine and v1: paths in /openapi.json; the x402 manifest;
ucp: /.well-known/ucp; mcp: tools listed at /mcp) and runs the conformance suite of each, or of those named with
--surface (a named surface the deployment does not declare fails the run). Prints a report per requirement:
passed, failed (with the last request the test sent) or not applicable (with the reason).

  --surface LIST      comma-separated surfaces to check (also --suite, and repeatable)
  --api-key KEY       a Projects API test-mode key for the v1 suite (or env MAILPIECE_API_KEY)
  --admin-token TOKEN the deployment's admin token for the v1 suite (or env MAILPIECE_ADMIN_TOKEN)
  --junit FILE        also write the report as JUnit XML
  --markdown FILE     also write the report as Markdown
  --json              print the report as JSON instead of text
  --webhook-url URL   an HTTPS receiver of yours that the v1 webhook endpoint check registers, then
                      disables; without it that check is not applicable and no endpoint is registered
  --ucp-profile URL   a UCP platform profile (version 2026-01-11, listing dev.ucp.shopping.checkout) that the
                      deployment may fetch, for the UCP checkout checks
  --ucp-profiles-port PORT
                      serve the UCP suite's platform profiles from 127.0.0.1:PORT instead (the deployment must
                      admit that host, e.g. UCP_PROFILE_HOSTS=127.0.0.1:PORT); checks a newer platform as well
  --address-us ID, --address-ca ID
                      address search ids (type Address) the deployment knows, one in each country; default the
                      sample of @mailpiece/address-embedded
  --without-address-search
                      the deployment has no address search: Address mode must be refused

Secrets are never printed: requests are shown by method, path and status, with secret query values replaced.
The machine suite creates unpaid orders only; suites that pay or send do so only in test mode or on simulated rails.
Exit code: 0 when no test fails, 1 when any fails, 2 on bad usage. "run" may be left out.`;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
}

const OPTIONS = {
  "base-url": { type: "string" },
  surface: { type: "string", multiple: true },
  suite: { type: "string", multiple: true },
  "api-key": { type: "string" },
  "admin-token": { type: "string" },
  junit: { type: "string" },
  markdown: { type: "string" },
  json: { type: "boolean", default: false },
  "ucp-profile": { type: "string" },
  "webhook-url": { type: "string" },
  "ucp-profiles-port": { type: "string" },
  "address-us": { type: "string" },
  "address-ca": { type: "string" },
  "without-address-search": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

interface Parsed {
  run: ConformanceRunOptions;
  /** The port to serve the UCP suite's platform profiles from. */
  profilesPort?: number;
  junit?: string;
  markdown?: string;
  json: boolean;
}

const usage = (flag: string, message: string) =>
  new ConformanceError("invalid_option", message, {
    issues: [{ path: flag, code: "invalid_option", message }],
  });

/** Reads the command line into run options; throws a ConformanceError naming the flag at fault. */
export function parseCommandLine(argv: readonly string[], env: CliIo["env"]): Parsed | "help" {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw usage("", (error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === "help") return "help";
  if (positionals.length > 1 || (positionals.length === 1 && positionals[0] !== "run")) {
    throw usage("command", `unknown command "${positionals.join(" ")}"; the command is "run"`);
  }
  const baseUrl = values["base-url"];
  if (!baseUrl || !/^https?:\/\/[^/]/.test(baseUrl))
    throw usage("--base-url", "--base-url must be an http(s) URL");
  let surfaces: SurfaceName[] | undefined;
  const named = [...(values.surface ?? []), ...(values.suite ?? [])].flatMap((list) => list.split(","));
  if (named.length > 0) {
    const unknown = named.map((s) => s.trim()).filter((s) => !isSurfaceName(s));
    if (unknown.length > 0) {
      throw new ConformanceError(
        "unknown_surface",
        `unknown surface ${unknown.map((s) => `"${s}"`).join(", ")}; the surfaces are ${SURFACES.join(", ")}`,
        {
          issues: [{ path: "--surface", code: "unknown_surface", message: `unknown: ${unknown.join(", ")}` }],
        },
      );
    }
    surfaces = named.map((s) => s.trim()) as SurfaceName[];
  }
  const us = values["address-us"];
  const ca = values["address-ca"];
  if ((us === undefined) !== (ca === undefined) || (values["without-address-search"] && us !== undefined)) {
    throw usage("--address-us", "give both --address-us and --address-ca, or --without-address-search");
  }
  const shown = "as found by address search";
  const machine: MachineSuiteOptions = {
    addresses: values["without-address-search"]
      ? false
      : us !== undefined && ca !== undefined
        ? { us: { id: us, text: shown }, ca: { id: ca, text: shown } }
        : DEFAULT_SUITE_ADDRESSES,
  };
  const profile = values["ucp-profile"];
  const portText = values["ucp-profiles-port"];
  if (profile !== undefined && portText !== undefined) {
    throw usage("--ucp-profile", "give --ucp-profile or --ucp-profiles-port, not both");
  }
  if (profile !== undefined && !/^https?:\/\/[^/]/.test(profile)) {
    throw usage("--ucp-profile", "--ucp-profile must be an http(s) URL");
  }
  const profilesPort = portText === undefined ? undefined : Number(portText);
  if (
    profilesPort !== undefined &&
    !(Number.isInteger(profilesPort) && profilesPort > 0 && profilesPort < 65536)
  ) {
    throw usage("--ucp-profiles-port", "--ucp-profiles-port must be a port number from 1 to 65535");
  }
  const webhookUrl = values["webhook-url"];
  if (webhookUrl !== undefined && !/^https:\/\/[^/]/.test(webhookUrl)) {
    throw usage("--webhook-url", "--webhook-url must be an https URL");
  }
  const apiKey = values["api-key"] ?? env.MAILPIECE_API_KEY;
  const adminToken = values["admin-token"] ?? env.MAILPIECE_ADMIN_TOKEN;
  const run: ConformanceRunOptions = {
    target: urlTarget(baseUrl),
    machine,
    ...(profile ? { ucp: { platformProfile: profile } } : {}),
    ...(surfaces ? { surfaces } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(adminToken ? { adminToken } : {}),
  };
  return {
    run,
    json: values.json,
    ...(profilesPort ? { profilesPort } : {}),
    ...(values.junit ? { junit: resolve(values.junit) } : {}),
    ...(values.markdown ? { markdown: resolve(values.markdown) } : {}),
  };
}

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** The command: runs the suites and prints the report; answers the exit code (0 passed, 1 failed, 2 usage). */
export async function cliMain(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: Parsed | "help";
  try {
    parsed = parseCommandLine(argv, io.env);
  } catch (error) {
    io.stderr(`${(error as Error).message}\nRun "mailpiece-conformance --help" for the flags.\n`);
    return 2;
  }
  if (parsed === "help") {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  let publisher: PlatformProfileServer | undefined;
  try {
    publisher = parsed.profilesPort ? await servePlatformProfiles(parsed.profilesPort) : undefined;
  } catch (error) {
    io.stderr(`cannot serve UCP profiles on 127.0.0.1:${parsed.profilesPort}: ${(error as Error).message}\n`);
    return 2;
  }
  const profiles = publisher;
  let report: ConformanceReport;
  try {
    report = await runConformance(
      profiles
        ? { ...parsed.run, ucp: { platformProfile: (profile) => profiles.publish(profile) } }
        : parsed.run,
    );
  } finally {
    await profiles?.close();
  }
  const header = reportHeader(report);
  io.stdout(
    parsed.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report.suites, header)}\n`,
  );
  for (const problem of report.problems) io.stderr(`${problem}\n`);
  try {
    if (parsed.junit) write(parsed.junit, junitReport(report.suites, { timestamp: report.startedAt }));
    if (parsed.markdown) write(parsed.markdown, markdownReport(report.suites, header));
  } catch (error) {
    io.stderr(`cannot write the report: ${(error as Error).message}\n`);
    return 2;
  }
  return report.failed === 0 ? 0 : 1;
}

import { runSuite, type Suite, type SuiteReport, totals } from "../kit.ts";
import type { HttpTarget } from "../machine/http-target.ts";
import type { MachineSuiteOptions } from "../machine/machine-suite.ts";
import { recordingTarget } from "../report/request-log.ts";
import type { UcpSuiteOptions } from "../ucp/ucp-suite.ts";
import { discoverSurfaces } from "./discover-surfaces.ts";
import { SURFACES, type SurfaceDiscovery, type SurfaceName } from "./surfaces.ts";

export interface ConformanceRunOptions {
  /** The deployment: `urlTarget(baseUrl)`, or an app in-process (`appTarget(app)`). */
  target: HttpTarget;
  /**
   * The surfaces to check. Default: every surface the deployment declares. A surface named here that the
   * deployment does not declare fails the run.
   */
  surfaces?: readonly SurfaceName[];
  /** A Projects API key for the v1 suite (a test-mode key: the suite pays only with test credits). */
  apiKey?: string;
  /** The deployment's admin token, for the v1 suite's checks that need a workspace made for them. */
  adminToken?: string;
  /** The HTTPS receiver the v1 webhook check registers, then disables. Default the v1 suite's. */
  webhookUrl?: string;
  /** The machine suite's options (address search ids). */
  machine?: MachineSuiteOptions;
  /** The UCP suite's options. */
  ucp?: UcpSuiteOptions;
  /** The MCP endpoint's path. Default /mcp. */
  mcpPath?: string;
  /** The clock of the report's times. Default the system clock. */
  now?: () => Date;
}

export interface ConformanceReport {
  /** The target's label: its base URL. */
  target: string;
  startedAt: string;
  finishedAt: string;
  /** What the deployment declares, surface by surface. */
  discovery: SurfaceDiscovery[];
  /** The surfaces whose suites ran. */
  surfaces: SurfaceName[];
  suites: SuiteReport[];
  /** Why a surface could not be checked: named but not declared, or its suite did not start. */
  problems: string[];
  passed: number;
  failed: number;
  notApplicable: number;
}

/** Builds the suite of one surface; loaded only when the surface runs. */
async function suiteOf(
  surface: SurfaceName,
  target: HttpTarget,
  options: ConformanceRunOptions,
): Promise<Suite> {
  switch (surface) {
    case "machine":
      return (await import("../machine/machine-suite.ts")).machineSuite(target, options.machine);
    case "mcp":
      return (await import("../mcp/mcp-suite.ts")).mcpSuite(target, { path: options.mcpPath ?? "/mcp" });
    case "ucp":
      return (await import("../ucp/ucp-suite.ts")).ucpSuite(target, options.ucp);
    case "v1":
      return (await import("../v1/v1-suite.ts")).v1Suite(target, {
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.adminToken ? { adminToken: options.adminToken } : {}),
        ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
      });
  }
}

/** `text` with every secret replaced by REDACTED. */
function redactText(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => out.split(secret).join("REDACTED"), text);
}

/** Replaces the run's secrets in what the tests reported, should a suite's message have quoted one. */
export function removeSecrets(suites: readonly SuiteReport[], secrets: readonly string[]): void {
  for (const outcome of suites.flatMap((suite) => suite.outcomes)) {
    if (outcome.reason !== undefined) outcome.reason = redactText(outcome.reason, secrets);
    for (const request of outcome.requests ?? []) {
      request.path = redactText(request.path, secrets);
      if (request.error !== undefined) request.error = redactText(request.error, secrets);
    }
  }
}

/** A report of one failed check for a surface whose suite could not run. */
function failedSurface(surface: SurfaceName | "any", name: string, reason: string): SuiteReport {
  return {
    suite: `${surface} surface`,
    outcomes: [{ name, status: "failed", ms: 0, reason }],
    passed: 0,
    failed: 1,
    notApplicable: 0,
  };
}

/**
 * Finds the surfaces a deployment declares and runs the suite of each (or of those named), recording the requests
 * each test sends so that a failure names its last one.
 */
export async function runConformance(options: ConformanceRunOptions): Promise<ConformanceReport> {
  const now = options.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const target = recordingTarget(options.target);
  const discovery = await discoverSurfaces(options.target, options.mcpPath);
  const declared = new Set(discovery.filter((d) => d.declared).map((d) => d.surface));
  const wanted = options.surfaces ? SURFACES.filter((s) => options.surfaces?.includes(s)) : [...declared];
  const suites: SuiteReport[] = [];
  const problems: string[] = [];
  const ran: SurfaceName[] = [];
  if (!options.surfaces && declared.size === 0) {
    const evidence = discovery.map((d) => `${d.surface}: ${d.evidence}`).join("; ");
    problems.push(`the deployment declares no surface: ${evidence}`);
    suites.push(failedSurface("any", "the deployment declares a surface", evidence));
  }
  for (const surface of wanted) {
    if (!declared.has(surface)) {
      const evidence = discovery.find((d) => d.surface === surface)?.evidence ?? "not found";
      const name = `the deployment declares the ${surface} surface`;
      problems.push(`${surface} was asked for, but the deployment does not declare it: ${evidence}`);
      suites.push(failedSurface(surface, name, `not declared: ${evidence}`));
      continue;
    }
    ran.push(surface);
    let suite: Suite;
    try {
      suite = await suiteOf(surface, target, options);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      problems.push(`the ${surface} suite did not start: ${reason}`);
      suites.push(failedSurface(surface, `the ${surface} suite starts`, reason));
      continue;
    }
    suites.push(await runSuite(suite));
  }
  const secrets = [options.apiKey, options.adminToken].filter(
    (s): s is string => typeof s === "string" && s !== "",
  );
  removeSecrets(suites, secrets);
  return {
    target: options.target.label,
    startedAt,
    finishedAt: now().toISOString(),
    discovery,
    surfaces: ran,
    suites,
    problems: problems.map((problem) => redactText(problem, secrets)),
    ...totals(suites),
  };
}

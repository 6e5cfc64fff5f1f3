import fc from "fast-check";
import type { Answer, Call, FuzzServer } from "./harness.ts";

/** Cases per property: FUZZ_RUNS (default 25, small enough for the whole suite to run in about two minutes). */
export const RUNS = positive(process.env.FUZZ_RUNS, 25);

/** The seed of every property: FUZZ_SEED, or a fixed one so that a run repeats; fast-check prints it on failure. */
export const SEED =
  process.env.FUZZ_SEED === "random" ? Date.now() : positive(process.env.FUZZ_SEED, 20261124);

/** Longest a property runs before it stops with the cases run so far (FUZZ_TIME_LIMIT_MS, default 60 s). */
export const TIME_LIMIT_MS = positive(process.env.FUZZ_TIME_LIMIT_MS, 60_000);

function positive(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : fallback;
}

/**
 * Runs an async property RUNS times from SEED, stopping at the first failure (no shrinking: a request that fails
 * is reported as it was sent), within TIME_LIMIT_MS; `examples` run first. With FUZZ_COLLECT=1 it runs every case instead and fails at
 * the end with each distinct problem found and one request that shows it.
 */
export async function fuzz<T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  options: { runs?: number; examples?: T[] } = {},
): Promise<void> {
  const runs = options.runs ?? RUNS;
  const collect = process.env.FUZZ_COLLECT === "1";
  const found = new Map<string, { count: number; example: string }>();
  const run = collect
    ? async (value: T) => {
        try {
          await predicate(value);
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          const kind = problemKind(text);
          const seen = found.get(kind);
          found.set(kind, { count: (seen?.count ?? 0) + 1, example: seen?.example ?? text });
        }
      }
    : predicate;
  await fc.assert(fc.asyncProperty(arbitrary, run), {
    numRuns: runs,
    // Requests that once broke a surface run first, every time, whatever the seed.
    examples: (options.examples ?? []).map((example) => [example] as [T]),
    seed: SEED,
    endOnFailure: true,
    plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)],
  });
  if (found.size > 0) {
    const report = [...found].map(
      ([kind, { count, example }]) => `### ${kind} (${count}×)\n${clip(example, 3000)}`,
    );
    throw new Error(`${found.size} distinct problem(s):\n\n${report.join("\n\n")}`);
  }
}

/** A failure's first problem line with its particulars (numbers, quoted values) blurred, to group like failures. */
function problemKind(text: string): string {
  const first = text.split("\n").find((line) => line.startsWith("- ")) ?? text.split("\n")[0] ?? "";
  return first
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\d+/g, "N")
    .slice(0, 200);
}

/** A request as a failure report shows it: method, path, headers and the start of the body. */
export function describeCall(call: Call): string {
  const body =
    call.body === undefined
      ? ""
      : typeof call.body === "string"
        ? clip(call.body)
        : `<${call.body.byteLength} bytes: ${clip(Buffer.from(call.body).toString("latin1"))}>`;
  const headers = (call.headers ?? []).map(([name, value]) => `\n  ${name}: ${clip(value, 200)}`).join("");
  return `${call.method} ${clip(call.path, 300)}${call.ip ? ` (client ${call.ip})` : ""}${headers}${body ? `\n  body: ${body}` : ""}`;
}

export function describeAnswer(answer: Answer): string {
  return `${answer.status} ${answer.headers.get("content-type") ?? "(no content type)"}\n  ${clip(answer.text, 1500)}`;
}

/** A long text shortened for a report, saying how long it was. */
export function clip(text: string, max = 600): string {
  return text.length <= max
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}

/** Makes a generated request print shortly in fast-check's counterexample. */
export function printable<T extends Call>(call: T): T {
  Object.defineProperty(call, fc.toStringMethod, { value: () => describeCall(call), enumerable: false });
  return call;
}

/** Collects what an answer breaks, and fails once with the request and the answer. */
export class Verdict {
  readonly problems: string[] = [];

  constructor(
    readonly call: Call | string,
    readonly answer: Answer | string,
  ) {}

  expect(ok: boolean, problem: string): void {
    if (!ok) this.problems.push(problem);
  }

  done(): void {
    if (this.problems.length === 0) return;
    const call = typeof this.call === "string" ? this.call : describeCall(this.call);
    const answer = typeof this.answer === "string" ? this.answer : describeAnswer(this.answer);
    throw new Error(`${this.problems.map((p) => `- ${p}`).join("\n")}\nrequest: ${call}\nanswer: ${answer}`);
  }
}

/** The secret the text contains, if any (shortened for the report). */
export function leakedSecret(text: string, secrets: Iterable<string>): string | undefined {
  for (const secret of secrets) {
    if (secret.length >= 16 && text.includes(secret)) return `${secret.slice(0, 12)}…`;
  }
  return undefined;
}

/**
 * The segments of a field path: dotted (`a.b.0`), with indexes (`a[0]`), with quoted keys (`a["x.y"]`), as a
 * JSONPath from `$` (`$.a["x.y"][0]`). Undefined when the text is not such a path.
 */
export function pathSegmentsOf(path: string): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  let rest = path.startsWith("$") ? path.slice(1) : path;
  let first = !path.startsWith("$");
  while (rest.length > 0) {
    const index = /^\[(\d+)\]/.exec(rest);
    const quoted = index ? null : /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    const named = index || quoted ? null : (first ? /^([^.[\]]+)/ : /^\.([^.[\]]+)/).exec(rest);
    const match = index ?? quoted ?? named;
    if (index) out.push(Number(index[1]));
    else if (quoted) out.push(JSON.parse(quoted[1]!) as string);
    else if (named) out.push(/^\d+$/.test(named[1]!) ? Number(named[1]) : named[1]!);
    if (!match) return undefined;
    rest = rest.slice(match[0].length);
    first = false;
  }
  return out;
}

/**
 * Whether an issue's path names a field of the request: each segment is a key the request has at that place, an
 * index of an array there, or a field the surface's schema knows (`known`: a required field that was left out, an
 * alias reported under its own name). "" names the request as a whole.
 */
export function pathNamesField(path: string, request: unknown, known: ReadonlySet<string>): boolean {
  if (path === "" || path === "$") return true;
  const segments = pathSegmentsOf(path);
  if (!segments) return false;
  let current: unknown = request;
  for (const segment of segments) {
    if (typeof segment === "number") {
      current = Array.isArray(current) ? current[segment] : undefined;
      continue;
    }
    if (typeof current === "object" && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
      continue;
    }
    if (known.has(segment)) {
      current = undefined;
      continue;
    }
    return false;
  }
  return true;
}

/** The request body as JSON, when it is; undefined otherwise. */
export function sentJson(call: Call): unknown {
  if (call.body === undefined) return undefined;
  try {
    return JSON.parse(typeof call.body === "string" ? call.body : Buffer.from(call.body).toString("utf8"));
  } catch {
    return undefined;
  }
}

/** The issues of an error body, or [] when it has none; `ok` false when `issues` is there but not a list of issues. */
export function issuesOf(body: unknown): { ok: boolean; issues: { path: string; code: string }[] } {
  const issues = (body as { issues?: unknown } | undefined)?.issues;
  if (issues === undefined) return { ok: true, issues: [] };
  const ok =
    Array.isArray(issues) &&
    issues.every(
      (issue) =>
        typeof issue === "object" &&
        issue !== null &&
        typeof (issue as { path?: unknown }).path === "string" &&
        typeof (issue as { code?: unknown }).code === "string" &&
        typeof (issue as { message?: unknown }).message === "string",
    );
  return { ok, issues: ok ? (issues as { path: string; code: string }[]) : [] };
}

/** Expects that the server logged no error while answering (an unexpected error is logged, then hidden). */
export function expectNothingLogged(verdict: Verdict, server: FuzzServer): void {
  const errors = server.takeErrors();
  verdict.expect(
    errors.length === 0,
    `the server logged an unexpected error: ${errors.map((line) => clip(line, 1500)).join("\n")}`,
  );
}

/** GET /health answers 200 and nothing unexpected was logged since the last check; throws otherwise. */
export async function expectHealthy(server: FuzzServer): Promise<void> {
  const health = await server.send({ method: "GET", path: "/health" });
  const errors = server.takeErrors();
  const problems: string[] = [];
  if (health.status !== 200) problems.push(`GET /health answered ${health.status}: ${clip(health.text)}`);
  if (errors.length > 0)
    problems.push(
      `the server logged ${errors.length} error(s):\n${errors
        .slice(0, 5)
        .map((line) => clip(line, 2000))
        .join("\n")}`,
    );
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

/** A loopback client address, so that per-client limits are spread over many clients. */
export const clientIp: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 254 }))
  .map(([a, b, c]) => `127.${a}.${b}.${c}`);

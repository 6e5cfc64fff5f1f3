import { strict as assert } from "node:assert";
import {
  type Clock,
  FINAL_PRINT_JOB_STATUSES,
  isDefiniteRefusal,
  MAILPIECE_TYPES,
  manualClock,
  POSTCARD_SIZES,
  PRINT_JOB_STATUSES,
  PRINT_MAIL_CLASSES,
  type PrintCapabilities,
  PrintError,
  type PrintErrorCode,
  type PrintJob,
  type PrintJobStatus,
  type PrintJobView,
  type PrintProvider,
} from "@mailpiece/ports";
import type { Suite } from "../kit.ts";
import { carriedJobs, malformedJobs, uncarriedJobs } from "./print-job-fixtures.ts";
import { refusedWith } from "./refused-with.ts";

/** The names of the PrintProvider contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const PRINT_PROVIDER_CONTRACT_NAMES = [
  "capabilities are declared, well-formed and constant",
  "submit accepts every job the capabilities carry",
  "submit refuses a job the capabilities do not carry with unsupported_job, creating nothing",
  "submit refuses a malformed job with invalid_job, creating nothing",
  "submit refuses a malformed idempotency key with invalid_idempotency_key",
  "submit is idempotent by key: a repeat returns the same reference as a replay",
  "submit is idempotent under concurrent callers: one job, one reference",
  "different keys give different jobs",
  "submit refuses a different job under a used key with idempotency_conflict",
  "lookup finds a submitted job by its key with its reference and current status",
  "lookup answers not_found for a key with no job",
  "status reports the current status and every event so far, oldest first",
  "status only moves forward and never rewrites an event",
  "tracking number and url are null or well-formed, and never change once set",
  "status refuses an unknown reference with job_not_found",
  "cancel before production cancels the job for good",
  "cancel of a canceled job returns it unchanged",
  "cancel after production starts is refused with cancel_too_late, changing nothing",
  "cancel refuses an unknown reference with job_not_found",
  "refusals are PrintErrors with stable codes, and submit refusals are definite",
] as const;

export type PrintProviderContractName = (typeof PRINT_PROVIDER_CONTRACT_NAMES)[number];

export interface PrintProviderContractContext {
  /** A manual clock starting at 2026-01-01; a simulated provider MUST read time from it. */
  clock: Clock & { advance(ms: number): void };
}

export interface PrintProviderContractOptions {
  /** Shown in reports, e.g. `simulated printer`. */
  name?: string;
  /** Makes a fresh provider with no jobs, on `ctx.clock`. Called once per test. */
  create(ctx: PrintProviderContractContext): Promise<PrintProvider>;
  /**
   * Moves the provider's time forward by `ms` (a sandbox's clock, for example). Default: `ctx.clock.advance(ms)`.
   * The suite never sleeps; a provider whose jobs do not move under `advance` passes the tests that do not need
   * them to, and fails the production test with a message that says so.
   */
  advance?(ms: number, ctx: PrintProviderContractContext): void | Promise<void>;
  /** Releases what `create` opened. */
  dispose?(provider: PrintProvider): void | Promise<void>;
  /** The longest a job may stay `submitted`, on the provider's clock. Default one day. */
  productionWithinMs?: number;
}

const DAY = 86_400_000;
/** Cumulative-free steps to poll a job at: seconds first, then minutes, hours and weeks. */
const POLL_STEPS = [
  0,
  1_000,
  1_000,
  2_000,
  5_000,
  10_000,
  30_000,
  60_000,
  300_000,
  3_600_000,
  DAY,
  7 * DAY,
  30 * DAY,
];
const PROGRESS: Partial<Record<PrintJobStatus, number>> = {
  submitted: 0,
  accepted: 1,
  in_transit: 2,
  delivered: 3,
  returned: 3,
};
const ERROR_CODES: readonly PrintErrorCode[] = [
  "invalid_job",
  "invalid_idempotency_key",
  "unsupported_job",
  "job_rejected",
  "idempotency_conflict",
  "job_not_found",
  "cancel_too_late",
  "provider_unavailable",
  "no_capable_provider",
];
const UNKNOWN_REFERENCE = "contract-reference-that-does-not-exist-0";

const newKey = () => `contract-${crypto.randomUUID()}`;

/** True when a job may go from `before` to `after` (equal statuses included). */
export function mayFollow(before: PrintJobStatus, after: PrintJobStatus): boolean {
  if (before === after) return true;
  if (FINAL_PRINT_JOB_STATUSES.includes(before)) return false;
  if (after === "failed") return before === "submitted" || before === "accepted";
  if (after === "canceled") return before === "submitted";
  return (PROGRESS[after] ?? -1) > (PROGRESS[before] ?? Number.POSITIVE_INFINITY);
}

/** Asserts the shape every job view must have; returns it. */
function checkView<V extends PrintJobView>(view: V, what: string): V {
  assert.equal(typeof view?.reference, "string", `${what}: reference is a string`);
  assert.ok(view.reference.length > 0, `${what}: reference is not empty`);
  assert.ok(PRINT_JOB_STATUSES.includes(view.status), `${what}: ${view.status} is a job status`);
  assert.ok(isIso(view.submitted_at), `${what}: submitted_at ${view.submitted_at} is an ISO 8601 time`);
  assert.ok(Array.isArray(view.events) && view.events.length > 0, `${what}: there is at least one event`);
  let previous: (typeof view.events)[number] | undefined;
  for (const [index, event] of view.events.entries()) {
    const where = `${what}: events[${index}]`;
    assert.ok(PRINT_JOB_STATUSES.includes(event.status), `${where}.status ${event.status} is a job status`);
    assert.ok(isIso(event.at), `${where}.at ${event.at} is an ISO 8601 time`);
    assert.ok(
      typeof event.description === "string" && event.description.length > 0,
      `${where} has a description`,
    );
    assert.ok(
      event.location === undefined || (typeof event.location === "string" && event.location.length > 0),
      `${where}.location is absent or a non-empty string`,
    );
    if (previous) {
      assert.ok(
        Date.parse(event.at) >= Date.parse(previous.at),
        `${where} is not older than the event before`,
      );
      assert.ok(
        mayFollow(previous.status, event.status),
        `${where}: ${event.status} cannot follow ${previous.status}`,
      );
    }
    previous = event;
  }
  assert.equal(previous?.status, view.status, `${what}: the last event carries the current status`);
  checkTracking(view, what);
  return view;
}

function checkTracking(view: PrintJobView, what: string): void {
  const { tracking_number: number, tracking_url: url } = view;
  assert.ok(
    number === null || (typeof number === "string" && number.length > 0),
    `${what}: tracking_number is null or a non-empty string, got ${JSON.stringify(number)}`,
  );
  assert.ok(url === null || typeof url === "string", `${what}: tracking_url is null or a string`);
  if (url !== null) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    assert.equal(parsed?.protocol, "https:", `${what}: tracking_url ${url} is an absolute https URL`);
  }
}

function isIso(value: unknown): boolean {
  return (
    typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value) && !Number.isNaN(Date.parse(value))
  );
}

function checkCapabilities(capabilities: PrintCapabilities): void {
  const code = /^[A-Z]{2}$/;
  const subset = <T>(values: readonly T[], allowed: readonly T[], what: string) => {
    assert.ok(Array.isArray(values), `capabilities.${what} is a list`);
    for (const value of values)
      assert.ok(allowed.includes(value), `capabilities.${what}: ${String(value)} is known`);
    assert.equal(new Set(values).size, values.length, `capabilities.${what} has no duplicates`);
  };
  assert.ok(
    code.test(capabilities.origin_country),
    "capabilities.origin_country is an upper-case alpha-2 code",
  );
  assert.ok(capabilities.countries.length > 0, "capabilities.countries is not empty");
  for (const country of [...capabilities.countries, ...capabilities.registered]) {
    assert.ok(code.test(country), `country ${JSON.stringify(country)} is an upper-case alpha-2 code`);
  }
  for (const country of capabilities.registered) {
    assert.ok(capabilities.countries.includes(country), `registered country ${country} is a destination`);
    assert.notEqual(country, capabilities.origin_country, "registered mail is for countries abroad");
  }
  subset(capabilities.mailpiece_types, MAILPIECE_TYPES, "mailpiece_types");
  assert.ok(capabilities.mailpiece_types.length > 0, "capabilities.mailpiece_types is not empty");
  subset(capabilities.postcard_sizes, POSTCARD_SIZES, "postcard_sizes");
  subset(capabilities.mail_classes, PRINT_MAIL_CLASSES, "mail_classes");
  for (const flag of ["certified", "color", "double_sided"] as const) {
    assert.equal(typeof capabilities[flag], "boolean", `capabilities.${flag} is a boolean`);
  }
  const abroad = capabilities.international_postcards;
  if (abroad !== null) {
    subset(abroad.sizes, capabilities.postcard_sizes, "international_postcards.sizes");
    assert.ok(["domestic", "any"].includes(abroad.return_address), "international_postcards.return_address");
  }
}

/**
 * The PrintProvider contract (adapters/ports/src/print-provider.ts) as a suite: one named test per MUST sentence.
 * Jobs are built from the provider's own capabilities, so one suite fits every provider.
 */
export function printProviderContract(
  options: PrintProviderContractOptions,
): Suite<PrintProviderContractName> {
  type Ctx = { provider: PrintProvider; advance(ms: number): Promise<void>; base: PrintJob };
  const run = (body: (ctx: Ctx) => Promise<void>) => async () => {
    const context: PrintProviderContractContext = { clock: manualClock() };
    const provider = await options.create(context);
    try {
      const carried = await carriedJobs(provider.capabilities);
      const home = carried.find(
        (c) =>
          c.job.mailpiece_type === "letter" &&
          c.job.recipient.country === provider.capabilities.origin_country,
      );
      const base = (home ?? carried[0])?.job;
      assert.ok(base, "the provider's capabilities carry no job at all");
      await body({
        provider,
        base,
        async advance(ms) {
          if (options.advance) await options.advance(ms, context);
          else context.clock.advance(ms);
        },
      });
    } finally {
      await options.dispose?.(provider);
    }
  };

  const productionWithin = options.productionWithinMs ?? DAY;

  /** Advances until the job leaves `submitted`; fails if it has not by `productionWithinMs`. */
  async function untilProduction(ctx: Ctx, reference: string): Promise<PrintJobView> {
    let view = await ctx.provider.status(reference);
    let waited = 0;
    let step = 1_000;
    while (view.status === "submitted" && waited < productionWithin) {
      await ctx.advance(step);
      waited += step;
      step = Math.min(step * 2, 3_600_000);
      view = await ctx.provider.status(reference);
    }
    assert.notEqual(
      view.status,
      "submitted",
      `the job is still submitted after ${waited} ms on the provider's clock; advance must move its jobs`,
    );
    return view;
  }

  const tests: Record<PrintProviderContractName, () => Promise<void>> = {
    "capabilities are declared, well-formed and constant": run(async ({ provider, base }) => {
      assert.equal(typeof provider.name, "string");
      assert.ok(provider.name.length > 0, "the provider has a name");
      assert.equal(typeof provider.simulated, "boolean", "the provider says whether it is simulated");
      const declared = structuredClone(provider.capabilities);
      checkCapabilities(provider.capabilities);
      const submitted = await provider.submit(base, { idempotencyKey: newKey() });
      if (submitted.status === "submitted") await provider.cancel(submitted.reference);
      assert.deepEqual(
        provider.capabilities,
        declared,
        "capabilities do not change during the provider's life",
      );
    }),

    "submit accepts every job the capabilities carry": run(async ({ provider }) => {
      const cases = await carriedJobs(provider.capabilities);
      for (const { label, job } of cases) {
        const result = await provider.submit(job, { idempotencyKey: newKey() });
        checkView(result, `submit(${label})`);
        assert.equal(result.idempotent_replay, false, `submit(${label}) is not a replay`);
      }
    }),

    "submit refuses a job the capabilities do not carry with unsupported_job, creating nothing": run(
      async ({ provider }) => {
        const cases = await uncarriedJobs(provider.capabilities);
        assert.ok(cases.length > 0, "the suite found a job these capabilities do not carry");
        for (const { label, job } of cases) {
          const key = newKey();
          await refusedWith(
            () => provider.submit(job, { idempotencyKey: key }),
            "unsupported_job",
            `submit(${label})`,
          );
          assert.deepEqual(
            await provider.lookup(key),
            { outcome: "not_found" },
            `${label}: nothing was created`,
          );
        }
      },
    ),

    "submit refuses a malformed job with invalid_job, creating nothing": run(async ({ provider, base }) => {
      for (const { label, job } of malformedJobs(base)) {
        const key = newKey();
        await refusedWith(
          () => provider.submit(job, { idempotencyKey: key }),
          "invalid_job",
          `submit(${label})`,
        );
        assert.deepEqual(
          await provider.lookup(key),
          { outcome: "not_found" },
          `${label}: nothing was created`,
        );
      }
    }),

    "submit refuses a malformed idempotency key with invalid_idempotency_key": run(
      async ({ provider, base }) => {
        const keys: unknown[] = [
          "",
          "-leading-dash",
          "has space",
          "a/b",
          "é",
          `k${"x".repeat(255)}`,
          undefined,
          42,
        ];
        for (const key of keys) {
          await refusedWith(
            () => provider.submit(base, { idempotencyKey: key as string }),
            "invalid_idempotency_key",
            `submit with key ${JSON.stringify(key)}`,
          );
        }
        const longest = `k${"x".repeat(254)}`;
        const accepted = await provider.submit(base, { idempotencyKey: longest });
        assert.equal(accepted.idempotent_replay, false, "a 255-character key is accepted");
      },
    ),

    "submit is idempotent by key: a repeat returns the same reference as a replay": run(
      async ({ provider, base, advance }) => {
        const key = newKey();
        const first = checkView(await provider.submit(base, { idempotencyKey: key }), "first submit");
        assert.equal(first.idempotent_replay, false, "the first submit is not a replay");
        await advance(1_000);
        const again = checkView(
          await provider.submit(structuredClone(base), { idempotencyKey: key }),
          "repeat",
        );
        assert.equal(again.reference, first.reference, "a repeat returns the same reference");
        assert.equal(again.idempotent_replay, true, "a repeat says it is a replay");
        assert.equal(again.submitted_at, first.submitted_at, "a repeat is the original job");
        const found = await provider.lookup(key);
        assert.equal(
          found.outcome === "found" && found.reference,
          first.reference,
          "lookup finds that one job",
        );
      },
    ),

    "submit is idempotent under concurrent callers: one job, one reference": run(
      async ({ provider, base }) => {
        const key = newKey();
        const results = await Promise.all(
          Array.from({ length: 8 }, () => provider.submit(structuredClone(base), { idempotencyKey: key })),
        );
        const references = new Set(results.map((r) => r.reference));
        assert.equal(references.size, 1, `eight concurrent submits gave ${references.size} references`);
        assert.equal(
          results.filter((r) => !r.idempotent_replay).length,
          1,
          "exactly one concurrent submit is the original",
        );
        const found = await provider.lookup(key);
        assert.equal(found.outcome === "found" && found.reference, results[0]?.reference);
      },
    ),

    "different keys give different jobs": run(async ({ provider, base }) => {
      const a = newKey();
      const b = newKey();
      const first = await provider.submit(base, { idempotencyKey: a });
      const second = await provider.submit(base, { idempotencyKey: b });
      assert.notEqual(first.reference, second.reference, "two keys give two references");
      assert.equal(second.idempotent_replay, false, "the second key is not a replay of the first");
      const foundA = await provider.lookup(a);
      const foundB = await provider.lookup(b);
      assert.equal(foundA.outcome === "found" && foundA.reference, first.reference);
      assert.equal(foundB.outcome === "found" && foundB.reference, second.reference);
    }),

    "submit refuses a different job under a used key with idempotency_conflict": run(
      async ({ provider, base }) => {
        const key = newKey();
        const first = await provider.submit(base, { idempotencyKey: key });
        const before = await provider.status(first.reference);
        const other: PrintJob = {
          ...base,
          recipient: { ...base.recipient, name: `${base.recipient.name} Junior` },
        };
        await refusedWith(
          () => provider.submit(other, { idempotencyKey: key }),
          "idempotency_conflict",
          "submit of another recipient under a used key",
        );
        const found = await provider.lookup(key);
        assert.equal(
          found.outcome === "found" && found.reference,
          first.reference,
          "the key still names its job",
        );
        assert.deepEqual(await provider.status(first.reference), before, "the original job is unchanged");
      },
    ),

    "lookup finds a submitted job by its key with its reference and current status": run(
      async ({ provider, base, advance }) => {
        const key = newKey();
        const submitted = await provider.submit(base, { idempotencyKey: key });
        for (const step of [0, 5_000, 60_000, DAY]) {
          await advance(step);
          const found = await provider.lookup(key);
          const now = await provider.status(submitted.reference);
          assert.deepEqual(
            found,
            { outcome: "found", reference: submitted.reference, status: now.status },
            `lookup after ${step} ms more`,
          );
        }
      },
    ),

    "lookup answers not_found for a key with no job": run(async ({ provider, base }) => {
      await provider.submit(base, { idempotencyKey: newKey() });
      assert.deepEqual(await provider.lookup(newKey()), { outcome: "not_found" });
    }),

    "status reports the current status and every event so far, oldest first": run(
      async ({ provider, base, advance }) => {
        const submitted = checkView(await provider.submit(base, { idempotencyKey: newKey() }), "submit");
        let waited = 0;
        for (const step of POLL_STEPS) {
          await advance(step);
          waited += step;
          const view = checkView(await provider.status(submitted.reference), `status after ${waited} ms`);
          assert.equal(view.reference, submitted.reference, "status answers for the job asked about");
          assert.equal(view.submitted_at, submitted.submitted_at, "submitted_at does not change");
        }
      },
    ),

    "status only moves forward and never rewrites an event": run(async ({ provider, base, advance }) => {
      const { reference } = await provider.submit(base, { idempotencyKey: newKey() });
      let previous: PrintJobView | undefined;
      let waited = 0;
      for (const step of POLL_STEPS) {
        await advance(step);
        waited += step;
        const view = checkView(await provider.status(reference), `status after ${waited} ms`);
        if (previous) {
          assert.ok(
            mayFollow(previous.status, view.status),
            `after ${waited} ms: ${view.status} cannot follow ${previous.status}`,
          );
          assert.deepEqual(
            view.events.slice(0, previous.events.length),
            previous.events,
            `after ${waited} ms: events reported before are reported again unchanged`,
          );
        }
        previous = view;
      }
    }),

    "tracking number and url are null or well-formed, and never change once set": run(
      async ({ provider, base, advance }) => {
        const { reference } = await provider.submit(base, { idempotencyKey: newKey() });
        let number: string | null = null;
        let url: string | null = null;
        for (const step of POLL_STEPS) {
          await advance(step);
          const view = await provider.status(reference);
          checkTracking(view, "status");
          if (number !== null)
            assert.equal(view.tracking_number, number, "the tracking number never changes");
          if (url !== null) assert.equal(view.tracking_url, url, "the tracking url never changes");
          number = view.tracking_number;
          url = view.tracking_url;
        }
      },
    ),

    "status refuses an unknown reference with job_not_found": run(async ({ provider, base }) => {
      await provider.submit(base, { idempotencyKey: newKey() });
      await refusedWith(() => provider.status(UNKNOWN_REFERENCE), "job_not_found", "status(unknown)");
    }),

    "cancel before production cancels the job for good": run(async ({ provider, base, advance }) => {
      const key = newKey();
      const submitted = await provider.submit(base, { idempotencyKey: key });
      assert.equal(submitted.status, "submitted", "a new job waits before production, so it can be canceled");
      const canceled = checkView(await provider.cancel(submitted.reference), "cancel");
      assert.equal(canceled.status, "canceled");
      for (const step of POLL_STEPS) {
        await advance(step);
        const view = await provider.status(submitted.reference);
        assert.equal(view.status, "canceled", "a canceled job is never produced");
        assert.deepEqual(view.events, canceled.events, "nothing happens to a canceled job");
      }
      const found = await provider.lookup(key);
      assert.deepEqual(found, { outcome: "found", reference: submitted.reference, status: "canceled" });
    }),

    "cancel of a canceled job returns it unchanged": run(async ({ provider, base, advance }) => {
      const submitted = await provider.submit(base, { idempotencyKey: newKey() });
      const canceled = await provider.cancel(submitted.reference);
      await advance(60_000);
      assert.deepEqual(
        await provider.cancel(submitted.reference),
        canceled,
        "canceling again changes nothing",
      );
    }),

    "cancel after production starts is refused with cancel_too_late, changing nothing": run(async (ctx) => {
      const { reference } = await ctx.provider.submit(ctx.base, { idempotencyKey: newKey() });
      const before = await untilProduction(ctx, reference);
      await refusedWith(
        () => ctx.provider.cancel(reference),
        "cancel_too_late",
        `cancel of a ${before.status} job`,
      );
      assert.deepEqual(await ctx.provider.status(reference), before, "the refused cancel changed nothing");
    }),

    "cancel refuses an unknown reference with job_not_found": run(async ({ provider, base }) => {
      await provider.submit(base, { idempotencyKey: newKey() });
      await refusedWith(() => provider.cancel(UNKNOWN_REFERENCE), "job_not_found", "cancel(unknown)");
    }),

    "refusals are PrintErrors with stable codes, and submit refusals are definite": run(async (ctx) => {
      const { provider, base } = ctx;
      const key = newKey();
      const { reference } = await provider.submit(base, { idempotencyKey: key });
      const [uncarried] = await uncarriedJobs(provider.capabilities);
      const [malformed] = malformedJobs(base);
      const submitRefusals = [
        await refusedWith(
          () => provider.submit(base, { idempotencyKey: "" }),
          "invalid_idempotency_key",
          "bad key",
        ),
        await refusedWith(
          () =>
            provider.submit(
              { ...base, recipient: { ...base.recipient, line1: "2 Other Road" } },
              { idempotencyKey: key },
            ),
          "idempotency_conflict",
          "conflict",
        ),
      ];
      if (malformed)
        submitRefusals.push(
          await refusedWith(
            () => provider.submit(malformed.job, { idempotencyKey: newKey() }),
            "invalid_job",
            malformed.label,
          ),
        );
      if (uncarried) {
        submitRefusals.push(
          await refusedWith(
            () => provider.submit(uncarried.job, { idempotencyKey: newKey() }),
            "unsupported_job",
            uncarried.label,
          ),
        );
      }
      for (const error of submitRefusals) {
        assert.ok(isDefiniteRefusal(error), `${error.code} is a definite refusal: nothing was created`);
      }
      await untilProduction(ctx, reference);
      const others = [
        await refusedWith(() => provider.status(UNKNOWN_REFERENCE), "job_not_found", "status(unknown)"),
        await refusedWith(() => provider.cancel(reference), "cancel_too_late", "late cancel"),
      ];
      for (const error of [...submitRefusals, ...others]) {
        assert.ok(PrintError.isInstance(error), "the failure is a PrintError");
        assert.ok(ERROR_CODES.includes(error.code), `${error.code} is one of the port's codes`);
        assert.ok(error.message.length > 0, `${error.code} says why`);
      }
    }),
  };

  return {
    name: options.name ? `print provider contract (${options.name})` : "print provider contract",
    tests: PRINT_PROVIDER_CONTRACT_NAMES.map((name) => ({ name, run: tests[name] })),
  };
}

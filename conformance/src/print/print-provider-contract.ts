import { strict as assert } from "node:assert";
import {
  type Clock,
  capabilityGap,
  carries,
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
  RETURN_RECEIPT_FORMATS,
  type ReturnReceipt,
} from "@mailpiece/ports";
import { PDFDocument } from "pdf-lib";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { refusalAssertion } from "../refused-with.ts";
import {
  carriedJobs,
  handwrittenJob,
  letterJob,
  malformedJobs,
  receiptLetterJob,
  uncarriedJobs,
} from "./print-job-fixtures.ts";
import { PRINT_PROVIDER_REQUIREMENTS } from "./print-provider-requirements.ts";

const refusedWith = refusalAssertion(PrintError);

/** The names of the PrintProvider contract tests, one per MUST sentence of the port. Skip lists are typed by it. */
export const PRINT_PROVIDER_CONTRACT_NAMES = [
  "capabilities are declared, well-formed and constant",
  "submit accepts every job the capabilities carry",
  "submit refuses a job the capabilities do not carry with unsupported_job, creating nothing",
  "submit accepts a handwritten job when handwritten is declared, and refuses it with unsupported_job otherwise",
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
  "a handwritten job has no carrier tracking",
  "a handwritten job is never returned",
  "cancel before production cancels the job for good",
  "cancel of a canceled job returns it unchanged",
  "cancel after production starts is refused with cancel_too_late, changing nothing",
  "cancel refuses an unknown reference with job_not_found",
  "returnReceipt is present exactly when electronic return receipts are declared",
  "a declared receipt capability gives none before delivery and the same PDF every time after",
  "a job that asked for no electronic return receipt never has a receipt",
  "returnReceipt refuses an unknown reference with job_not_found",
  "refusals are PrintErrors with stable codes, and submit refusals are definite",
] as const;

export type PrintProviderContractName = (typeof PRINT_PROVIDER_CONTRACT_NAMES)[number];

/**
 * The tests of handwritten jobs once accepted: they answer not applicable for a provider that does not declare
 * handwritten mail (the refusal of such a job is checked by another test).
 */
export const PRINT_HANDWRITTEN_TESTS = [
  "a handwritten job has no carrier tracking",
  "a handwritten job is never returned",
] as const satisfies readonly PrintProviderContractName[];

/** The tests of `returnReceipt`: they answer not applicable for a provider without it. */
export const PRINT_RETURN_RECEIPT_TESTS = [
  "a declared receipt capability gives none before delivery and the same PDF every time after",
  "a job that asked for no electronic return receipt never has a receipt",
  "returnReceipt refuses an unknown reference with job_not_found",
] as const satisfies readonly PrintProviderContractName[];

const NO_HANDWRITTEN = "the provider does not declare handwritten mail (capabilities.mailpiece_types)";
const NO_RETURN_RECEIPT = "the provider has no returnReceipt: it declares no electronic return receipts";

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
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly PrintProviderContractName[];
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

/** A handwritten piece to the provider's home country (or its first destination), from home. */
function handwrittenFor(capabilities: PrintCapabilities): Promise<PrintJob> {
  const home = capabilities.origin_country;
  return handwrittenJob(
    capabilities.countries.includes(home) ? home : (capabilities.countries[0] ?? home),
    home,
  );
}

const declaresHandwritten = (capabilities: PrintCapabilities) =>
  capabilities.mailpiece_types.includes("handwritten");

/** Asserts what a return receipt must name, for the job `view` shows (delivered); returns the receipt. */
async function checkReceipt(receipt: ReturnReceipt, view: PrintJobView): Promise<ReturnReceipt> {
  assert.ok(receipt.pdf instanceof Uint8Array, "the receipt's pdf is a Uint8Array");
  assert.equal(
    new TextDecoder().decode(receipt.pdf.subarray(0, 5)),
    "%PDF-",
    "the receipt's pdf starts with %PDF-",
  );
  const pages = (await PDFDocument.load(receipt.pdf, { updateMetadata: false })).getPageCount();
  assert.ok(pages >= 1, "the receipt's pdf has a page");
  assert.ok(view.tracking_number !== null, "a letter with a return receipt has a tracking number");
  assert.equal(receipt.tracking_number, view.tracking_number, "the receipt names the job's article number");
  assert.ok(
    typeof receipt.signer_name === "string" && receipt.signer_name.trim().length > 0,
    "the receipt names its signer",
  );
  assert.ok(isIso(receipt.signed_at), `signed_at ${receipt.signed_at} is an ISO 8601 time`);
  assert.ok(
    Date.parse(receipt.signed_at) >= Date.parse(view.submitted_at),
    `signed_at ${receipt.signed_at} is not before submitted_at ${view.submitted_at}`,
  );
  assert.ok(
    receipt.delivery_location === undefined ||
      (typeof receipt.delivery_location === "string" && receipt.delivery_location.length > 0),
    "delivery_location is absent or a non-empty string",
  );
  return receipt;
}

/**
 * The PrintProvider contract (adapters/ports/src/print-provider.ts) as a suite: one named test per MUST sentence.
 * Jobs are built from the provider's own capabilities, so one suite fits every provider. The tests of handwritten
 * jobs (`PRINT_HANDWRITTEN_TESTS`) answer not applicable for a provider that does not declare handwritten mail
 * (another test checks that it refuses such jobs), and those of `returnReceipt` (`PRINT_RETURN_RECEIPT_TESTS`) for a
 * provider that has none; the receipt tests need `advance` to deliver a certified letter.
 */
export function printProviderContract(
  options: PrintProviderContractOptions,
): Suite<PrintProviderContractName> {
  type Ctx = { provider: PrintProvider; advance(ms: number): Promise<void>; base: PrintJob };
  const run = (body: (ctx: Ctx) => ReturnType<TestBody>) => async (): ReturnType<TestBody> => {
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
      return await body({
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

  const tests: Record<PrintProviderContractName, TestBody> = {
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

    "submit accepts a handwritten job when handwritten is declared, and refuses it with unsupported_job otherwise":
      run(async ({ provider }) => {
        const job = await handwrittenFor(provider.capabilities);
        const key = newKey();
        if (declaresHandwritten(provider.capabilities)) {
          const result = checkView(
            await provider.submit(job, { idempotencyKey: key }),
            "submit(a handwritten piece)",
          );
          assert.equal(result.idempotent_replay, false, "the handwritten piece is a new job");
          const found = await provider.lookup(key);
          assert.equal(found.outcome === "found" && found.reference, result.reference, "lookup finds it");
          return;
        }
        await refusedWith(
          () => provider.submit(job, { idempotencyKey: key }),
          "unsupported_job",
          "submit(a handwritten piece) to a provider that does not declare handwritten",
        );
        assert.deepEqual(await provider.lookup(key), { outcome: "not_found" }, "nothing was created");
      }),

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

    "a handwritten job has no carrier tracking": run(async ({ provider, advance }) => {
      if (!declaresHandwritten(provider.capabilities)) return notApplicable(NO_HANDWRITTEN);
      const submitted = await provider.submit(await handwrittenFor(provider.capabilities), {
        idempotencyKey: newKey(),
      });
      assert.equal(submitted.tracking_number, null, "submit: no tracking number");
      assert.equal(submitted.tracking_url, null, "submit: no tracking url");
      let waited = 0;
      for (const step of POLL_STEPS) {
        await advance(step);
        waited += step;
        const view = checkView(await provider.status(submitted.reference), `status after ${waited} ms`);
        assert.equal(view.tracking_number, null, `after ${waited} ms (${view.status}): no tracking number`);
        assert.equal(view.tracking_url, null, `after ${waited} ms (${view.status}): no tracking url`);
      }
    }),

    "a handwritten job is never returned": run(async ({ provider, advance }) => {
      if (!declaresHandwritten(provider.capabilities)) return notApplicable(NO_HANDWRITTEN);
      const { reference } = await provider.submit(await handwrittenFor(provider.capabilities), {
        idempotencyKey: newKey(),
      });
      let waited = 0;
      for (const step of POLL_STEPS) {
        await advance(step);
        waited += step;
        const view = checkView(await provider.status(reference), `status after ${waited} ms`);
        const returned = view.events.findIndex((e) => e.status === "returned");
        assert.equal(returned, -1, `after ${waited} ms: a handwritten job was reported returned`);
      }
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

    "returnReceipt is present exactly when electronic return receipts are declared": run(
      async ({ provider }) => {
        const capabilities = provider.capabilities;
        const formats = capabilities.return_receipts ?? [];
        assert.ok(Array.isArray(formats), "capabilities.return_receipts is absent or a list");
        for (const format of formats) {
          assert.ok(
            RETURN_RECEIPT_FORMATS.includes(format),
            `return receipt format ${String(format)} is known`,
          );
        }
        assert.equal(new Set(formats).size, formats.length, "capabilities.return_receipts has no duplicates");
        if (formats.length > 0) {
          assert.ok(
            capabilities.certified && capabilities.countries.includes(capabilities.origin_country),
            "return receipts come with certified mail at home, so a provider that lists them declares it",
          );
        }
        const electronic = formats.includes("electronic");
        assert.equal(
          typeof provider.returnReceipt,
          electronic ? "function" : "undefined",
          electronic
            ? "capabilities list electronic return receipts, so returnReceipt must be there"
            : "returnReceipt is there but capabilities do not list electronic return receipts: declare it",
        );
      },
    ),

    "a declared receipt capability gives none before delivery and the same PDF every time after": run(
      async ({ provider, advance }) => {
        if (!provider.returnReceipt) return notApplicable(NO_RETURN_RECEIPT);
        const returnReceipt = provider.returnReceipt.bind(provider);
        const job = await receiptLetterJob(provider.capabilities.origin_country, "electronic", {
          double_sided: provider.capabilities.double_sided,
        });
        assert.ok(
          carries(provider.capabilities, job),
          `the capabilities carry no certified letter with an electronic return receipt at home (${capabilityGap(provider.capabilities, job)?.message})`,
        );
        const submitted = await provider.submit(job, { idempotencyKey: newKey() });
        let first: ReturnReceipt | undefined;
        let view: PrintJobView = submitted;
        let waited = 0;
        for (const step of POLL_STEPS) {
          await advance(step);
          waited += step;
          const receipt = await returnReceipt(submitted.reference);
          view = checkView(await provider.status(submitted.reference), `status after ${waited} ms`);
          if (receipt === undefined) {
            assert.equal(first, undefined, `after ${waited} ms: a receipt given before is gone`);
            continue;
          }
          assert.equal(
            view.status,
            "delivered",
            `after ${waited} ms: a receipt while the job is ${view.status}`,
          );
          if (first === undefined) first = await checkReceipt(receipt, view);
          else assert.deepEqual(receipt, first, `after ${waited} ms: the receipt is the one given before`);
        }
        assert.ok(
          first !== undefined,
          view.status === "delivered"
            ? `the letter was delivered but had no receipt after ${waited} ms on the provider's clock`
            : `the letter is ${view.status} after ${waited} ms on the provider's clock; advance must deliver it`,
        );
        for (let call = 0; call < 3; call += 1) {
          const again = await returnReceipt(submitted.reference);
          assert.ok(again !== undefined, "the receipt stays available");
          assert.ok(
            Buffer.from(again.pdf).equals(Buffer.from(first.pdf)),
            "every call gives the same PDF, byte for byte",
          );
          assert.deepEqual(again, first, "every call gives the same receipt");
        }
      },
    ),

    "a job that asked for no electronic return receipt never has a receipt": run(
      async ({ provider, base, advance }) => {
        if (!provider.returnReceipt) return notApplicable(NO_RETURN_RECEIPT);
        const returnReceipt = provider.returnReceipt.bind(provider);
        const capabilities = provider.capabilities;
        const home = capabilities.origin_country;
        const sides = { double_sided: capabilities.double_sided };
        const jobs = [
          base,
          await letterJob(home, { certified: true, ...sides }),
          await receiptLetterJob(home, "physical", sides),
        ];
        const references: string[] = [];
        for (const job of jobs.filter((j) => carries(capabilities, j))) {
          references.push((await provider.submit(job, { idempotencyKey: newKey() })).reference);
        }
        let waited = 0;
        for (const step of POLL_STEPS) {
          await advance(step);
          waited += step;
          for (const [index, reference] of references.entries()) {
            const { status } = await provider.status(reference);
            assert.equal(
              await returnReceipt(reference),
              undefined,
              `after ${waited} ms: job ${index + 1} (${status}) asked for no electronic receipt but has one`,
            );
          }
        }
      },
    ),

    "returnReceipt refuses an unknown reference with job_not_found": run(async ({ provider, base }) => {
      if (!provider.returnReceipt) return notApplicable(NO_RETURN_RECEIPT);
      const returnReceipt = provider.returnReceipt.bind(provider);
      await provider.submit(base, { idempotencyKey: newKey() });
      await refusedWith(() => returnReceipt(UNKNOWN_REFERENCE), "job_not_found", "returnReceipt(unknown)");
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
    tests: kitTests(PRINT_PROVIDER_CONTRACT_NAMES, tests, PRINT_PROVIDER_REQUIREMENTS, options.disable),
  };
}

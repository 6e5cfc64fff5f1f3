import {
  PRINT_HANDWRITTEN_TESTS,
  PRINT_RETURN_RECEIPT_TESTS,
  printProviderContract,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { Clock, PrintJobStatus, PrintJobView, PrintProvider } from "@mailpiece/ports";
import {
  capabilityGap,
  findPrintJobProblem,
  PRINT_IDEMPOTENCY_KEY_PATTERN,
  PrintError,
} from "@mailpiece/ports";

/** What it carries: standard letters within the US, in colour or not, on one side or both. */
const where = { origin_country: "US", countries: ["US"], certified: false, registered: [] } as const;
const what = { mailpiece_types: ["letter"], postcard_sizes: [], mail_classes: ["standard"] } as const;
const how = { international_postcards: null, color: true, double_sided: true } as const;
const PRINTER = { name: "example", simulated: true, capabilities: { ...where, ...what, ...how } };
/** When a job reaches each status, in ms after its submission: production starts after an hour. */
const STEPS = { submitted: 0, accepted: 3_600_000, in_transit: 86_400_000, delivered: 259_200_000 } as const;
const iso = (ms: number) => new Date(ms).toISOString();

/** A print provider that keeps its jobs in memory, by reference, and moves them along on `clock`. */
export function createExamplePrinter(clock: Clock): PrintProvider {
  const jobs = new Map<string, { job: string; at: number; canceledAt?: number }>();
  const event = (status: PrintJobStatus, at: number) => ({ status, description: status, at: iso(at) });
  const view = (reference: string): PrintJobView => {
    const job = jobs.get(reference);
    if (!job) throw new PrintError("job_not_found", `no job ${reference}`);
    const { at, canceledAt = Infinity } = job;
    const until = Math.min(clock.now(), canceledAt);
    const reached = Object.entries(STEPS).filter(([, ms]) => at + ms <= until);
    const events = reached.map(([status, ms]) => event(status as PrintJobStatus, at + ms));
    if (canceledAt < Infinity) events.push(event("canceled", canceledAt));
    const { status } = events.at(-1)!;
    return { reference, status, submitted_at: iso(at), tracking_number: null, tracking_url: null, events };
  };
  return {
    ...PRINTER,
    async submit(job, { idempotencyKey: key }) {
      const problem = findPrintJobProblem(job);
      if (problem) throw new PrintError("invalid_job", problem.message, { field: problem.field });
      const malformed = typeof key !== "string" || !PRINT_IDEMPOTENCY_KEY_PATTERN.test(key);
      if (malformed) throw new PrintError("invalid_idempotency_key", "a malformed key");
      const gap = capabilityGap(PRINTER.capabilities, job);
      if (gap) throw new PrintError("unsupported_job", gap.message, { field: gap.field });
      const same = JSON.stringify({ ...job, document: job.document.sha256 });
      const known = jobs.get(`ex_${key}`);
      if (known && known.job !== same) throw new PrintError("idempotency_conflict", "another job");
      if (!known) jobs.set(`ex_${key}`, { job: same, at: clock.now() });
      return { ...view(`ex_${key}`), idempotent_replay: known !== undefined };
    },
    async lookup(key) {
      if (!jobs.has(`ex_${key}`)) return { outcome: "not_found" };
      return { outcome: "found", reference: `ex_${key}`, status: view(`ex_${key}`).status };
    },
    status: async (reference) => view(reference),
    async cancel(reference) {
      const { status } = view(reference);
      if (!["submitted", "canceled"].includes(status)) throw new PrintError("cancel_too_late", "too late");
      if (status === "submitted") Object.assign(jobs.get(reference) ?? {}, { canceledAt: clock.now() });
      return view(reference);
    },
  };
}

// It declares neither handwritten mail nor return receipts: the tests of those do not apply.
registerSuite(printProviderContract({ create: async ({ clock }) => createExamplePrinter(clock) }), {
  notApplicable: [...PRINT_HANDWRITTEN_TESTS, ...PRINT_RETURN_RECEIPT_TESTS],
});

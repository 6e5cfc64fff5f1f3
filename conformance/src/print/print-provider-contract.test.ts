import { createHash } from "node:crypto";
import {
  type Clock,
  capabilityGap,
  findPrintJobProblem,
  type LookupResult,
  PRINT_IDEMPOTENCY_KEY_PATTERN,
  type PrintCapabilities,
  PrintError,
  type PrintErrorCode,
  type PrintJob,
  type PrintJobStatus,
  type PrintJobView,
  type PrintProvider,
  type TrackingEvent,
  wantsElectronicReturnReceipt,
} from "@mailpiece/ports";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { runSuite } from "../kit.ts";
import {
  mayFollow,
  PRINT_HANDWRITTEN_TESTS,
  PRINT_PROVIDER_CONTRACT_NAMES,
  PRINT_RETURN_RECEIPT_TESTS,
  type PrintProviderContractName,
  printProviderContract,
} from "./print-provider-contract.ts";

/** Ways to break the small reference provider below, each of which one contract test must catch. */
type Fault =
  | "unstable capabilities"
  | "refuses postcards"
  | "no capability check"
  | "no job check"
  | "lax keys"
  | "new job per submit"
  | "racy submit"
  | "one job per content"
  | "ignores job changes"
  | "lookup forgets"
  | "lookup guesses"
  | "newest first"
  | "events rewritten"
  | "tracking changes"
  | "plain error for unknown status"
  | "cancel ignored"
  | "cancel twice refused"
  | "cancel always allowed"
  | "plain error for unknown cancel"
  | "silent refusals"
  | "refuses handwritten"
  | "handwritten without declaring"
  | "tracks handwritten"
  | "returns handwritten"
  | "undeclared receipts"
  | "receipt before delivery"
  | "receipt changes"
  | "receipt for every letter"
  | "plain error for unknown receipt";

const CAPABILITIES: PrintCapabilities = {
  origin_country: "US",
  countries: ["US", "CA", "FR"],
  mailpiece_types: ["letter", "postcard", "handwritten"],
  postcard_sizes: ["4x6", "6x9"],
  mail_classes: ["standard", "priority"],
  certified: true,
  registered: ["CA"],
  international_postcards: { sizes: ["4x6"], return_address: "domestic" },
  color: true,
  double_sided: true,
  return_receipts: ["electronic", "physical"],
};

/** The same provider without handwritten mail and without return receipts. */
const PLAIN: PrintCapabilities = (({ return_receipts: _, ...rest }) => ({
  ...rest,
  mailpiece_types: ["letter", "postcard"],
}))(CAPABILITIES);

interface Job {
  reference: string;
  job: PrintJob;
  fingerprint: string;
  submittedAt: number;
  canceledAt?: number;
}

const fingerprintOf = (job: PrintJob) =>
  createHash("sha256")
    .update(JSON.stringify({ ...job, document: { ...job.document, bytes: job.document.sha256 } }))
    .digest("hex");

/** A deliberately plain in-memory provider: correct with no faults, so every contract test passes on it. */
function referenceProvider(
  clock: Clock,
  faults: ReadonlySet<Fault>,
  declared: PrintCapabilities = CAPABILITIES,
): PrintProvider {
  const byKey = new Map<string, Job>();
  const byReference = new Map<string, Job>();
  let sequence = 0;
  let submits = 0;
  let receipts = 0;
  const fail = (code: PrintErrorCode, message: string) =>
    new PrintError(code, faults.has("silent refusals") ? "" : message);
  const handwritten = (job: Job) => job.job.mailpiece_type === "handwritten";
  /** Handwritten pieces stay in transit, unless the fault returns them. */
  const ending = (job: Job): PrintJobStatus | undefined =>
    !handwritten(job) ? "delivered" : faults.has("returns handwritten") ? "returned" : undefined;
  const status = (job: Job, now: number): PrintJobStatus => {
    if (job.canceledAt !== undefined) return "canceled";
    const t = now - job.submittedAt;
    const end = ending(job);
    if (t >= 20_000 && end) return end;
    return t >= 5_000 ? "in_transit" : t >= 1_000 ? "accepted" : "submitted";
  };
  const view = (job: Job): PrintJobView => {
    const now = clock.now();
    const current = status(job, now);
    const at = (ms: number) => new Date(job.submittedAt + ms).toISOString();
    const story: TrackingEvent[] = [{ status: "submitted", at: at(0), description: "received" }];
    if (current === "canceled") {
      story.push({
        status: "canceled",
        at: new Date(job.canceledAt ?? 0).toISOString(),
        description: "canceled",
      });
    } else {
      const elapsed = now - job.submittedAt;
      const said = (text: string) => (faults.has("events rewritten") ? `${text} ${elapsed} ms ago` : text);
      if (elapsed >= 1_000) story.push({ status: "accepted", at: at(1_000), description: said("printed") });
      if (elapsed >= 5_000)
        story.push({ status: "in_transit", at: at(5_000), description: "with the carrier" });
      const end = ending(job);
      if (elapsed >= 20_000 && end) story.push({ status: end, at: at(20_000), description: end });
    }
    const tracked =
      current !== "submitted" &&
      current !== "canceled" &&
      (!handwritten(job) || faults.has("tracks handwritten"));
    const number = tracked ? `REF${job.reference}${faults.has("tracking changes") ? current : ""}` : null;
    return {
      reference: job.reference,
      status: current,
      submitted_at: new Date(job.submittedAt).toISOString(),
      tracking_number: number,
      tracking_url: number === null ? null : `https://track.example/${number}`,
      events: faults.has("newest first") ? story.reverse() : story,
    };
  };
  const find = (reference: string, plain: boolean): Job => {
    const job = byReference.get(reference);
    if (job) return job;
    if (plain) throw new Error("no such job");
    throw fail("job_not_found", "no such job");
  };
  const capabilities = structuredClone(declared);
  const receiptPdf = async (job: Job): Promise<Uint8Array> => {
    const pdf = await PDFDocument.create({ updateMetadata: false });
    pdf.addPage([612, 792]);
    pdf.setTitle(`Return receipt ${job.reference}${faults.has("receipt changes") ? ` ${++receipts}` : ""}`);
    return pdf.save();
  };
  const electronic =
    (capabilities.return_receipts ?? []).includes("electronic") || faults.has("undeclared receipts");
  const returnReceipt = async (reference: string) => {
    const job = find(reference, faults.has("plain error for unknown receipt"));
    const asked = wantsElectronicReturnReceipt(job.job) || faults.has("receipt for every letter");
    const current = status(job, clock.now());
    const ready =
      current === "delivered" || (faults.has("receipt before delivery") && current === "in_transit");
    if (!asked || !ready || job.job.mailpiece_type !== "letter") return undefined;
    return {
      pdf: await receiptPdf(job),
      tracking_number: view(job).tracking_number as string,
      signed_at: new Date(job.submittedAt + 20_000).toISOString(),
      signer_name: job.job.recipient.name,
    };
  };
  return {
    ...(electronic ? { returnReceipt } : {}),
    name: "reference",
    simulated: true,
    get capabilities() {
      if (!faults.has("unstable capabilities")) return capabilities;
      return {
        ...capabilities,
        countries: submits > 0 ? [...capabilities.countries, "DE"] : capabilities.countries,
      };
    },
    async submit(job, { idempotencyKey: key }) {
      if (!faults.has("lax keys") && (typeof key !== "string" || !PRINT_IDEMPOTENCY_KEY_PATTERN.test(key))) {
        throw fail("invalid_idempotency_key", "bad key");
      }
      const problem = faults.has("no job check") ? undefined : findPrintJobProblem(job);
      if (problem) throw fail("invalid_job", problem.message);
      const gap = faults.has("no capability check") ? undefined : capabilityGap(capabilities, job);
      const overlooked = faults.has("handwritten without declaring") && gap?.field === "mailpiece_type";
      if (gap && !overlooked) throw fail("unsupported_job", gap.message);
      if (faults.has("refuses postcards") && job.mailpiece_type === "postcard") {
        throw fail("unsupported_job", "no postcards today");
      }
      if (faults.has("refuses handwritten") && job.mailpiece_type === "handwritten") {
        throw fail("unsupported_job", "no handwriting today");
      }
      const fingerprint = fingerprintOf(job);
      let existing = faults.has("new job per submit") ? undefined : byKey.get(key);
      if (faults.has("one job per content"))
        existing ??= [...byKey.values()].find((j) => j.fingerprint === fingerprint);
      if (faults.has("racy submit")) await new Promise<void>((resolve) => setImmediate(resolve));
      if (existing) {
        if (existing.fingerprint !== fingerprint && !faults.has("ignores job changes")) {
          throw fail("idempotency_conflict", "another job under this key");
        }
        byKey.set(key, existing);
        return { ...view(existing), idempotent_replay: true };
      }
      submits += 1;
      const created: Job = {
        reference: `r${++sequence}`,
        job: structuredClone(job),
        fingerprint,
        submittedAt: clock.now(),
      };
      byKey.set(key, created);
      byReference.set(created.reference, created);
      return { ...view(created), idempotent_replay: false };
    },
    async lookup(key): Promise<LookupResult> {
      const job = faults.has("lookup forgets") ? undefined : byKey.get(key);
      if (job) return { outcome: "found", reference: job.reference, status: status(job, clock.now()) };
      if (faults.has("lookup guesses")) return { outcome: "found", reference: "r1", status: "submitted" };
      return { outcome: "not_found" };
    },
    async status(reference) {
      return view(find(reference, faults.has("plain error for unknown status")));
    },
    async cancel(reference) {
      const job = find(reference, faults.has("plain error for unknown cancel"));
      const current = status(job, clock.now());
      if (current === "canceled" && faults.has("cancel twice refused")) throw fail("cancel_too_late", "done");
      if (current === "canceled") return view(job);
      if (current !== "submitted" && !faults.has("cancel always allowed"))
        throw fail("cancel_too_late", "late");
      if (faults.has("cancel ignored")) {
        return { ...view(job), status: "canceled", events: [...view(job).events, cancelEvent(clock)] };
      }
      job.canceledAt = clock.now();
      return view(job);
    },
  };
}

function cancelEvent(clock: Clock): TrackingEvent {
  return { status: "canceled", at: new Date(clock.now()).toISOString(), description: "canceled" };
}

async function failuresWith(
  faults: Fault[],
  capabilities: PrintCapabilities = CAPABILITIES,
): Promise<Map<string, string>> {
  const set = new Set(faults);
  const report = await runSuite(
    printProviderContract({ create: async ({ clock }) => referenceProvider(clock, set, capabilities) }),
  );
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

describe("printProviderContract", () => {
  it("has one test per name, in the order of PRINT_PROVIDER_CONTRACT_NAMES", () => {
    const suite = printProviderContract({ create: async ({ clock }) => referenceProvider(clock, new Set()) });
    expect(suite.tests.map((t) => t.name)).toEqual([...PRINT_PROVIDER_CONTRACT_NAMES]);
    expect(new Set(PRINT_PROVIDER_CONTRACT_NAMES).size).toBe(PRINT_PROVIDER_CONTRACT_NAMES.length);
    expect(suite.name).toBe("print provider contract");
  });

  it("passes a correct provider", async () => {
    expect(await failuresWith([])).toEqual(new Map());
  });

  it("passes a correct provider that offers neither handwritten mail nor return receipts", async () => {
    expect(await failuresWith([], PLAIN)).toEqual(new Map());
  });

  it("answers not applicable, saying why, for the tests of handwritten jobs and return receipts of a provider without them", async () => {
    const notApplicable = async (capabilities: PrintCapabilities) => {
      const report = await runSuite(
        printProviderContract({
          create: async ({ clock }) => referenceProvider(clock, new Set(), capabilities),
        }),
      );
      return report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);
    };
    const handwritten = PRINT_HANDWRITTEN_TESTS.map((name) => [
      name,
      "the provider does not declare handwritten mail (capabilities.mailpiece_types)",
    ]);
    const receipts = PRINT_RETURN_RECEIPT_TESTS.map((name) => [
      name,
      "the provider has no returnReceipt: it declares no electronic return receipts",
    ]);
    expect(await notApplicable(CAPABILITIES), "a provider with both runs them all").toEqual([]);
    expect(await notApplicable(PLAIN)).toEqual([...handwritten, ...receipts]);
    expect(await notApplicable({ ...CAPABILITIES, return_receipts: ["physical"] })).toEqual(receipts);
  });

  /** Capabilities a fault needs to show: what the provider declares while it misbehaves. */
  const declaredFor: Partial<Record<Fault, PrintCapabilities>> = {
    "handwritten without declaring": PLAIN,
    "undeclared receipts": { ...CAPABILITIES, return_receipts: ["physical"] },
  };

  const caught: Array<[Fault, PrintProviderContractName]> = [
    ["unstable capabilities", "capabilities are declared, well-formed and constant"],
    ["refuses postcards", "submit accepts every job the capabilities carry"],
    [
      "no capability check",
      "submit refuses a job the capabilities do not carry with unsupported_job, creating nothing",
    ],
    ["no job check", "submit refuses a malformed job with invalid_job, creating nothing"],
    ["lax keys", "submit refuses a malformed idempotency key with invalid_idempotency_key"],
    ["new job per submit", "submit is idempotent by key: a repeat returns the same reference as a replay"],
    ["racy submit", "submit is idempotent under concurrent callers: one job, one reference"],
    ["one job per content", "different keys give different jobs"],
    ["ignores job changes", "submit refuses a different job under a used key with idempotency_conflict"],
    ["lookup forgets", "lookup finds a submitted job by its key with its reference and current status"],
    ["lookup guesses", "lookup answers not_found for a key with no job"],
    ["newest first", "status reports the current status and every event so far, oldest first"],
    ["events rewritten", "status only moves forward and never rewrites an event"],
    ["tracking changes", "tracking number and url are null or well-formed, and never change once set"],
    ["plain error for unknown status", "status refuses an unknown reference with job_not_found"],
    ["cancel ignored", "cancel before production cancels the job for good"],
    ["cancel twice refused", "cancel of a canceled job returns it unchanged"],
    [
      "cancel always allowed",
      "cancel after production starts is refused with cancel_too_late, changing nothing",
    ],
    ["plain error for unknown cancel", "cancel refuses an unknown reference with job_not_found"],
    ["silent refusals", "refusals are PrintErrors with stable codes, and submit refusals are definite"],
    [
      "refuses handwritten",
      "submit accepts a handwritten job when handwritten is declared, and refuses it with unsupported_job otherwise",
    ],
    [
      "handwritten without declaring",
      "submit accepts a handwritten job when handwritten is declared, and refuses it with unsupported_job otherwise",
    ],
    ["tracks handwritten", "a handwritten job has no carrier tracking"],
    ["returns handwritten", "a handwritten job is never returned"],
    ["undeclared receipts", "returnReceipt is present exactly when electronic return receipts are declared"],
    [
      "receipt before delivery",
      "a declared receipt capability gives none before delivery and the same PDF every time after",
    ],
    [
      "receipt changes",
      "a declared receipt capability gives none before delivery and the same PDF every time after",
    ],
    ["receipt for every letter", "a job that asked for no electronic return receipt never has a receipt"],
    ["plain error for unknown receipt", "returnReceipt refuses an unknown reference with job_not_found"],
  ];
  for (const [fault, test] of caught) {
    it(`catches a provider with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault], declaredFor[fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("covers every contract test with a fault", () => {
    expect(new Set(caught.map(([, test]) => test))).toEqual(new Set(PRINT_PROVIDER_CONTRACT_NAMES));
  });

  it("fails the production test with a clear message when advance does not move jobs", async () => {
    const report = await runSuite(
      printProviderContract({
        create: async ({ clock }) => referenceProvider(clock, new Set()),
        advance: () => {},
        productionWithinMs: 10_000,
      }),
    );
    const outcome = report.outcomes.find(
      (o) => o.name === "cancel after production starts is refused with cancel_too_late, changing nothing",
    );
    expect(outcome?.status).toBe("failed");
    expect(outcome?.reason).toMatch(/advance must move its jobs/);
  });
});

describe("mayFollow", () => {
  it("allows forward moves and the documented exits, nothing else", () => {
    const allowed = [
      "submitted>accepted",
      "submitted>in_transit",
      "submitted>delivered",
      "submitted>returned",
      "submitted>failed",
      "submitted>canceled",
      "accepted>in_transit",
      "accepted>delivered",
      "accepted>returned",
      "accepted>failed",
      "in_transit>delivered",
      "in_transit>returned",
    ];
    const statuses: PrintJobStatus[] = [
      "submitted",
      "accepted",
      "in_transit",
      "delivered",
      "returned",
      "failed",
      "canceled",
    ];
    for (const before of statuses) {
      for (const after of statuses) {
        const expected = before === after || allowed.includes(`${before}>${after}`);
        expect(mayFollow(before, after), `${before} -> ${after}`).toBe(expected);
      }
    }
  });
});

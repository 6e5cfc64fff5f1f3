import {
  type Clock,
  capabilityGap,
  findPrintJobProblem,
  type IdGenerator,
  type LookupResult,
  PortError,
  PRINT_IDEMPOTENCY_KEY_PATTERN,
  type PrintCapabilities,
  PrintError,
  type PrintJobView,
  type PrintProvider,
  randomIds,
  type Store,
  type StoredRecord,
  type SubmitResult,
} from "@mailpiece/ports";
import { resolveCapabilities, SIMULATED_CAPABILITIES } from "./default-capabilities.ts";
import { jobFingerprint, sha256Hex, storedJob } from "./job-fingerprint.ts";
import { type Pace, resolvePace } from "./pace.ts";
import { returnReceiptAt } from "./return-receipt.ts";
import { type SimulatedJobRecord, statusAt, viewAt } from "./simulated-job.ts";
import { outcomeFor, submitScriptFor } from "./test-addresses.ts";
import { resolveTrackingBase } from "./tracking-number.ts";

export interface SimulatedPrinterOptions {
  /** Where jobs live; a shared Store (Redis) lets several processes serve one simulated printer. */
  store: Store;
  clock: Clock;
  /** Makes job references; default random UUIDs. */
  ids?: IdGenerator;
  /** Default: accepted after 2 s, in transit after 10 s, delivered after 30 s. */
  pace?: Partial<Pace>;
  /** Lower-case letters, digits and `-`; names the Store keys (`print:<name>:...`). Default `simulated`. */
  name?: string;
  /** Default `SIMULATED_CAPABILITIES`: everything Mailpiece sells. */
  capabilities?: PrintCapabilities;
  /** Tracking pages are `<base><tracking number>`. Default `https://tracking.mailpiece.invalid/`. */
  trackingUrlBase?: string;
}

export interface SimulatedPrinter extends PrintProvider {
  readonly pace: Readonly<Pace>;
}

export const DEFAULT_TRACKING_URL_BASE = "https://tracking.mailpiece.invalid/";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

interface ReferenceIndex {
  idempotency_key: string;
}

/**
 * A PrintProvider that prints nothing: jobs are kept in the Store, and each job's story (accepted, in transit,
 * delivered) is read from the clock and the pace whenever `status` is asked. Phrases in the recipient's `line1`
 * script other endings (`TEST_ADDRESS_PHRASES`).
 */
export function createSimulatedPrinter(options: SimulatedPrinterOptions): SimulatedPrinter {
  const { store, clock } = options;
  const ids = options.ids ?? randomIds;
  const name = options.name ?? "simulated";
  if (!NAME.test(name)) {
    throw new TypeError(
      `name must be lower-case letters, digits and "-" (at most 64), got ${JSON.stringify(name)}`,
    );
  }
  const pace = Object.freeze(resolvePace(options.pace));
  const capabilities = resolveCapabilities(options.capabilities ?? SIMULATED_CAPABILITIES);
  const trackingBase = resolveTrackingBase(options.trackingUrlBase ?? DEFAULT_TRACKING_URL_BASE);
  const keyKey = (idempotencyKey: string) => `print:${name}:key:${idempotencyKey}`;
  const refKey = (reference: string) => `print:${name}:ref:${reference}`;

  const view = (record: SimulatedJobRecord): PrintJobView => viewAt(record, clock.now(), trackingBase);
  const electronicReceipts = (capabilities.return_receipts ?? []).includes("electronic");

  async function indexReference(record: SimulatedJobRecord): Promise<void> {
    await store.create<ReferenceIndex>(refKey(record.reference), { idempotency_key: record.idempotency_key });
  }

  async function loadByReference(reference: string): Promise<StoredRecord<SimulatedJobRecord>> {
    if (typeof reference !== "string" || !REFERENCE.test(reference)) {
      throw new PrintError("job_not_found", `no job has the reference ${JSON.stringify(reference)}`);
    }
    const index = await store.get<ReferenceIndex>(refKey(reference));
    const record = index && (await store.get<SimulatedJobRecord>(keyKey(index.value.idempotency_key)));
    if (!record || record.value.reference !== reference) {
      throw new PrintError("job_not_found", `no job has the reference ${reference}`);
    }
    return record;
  }

  function checkKey(idempotencyKey: string): void {
    if (typeof idempotencyKey !== "string" || !PRINT_IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
      throw new PrintError(
        "invalid_idempotency_key",
        "an idempotency key is 1 to 255 letters, digits, '.', '_', '-' or ':', starting with a letter or digit",
      );
    }
  }

  /** Declared with the capability only: a printer without electronic receipts has no `returnReceipt`. */
  const receipts: Pick<PrintProvider, "returnReceipt"> = electronicReceipts
    ? {
        returnReceipt: (reference) =>
          guard(async () => returnReceiptAt((await loadByReference(reference)).value, clock.now())),
      }
    : {};

  return {
    name,
    simulated: true,
    capabilities,
    pace,
    ...receipts,

    submit: (job, submitOptions) =>
      guard(async (): Promise<SubmitResult> => {
        const idempotencyKey = submitOptions?.idempotencyKey;
        checkKey(idempotencyKey);
        const problem = findPrintJobProblem(job);
        if (problem) throw new PrintError("invalid_job", problem.message, { field: problem.field });
        if (sha256Hex(job.document.bytes) !== job.document.sha256) {
          throw new PrintError("invalid_job", "document.sha256 is not the SHA-256 of document.bytes", {
            field: "document.sha256",
          });
        }
        const gap = capabilityGap(capabilities, job);
        if (gap) throw new PrintError("unsupported_job", gap.message, { field: gap.field });
        const script = submitScriptFor(job.recipient);
        if (script === "reject") {
          throw new PrintError(
            "job_rejected",
            "the printer refused the job (scripted test address REJECT PRINT)",
          );
        }
        const kept = storedJob(job);
        const fingerprint = jobFingerprint(kept);
        const candidate: SimulatedJobRecord = {
          reference: `sim_${ids.uuid().replaceAll("-", "")}`,
          idempotency_key: idempotencyKey,
          fingerprint,
          submitted_at: clock.now(),
          pace: { ...pace },
          outcome: outcomeFor(job.recipient),
          job: kept,
        };
        const claim = await store.create<SimulatedJobRecord>(keyKey(idempotencyKey), candidate);
        const record = claim.record.value;
        if (!claim.created && record.fingerprint !== fingerprint) {
          throw new PrintError(
            "idempotency_conflict",
            `the idempotency key ${idempotencyKey} was used for a different job (${record.reference})`,
          );
        }
        // Repeated on every replay: the index may be missing if a process stopped between the two writes.
        await indexReference(record);
        if (claim.created && script === "lose_answer") {
          throw new PrintError(
            "provider_unavailable",
            "the printer did not answer in time (scripted test address SUBMIT TIMEOUT); reconcile with lookup",
          );
        }
        return { ...view(record), idempotent_replay: !claim.created };
      }),

    lookup: (idempotencyKey) =>
      guard(async (): Promise<LookupResult> => {
        checkKey(idempotencyKey);
        const record = await store.get<SimulatedJobRecord>(keyKey(idempotencyKey));
        if (!record) return { outcome: "not_found" };
        await indexReference(record.value);
        return {
          outcome: "found",
          reference: record.value.reference,
          status: statusAt(record.value, clock.now()),
        };
      }),

    status: (reference) => guard(async () => view((await loadByReference(reference)).value)),

    cancel: (reference) =>
      guard(async () => {
        for (;;) {
          const current = await loadByReference(reference);
          const now = clock.now();
          const status = statusAt(current.value, now);
          if (status === "canceled") return view(current.value);
          if (status !== "submitted") {
            throw new PrintError("cancel_too_late", `job ${reference} is ${status}; production has started`);
          }
          try {
            const saved = await store.put<SimulatedJobRecord>(
              current.key,
              { ...current.value, canceled_at: now },
              { ifVersion: current.version },
            );
            return view(saved.value);
          } catch (error) {
            if (PortError.isInstance(error) && error.code === "version_conflict") continue;
            throw error;
          }
        }
      }),
  };
}

/** Every failure leaves as a PrintError: Store trouble means the outcome is unknown (`provider_unavailable`). */
async function guard<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (PrintError.isInstance(error)) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new PrintError(
      "provider_unavailable",
      `the simulated printer could not reach its store: ${detail}`,
      {
        cause: error,
      },
    );
  }
}

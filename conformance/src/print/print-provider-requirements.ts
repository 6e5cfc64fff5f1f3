import { portRequirement, type Requirement } from "../kit.ts";
import type { PrintProviderContractName } from "./print-provider-contract.ts";

const port = (section: string, sentence: string) => portRequirement("PrintProvider", section, sentence);

/** The MUST sentence of the PrintProvider port (adapters/ports/src/print-provider.ts) that each test checks. */
export const PRINT_PROVIDER_REQUIREMENTS: Readonly<Record<PrintProviderContractName, Requirement>> = {
  "capabilities are declared, well-formed and constant": port(
    "Capabilities",
    "`capabilities` MUST be declared when the provider is made and MUST NOT change during its life; country codes MUST be upper-case ISO 3166-1 alpha-2.",
  ),
  "submit accepts every job the capabilities carry": port(
    "Capabilities",
    "`submit` MUST accept every well-formed job that `carries(capabilities, job)` admits",
  ),
  "submit refuses a job the capabilities do not carry with unsupported_job, creating nothing": port(
    "Capabilities",
    "`submit` … MUST refuse every job it does not admit with `unsupported_job`.",
  ),
  "submit accepts a handwritten job when handwritten is declared, and refuses it with unsupported_job otherwise":
    port(
      "Capabilities",
      "`submit` MUST accept a well-formed `handwritten` job when `mailpiece_types` lists `handwritten`, and MUST refuse it with `unsupported_job`, creating nothing, when it does not.",
    ),
  "submit refuses a malformed job with invalid_job, creating nothing": port(
    "Submitting",
    "`submit` MUST refuse a malformed job (`findPrintJobProblem`) with `invalid_job`",
  ),
  "submit refuses a malformed idempotency key with invalid_idempotency_key": port(
    "Submitting",
    "`submit` MUST refuse … a key that does not match `PRINT_IDEMPOTENCY_KEY_PATTERN` with `invalid_idempotency_key`.",
  ),
  "submit is idempotent by key: a repeat returns the same reference as a replay": port(
    "Submitting",
    "every later or concurrent submit of the same job under a key already accepted MUST return the same `reference` with `idempotent_replay: true`",
  ),
  "submit is idempotent under concurrent callers: one job, one reference": port(
    "Submitting",
    "(exactly one caller gets `false`), and MUST NOT produce a second piece.",
  ),
  "different keys give different jobs": port(
    "Submitting",
    "Different keys MUST give different jobs with different references.",
  ),
  "submit refuses a different job under a used key with idempotency_conflict": port(
    "Submitting",
    "`submit` of a different job under a key already used MUST be refused with `idempotency_conflict`, changing nothing.",
  ),
  "lookup finds a submitted job by its key with its reference and current status": port(
    "Reconciling",
    "`lookup(key)` MUST answer `found`, with the reference and current status, for every key a submit created a job for (also when that submit's answer was lost)",
  ),
  "lookup answers not_found for a key with no job": port(
    "Reconciling",
    "`not_found` only when the provider holds no job for the key. When it cannot tell, it MUST throw `provider_unavailable`, never answer `not_found`.",
  ),
  "status reports the current status and every event so far, oldest first": port(
    "Following",
    "`status(reference)` MUST return the job's current status and every tracking event so far, oldest first, the last one carrying the current status",
  ),
  "status only moves forward and never rewrites an event": port(
    "Following",
    "The status MUST only move forward along `submitted` -> `accepted` -> `in_transit` -> `delivered` | `returned` … An event once reported MUST be reported again unchanged and in the same place.",
  ),
  "tracking number and url are null or well-formed, and never change once set": port(
    "Following",
    "`tracking_number` and `tracking_url` MUST each be null or a non-empty string (the URL an absolute https URL) and, once set, MUST NOT change.",
  ),
  "status refuses an unknown reference with job_not_found": port(
    "Following",
    "an unknown reference MUST be refused with `job_not_found`.",
  ),
  "a handwritten job has no carrier tracking": port(
    "Handwritten mail",
    "A `handwritten` job MUST have no carrier tracking: its `tracking_number` and `tracking_url` MUST stay null.",
  ),
  "a handwritten job is never returned": port(
    "Handwritten mail",
    "A `handwritten` job MUST never be `returned`.",
  ),
  "cancel before production cancels the job for good": port(
    "Canceling",
    "`cancel(reference)` MUST succeed only before production, while the job is `submitted`: it returns the job `canceled`, and the piece MUST never be produced (the status stays `canceled`).",
  ),
  "cancel of a canceled job returns it unchanged": port(
    "Canceling",
    "`cancel` of a job already `canceled` MUST return it unchanged",
  ),
  "cancel after production starts is refused with cancel_too_late, changing nothing": port(
    "Canceling",
    "of a job in any other status it MUST throw `cancel_too_late` and change nothing",
  ),
  "cancel refuses an unknown reference with job_not_found": port(
    "Canceling",
    "of an unknown reference it MUST throw `job_not_found`.",
  ),
  "returnReceipt is present exactly when electronic return receipts are declared": port(
    "Return receipts",
    "`returnReceipt` MUST be present exactly when `capabilities.return_receipts` lists `electronic`, and a provider that lists any return receipt format MUST also declare `certified` mail at home.",
  ),
  "a declared receipt capability gives none before delivery and the same PDF every time after": port(
    "Return receipts",
    "`returnReceipt(reference)` MUST answer undefined while the job is not `delivered`; once it answers a receipt, every later call MUST answer the same receipt, PDF byte for byte.",
  ),
  "a job that asked for no electronic return receipt never has a receipt": port(
    "Return receipts",
    "`returnReceipt` MUST answer undefined, at every time, for a job that asked for no electronic return receipt (none, or a physical one)",
  ),
  "returnReceipt refuses an unknown reference with job_not_found": port(
    "Return receipts",
    "and MUST refuse an unknown reference with `job_not_found`.",
  ),
  "refusals are PrintErrors with stable codes, and submit refusals are definite": port(
    "Errors",
    "Every failure the adapter reports MUST be a `PrintError` with one of the codes of `PrintErrorCode`.",
  ),
};

import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * The PrintProvider port: a production network that prints, envelopes and posts one mailpiece per job (the
 * simulated printer, real print-and-mail services). The core routes each job to a provider, submits it under an
 * idempotency key, follows its status and reconciles submissions whose outcome it did not learn.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit
 * (`@mailpiece/conformance`, `printProviderContract`).
 *
 * Capabilities
 * - `capabilities` MUST be declared when the provider is made and MUST NOT change during its life; country codes
 *   MUST be upper-case ISO 3166-1 alpha-2.
 * - `submit` MUST accept every well-formed job that `carries(capabilities, job)` admits, and MUST refuse every job
 *   it does not admit with `unsupported_job`.
 * - In particular `submit` MUST accept a well-formed `handwritten` job when `mailpiece_types` lists `handwritten`,
 *   and MUST refuse it with `unsupported_job`, creating nothing, when it does not.
 *
 * Submitting
 * - `submit` MUST refuse a malformed job (`findPrintJobProblem`) with `invalid_job` and a key that does not match
 *   `PRINT_IDEMPOTENCY_KEY_PATTERN` with `invalid_idempotency_key`.
 * - `submit` MUST be idempotent by key: every later or concurrent submit of the same job under a key already
 *   accepted MUST return the same `reference` with `idempotent_replay: true` (exactly one caller gets `false`),
 *   and MUST NOT produce a second piece.
 * - Different keys MUST give different jobs with different references.
 * - `submit` of a different job under a key already used MUST be refused with `idempotency_conflict`, changing
 *   nothing.
 * - A definite refusal (`isDefiniteRefusal`: `invalid_job`, `invalid_idempotency_key`, `unsupported_job`,
 *   `job_rejected`, `idempotency_conflict`) MUST mean the refused submit created no piece. Any other failure
 *   (`provider_unavailable`, a network error) leaves the outcome unknown: the caller MUST NOT submit blindly again
 *   but reconcile with `lookup` first (the order waits in `submission_pending`).
 *
 * Reconciling
 * - `lookup(key)` MUST answer `found`, with the reference and current status, for every key a submit created a
 *   job for (also when that submit's answer was lost), and `not_found` only when the provider holds no job for the
 *   key. When it cannot tell, it MUST throw `provider_unavailable`, never answer `not_found`.
 *
 * Following
 * - `status(reference)` MUST return the job's current status and every tracking event so far, oldest first, the
 *   last one carrying the current status; an unknown reference MUST be refused with `job_not_found`.
 * - The status MUST only move forward along `submitted` -> `accepted` -> `in_transit` -> `delivered` | `returned`
 *   (a poll may skip steps), `failed` only from `submitted` or `accepted`, `canceled` only from `submitted`; the
 *   last four are final. An event once reported MUST be reported again unchanged and in the same place.
 * - `tracking_number` and `tracking_url` MUST each be null or a non-empty string (the URL an absolute https URL)
 *   and, once set, MUST NOT change.
 *
 * Handwritten mail (a card or letter written by a handwriting machine from the proof PDF, then posted stamped)
 * - A `handwritten` job MUST have no carrier tracking: its `tracking_number` and `tracking_url` MUST stay null.
 * - A `handwritten` job MUST never be `returned`. Its status goes up to `in_transit`, which is usually its last;
 *   `delivered` only when the provider really learns of the delivery.
 *
 * Canceling
 * - `cancel(reference)` MUST succeed only before production, while the job is `submitted`: it returns the job
 *   `canceled`, and the piece MUST never be produced (the status stays `canceled`).
 * - `cancel` of a job already `canceled` MUST return it unchanged; of a job in any other status it MUST throw
 *   `cancel_too_late` and change nothing; of an unknown reference it MUST throw `job_not_found`.
 *
 * Return receipts (U.S. certified letters with `certified_return_receipt`, see `wantsElectronicReturnReceipt`)
 * - `returnReceipt` MUST be present exactly when `capabilities.return_receipts` lists `electronic`, and a provider
 *   that lists any return receipt format MUST also declare `certified` mail at home.
 * - For a job that asked for an electronic return receipt, `returnReceipt(reference)` MUST answer undefined while
 *   the job is not `delivered`; once it answers a receipt, every later call MUST answer the same receipt, PDF byte
 *   for byte. The receipt MUST carry a PDF and name the job's tracking number (the article number), the signer's
 *   printed name and the time of signing (not before `submitted_at`); the PDF SHOULD show them with the signature,
 *   as the carrier's receipt does.
 * - `returnReceipt` MUST answer undefined, at every time, for a job that asked for no electronic return receipt
 *   (none, or a physical one), and MUST refuse an unknown reference with `job_not_found`.
 *
 * Errors
 * - Every failure the adapter reports MUST be a `PrintError` with one of the codes of `PrintErrorCode`.
 */
export interface PrintProvider {
  /** A short name for logs, reports and routing, e.g. `simulated`. */
  readonly name: string;
  /** True when nothing is really printed (development and tests); the server says so loudly at start. */
  readonly simulated: boolean;
  readonly capabilities: PrintCapabilities;

  /** Hands one job to the provider under `idempotencyKey`. */
  submit(job: PrintJob, options: { idempotencyKey: string }): Promise<SubmitResult>;
  /** What the provider holds for an idempotency key: for reconciling a submission whose answer was lost. */
  lookup(idempotencyKey: string): Promise<LookupResult>;
  /** Where the job is now, with its tracking. */
  status(reference: string): Promise<PrintJobView>;
  /** Stops a job before production. */
  cancel(reference: string): Promise<PrintJobView>;
  /**
   * The signed electronic return receipt of a delivered certified letter that asked for one, or undefined while
   * there is none (yet). Present exactly when `capabilities.return_receipts` lists `electronic`.
   */
  returnReceipt?(reference: string): Promise<ReturnReceipt | undefined>;
}

/** A carrier's signed proof of delivery of a certified letter, as its electronic return receipt shows it. */
export interface ReturnReceipt {
  /** The receipt as the carrier issues it: a PDF showing the article number, delivery, signature and name. */
  pdf: Uint8Array;
  /** The article number: the job's tracking number. */
  tracking_number: string;
  /** When the piece was delivered and signed for: ISO 8601 date-time in UTC. */
  signed_at: string;
  /** The printed name of the person who signed (the addressee or an agent). */
  signer_name: string;
  /** Where it was delivered, when known. */
  delivery_location?: string;
}

/**
 * `handwritten`: a card or letter written with a pen by a handwriting machine from the proof PDF, then posted as
 * standard mail without carrier tracking.
 */
export type MailpieceType = "letter" | "postcard" | "handwritten";
export type PostcardSize = "4x6" | "6x9" | "11x6";
export type PrintMailClass = "standard" | "priority" | "express";

export const MAILPIECE_TYPES: readonly MailpieceType[] = Object.freeze(["letter", "postcard", "handwritten"]);
export const POSTCARD_SIZES: readonly PostcardSize[] = Object.freeze(["4x6", "6x9", "11x6"]);
/** `electronic`: a signed PDF fetched from the carrier; `physical`: the green card mailed back to the sender. */
export type ReturnReceiptFormat = "electronic" | "physical";
export const RETURN_RECEIPT_FORMATS: readonly ReturnReceiptFormat[] = Object.freeze([
  "electronic",
  "physical",
]);
export const PRINT_MAIL_CLASSES: readonly PrintMailClass[] = Object.freeze([
  "standard",
  "priority",
  "express",
]);

/** What a provider can carry, declared up front so the core can route jobs without trying them. */
export interface PrintCapabilities {
  /** Where the provider prints and posts from; mail to any other country is international. */
  origin_country: string;
  /** Destination countries, including `origin_country` when it mails domestically. */
  countries: readonly string[];
  mailpiece_types: readonly MailpieceType[];
  postcard_sizes: readonly PostcardSize[];
  mail_classes: readonly PrintMailClass[];
  /** Proof of mailing at home: certified mail to `origin_country`. */
  certified: boolean;
  /** Destination countries abroad where it sends proof-of-mailing jobs as registered mail; empty for none. */
  registered: readonly string[];
  /**
   * International postcards: null when it mails postcards only at home. `return_address: "domestic"` means only
   * postcards whose sender (return) address is in `origin_country`; `"any"` means any or none.
   */
  international_postcards: { sizes: readonly PostcardSize[]; return_address: "domestic" | "any" } | null;
  color: boolean;
  double_sided: boolean;
  /**
   * Return receipts it buys with certified mail at home, by format; absent or empty for none. Listing `electronic`
   * declares `returnReceipt` too: the provider fetches the signed receipt of a delivered letter.
   */
  return_receipts?: readonly ReturnReceiptFormat[];
}

export interface PrintAddress {
  /** 1 to 255 characters. */
  name: string;
  company?: string;
  /** 1 to 256 characters. */
  line1: string;
  line2?: string;
  /** 1 to 128 characters. */
  city: string;
  state?: string;
  /** 1 to 20 characters. */
  postal_code: string;
  /** Upper-case ISO 3166-1 alpha-2. */
  country: string;
}

/** The print-ready document: a letter's pages, or a postcard's two sides (front, then the mailing side). */
export interface PrintDocument {
  bytes: Uint8Array;
  /** Lowercase hex SHA-256 of `bytes`. */
  sha256: string;
  page_count: number;
}

/**
 * One mailpiece to produce. Postcards are standard mail, color, double-sided, without proof of mailing; handwritten
 * pieces are standard mail without proof of mailing, their document the proof the machine writes from.
 */
export interface PrintJob {
  mailpiece_type: MailpieceType;
  /** Required for a postcard; null for a letter or a handwritten piece. */
  postcard_size: PostcardSize | null;
  document: PrintDocument;
  recipient: PrintAddress;
  /** The return address; null when the piece has none. */
  sender: PrintAddress | null;
  mail_class: PrintMailClass;
  color: boolean;
  double_sided: boolean;
  /** Proof of mailing: certified mail at home, registered mail abroad. */
  certified: boolean;
  /**
   * A return receipt with certified mail at home (registered mail abroad has none); requires `certified`. Absent
   * means false.
   */
  certified_return_receipt?: boolean;
  /**
   * The return receipt's format; absent means `electronic`. `physical` requires `certified_return_receipt`;
   * `electronic` may always be given (without a receipt it means nothing).
   */
  return_receipt_format?: ReturnReceiptFormat;
}

/** A job's status at its provider. */
export type PrintJobStatus =
  | "submitted"
  | "accepted"
  | "in_transit"
  | "delivered"
  | "returned"
  | "failed"
  | "canceled";

export const PRINT_JOB_STATUSES: readonly PrintJobStatus[] = Object.freeze([
  "submitted",
  "accepted",
  "in_transit",
  "delivered",
  "returned",
  "failed",
  "canceled",
]);

/** Statuses a job never leaves. */
export const FINAL_PRINT_JOB_STATUSES: readonly PrintJobStatus[] = Object.freeze([
  "delivered",
  "returned",
  "failed",
  "canceled",
]);

export interface TrackingEvent {
  /** The job's status once this event happened. */
  status: PrintJobStatus;
  /** ISO 8601 date-time in UTC. */
  at: string;
  /** What happened, for people. */
  description: string;
  /** Where it happened, when known. */
  location?: string;
}

export interface PrintJobView {
  reference: string;
  status: PrintJobStatus;
  /** ISO 8601 date-time in UTC. */
  submitted_at: string;
  tracking_number: string | null;
  tracking_url: string | null;
  /** Oldest first; the last one carries `status`. */
  events: TrackingEvent[];
}

export interface SubmitResult extends PrintJobView {
  /** True when the key had already been accepted and this answer is the original job. */
  idempotent_replay: boolean;
}

export type LookupResult =
  | { outcome: "found"; reference: string; status: PrintJobStatus }
  | { outcome: "not_found" };

/** Idempotency keys: letters, digits, `.`, `_`, `-` and `:`, starting with a letter or digit, 1 to 255 long. */
export const PRINT_IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,254}$/;

/** The most pages a letter may carry (spec 1, Limits). */
export const MAX_PRINT_PAGES = 199;

/** Stable codes of print failures; apps map them to HTTP in one place. */
export type PrintErrorCode =
  /** The job is malformed (`findPrintJobProblem`); `field` names the part at fault. */
  | "invalid_job"
  /** The idempotency key does not match `PRINT_IDEMPOTENCY_KEY_PATTERN`. */
  | "invalid_idempotency_key"
  /** The provider's capabilities do not carry the job. */
  | "unsupported_job"
  /** The provider looked at the job and refused it for good (nothing will be produced). */
  | "job_rejected"
  /** The key was used before for a different job. */
  | "idempotency_conflict"
  /** No job has this reference. */
  | "job_not_found"
  /** Production has started (or the job is final); it can no longer be canceled. */
  | "cancel_too_late"
  /** The provider could not be reached or did not answer; the outcome of the call is unknown. */
  | "provider_unavailable"
  /** `routeProvider`: no provider's capabilities carry the job. */
  | "no_capable_provider";

const DEFINITE_REFUSALS: ReadonlySet<PrintErrorCode> = new Set<PrintErrorCode>([
  "invalid_job",
  "invalid_idempotency_key",
  "unsupported_job",
  "job_rejected",
  "idempotency_conflict",
]);

const PrintErrorBase = defineError<PrintErrorCode>("PrintError");

/** The error of the print port. `code` is a stable wire contract; `message` is for people. */
export class PrintError extends PrintErrorBase {
  /** The job field at fault, for `invalid_job` and `unsupported_job` (e.g. `recipient.country`). */
  readonly field: string | undefined;

  constructor(code: PrintErrorCode, message: string, options?: ErrorOptions & { field?: string }) {
    super(code, message, options);
    this.field = options?.field;
  }

  /** True for any PrintError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is PrintError {
    return PrintErrorBase.isInstance(value);
  }
}

/**
 * True when a failed `submit` certainly created no piece, so the order can fail (or be fixed and sent under a new
 * key). False for anything else: the outcome is unknown and the order goes to `submission_pending`.
 */
export function isDefiniteRefusal(error: unknown): boolean {
  return PrintError.isInstance(error) && DEFINITE_REFUSALS.has(error.code);
}

/** Why a job does not fit a capability: the job field at fault and a sentence for people. */
export interface PrintJobGap {
  field: string;
  message: string;
}

const COUNTRY = /^[A-Z]{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** The first thing malformed in `job`, or undefined when it is well-formed. */
export function findPrintJobProblem(job: PrintJob): PrintJobGap | undefined {
  if (typeof job !== "object" || job === null) return { field: "", message: "a job must be an object" };
  if (!MAILPIECE_TYPES.includes(job.mailpiece_type)) {
    return { field: "mailpiece_type", message: "mailpiece_type must be letter, postcard or handwritten" };
  }
  const postcard = job.mailpiece_type === "postcard";
  if (postcard ? !POSTCARD_SIZES.includes(job.postcard_size as PostcardSize) : job.postcard_size !== null) {
    return {
      field: "postcard_size",
      message: postcard
        ? "a postcard needs postcard_size 4x6, 6x9 or 11x6"
        : `a ${job.mailpiece_type === "handwritten" ? "handwritten piece" : "letter"} has postcard_size null`,
    };
  }
  const doc = job.document as Partial<PrintDocument> | undefined;
  if (!(doc?.bytes instanceof Uint8Array) || doc.bytes.byteLength === 0) {
    return { field: "document.bytes", message: "the document needs its bytes" };
  }
  if (typeof doc.sha256 !== "string" || !SHA256.test(doc.sha256)) {
    return { field: "document.sha256", message: "document.sha256 must be 64 lowercase hex characters" };
  }
  const pages = doc.page_count;
  if (typeof pages !== "number" || !Number.isInteger(pages) || pages < 1 || pages > MAX_PRINT_PAGES) {
    return { field: "document.page_count", message: `a document has 1 to ${MAX_PRINT_PAGES} pages` };
  }
  if (postcard && pages !== 2) {
    return {
      field: "document.page_count",
      message: "a postcard has exactly 2 pages: front and mailing side",
    };
  }
  const recipient = addressProblem(job.recipient, "recipient");
  if (recipient) return recipient;
  if (job.sender !== null) {
    const sender = addressProblem(job.sender, "sender");
    if (sender) return sender;
  }
  if (!PRINT_MAIL_CLASSES.includes(job.mail_class)) {
    return { field: "mail_class", message: "mail_class must be standard, priority or express" };
  }
  for (const flag of ["color", "double_sided", "certified"] as const) {
    if (typeof job[flag] !== "boolean") return { field: flag, message: `${flag} must be a boolean` };
  }
  if (postcard) {
    if (job.mail_class !== "standard") {
      return { field: "mail_class", message: "postcards travel as standard mail" };
    }
    if (!job.color || !job.double_sided) {
      return { field: job.color ? "double_sided" : "color", message: "postcards are color and double-sided" };
    }
    if (job.certified) return { field: "certified", message: "postcards take no proof of mailing" };
  }
  if (job.mailpiece_type === "handwritten") {
    if (job.mail_class !== "standard") {
      return { field: "mail_class", message: "handwritten pieces travel as standard mail" };
    }
    if (job.certified) return { field: "certified", message: "handwritten pieces take no proof of mailing" };
  }
  if (job.certified && job.mail_class !== "standard") {
    return { field: "certified", message: "priority and express mail cannot be certified or registered" };
  }
  return returnReceiptProblem(job);
}

function returnReceiptProblem(job: PrintJob): PrintJobGap | undefined {
  const receipt = job.certified_return_receipt;
  if (receipt !== undefined && typeof receipt !== "boolean") {
    return { field: "certified_return_receipt", message: "certified_return_receipt must be a boolean" };
  }
  const format = job.return_receipt_format;
  if (format !== undefined && !RETURN_RECEIPT_FORMATS.includes(format)) {
    return {
      field: "return_receipt_format",
      message: "return_receipt_format must be electronic or physical",
    };
  }
  if (receipt === true && !job.certified) {
    return { field: "certified_return_receipt", message: "a return receipt comes with certified mail only" };
  }
  if (format === "physical" && receipt !== true) {
    return {
      field: "return_receipt_format",
      message: "a physical return receipt needs certified_return_receipt true",
    };
  }
  return undefined;
}

/** True when the (well-formed) job asked for a signed electronic return receipt: `returnReceipt` will have one. */
export function wantsElectronicReturnReceipt(
  job: Pick<PrintJob, "certified_return_receipt" | "return_receipt_format">,
): boolean {
  return (
    job.certified_return_receipt === true && (job.return_receipt_format ?? "electronic") === "electronic"
  );
}

function addressProblem(address: PrintAddress | undefined, at: string): PrintJobGap | undefined {
  if (typeof address !== "object" || address === null) {
    return { field: at, message: `${at} must be an address` };
  }
  const text = (key: keyof PrintAddress, max: number, required: boolean): PrintJobGap | undefined => {
    const value = address[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== "string" || value.trim().length === 0 || value.length > max) {
      return { field: `${at}.${key}`, message: `${at}.${key} must be 1 to ${max} characters` };
    }
    return undefined;
  };
  const problem =
    text("name", 255, true) ??
    text("company", 255, false) ??
    text("line1", 256, true) ??
    text("line2", 256, false) ??
    text("city", 128, true) ??
    text("state", 60, false) ??
    text("postal_code", 20, true);
  if (problem) return problem;
  if (typeof address.country !== "string" || !COUNTRY.test(address.country)) {
    return { field: `${at}.country`, message: `${at}.country must be an upper-case ISO 3166-1 alpha-2 code` };
  }
  return undefined;
}

const PIECES: Record<MailpieceType, string> = {
  letter: "letters",
  postcard: "postcards",
  handwritten: "handwritten pieces",
};

/**
 * The first thing `job` needs that `capabilities` lack, or undefined when the provider carries it. The job is
 * assumed well-formed. International postcards follow spec 1: a provider whose `international_postcards` says
 * `return_address: "domestic"` carries them only in its declared sizes (4x6 for the first provider) and with a
 * sender address in its `origin_country`; larger ones, or ones with a foreign or no return address, need a
 * provider that declares `return_address: "any"` for that size.
 */
export function capabilityGap(capabilities: PrintCapabilities, job: PrintJob): PrintJobGap | undefined {
  const country = job.recipient.country;
  const international = country !== capabilities.origin_country;
  if (!capabilities.countries.includes(country)) {
    return { field: "recipient.country", message: `${country} is not a destination of this provider` };
  }
  if (!capabilities.mailpiece_types.includes(job.mailpiece_type)) {
    return { field: "mailpiece_type", message: `this provider does not mail ${PIECES[job.mailpiece_type]}` };
  }
  if (!capabilities.mail_classes.includes(job.mail_class)) {
    return { field: "mail_class", message: `this provider does not send ${job.mail_class} mail` };
  }
  if (job.color && !capabilities.color) return { field: "color", message: "this provider prints no color" };
  if (job.double_sided && !capabilities.double_sided) {
    return { field: "double_sided", message: "this provider prints on one side only" };
  }
  if (job.mailpiece_type === "postcard") {
    const size = job.postcard_size as PostcardSize;
    if (!capabilities.postcard_sizes.includes(size)) {
      return { field: "postcard_size", message: `this provider does not print ${size} postcards` };
    }
    if (international) {
      const abroad = capabilities.international_postcards;
      if (abroad === null) {
        return { field: "recipient.country", message: "this provider mails postcards only at home" };
      }
      if (!abroad.sizes.includes(size)) {
        return {
          field: "postcard_size",
          message: `this provider mails only ${abroad.sizes.join(", ")} postcards abroad`,
        };
      }
      if (abroad.return_address === "domestic" && job.sender?.country !== capabilities.origin_country) {
        return {
          field: "sender.country",
          message: `this provider mails postcards abroad only with a return address in ${capabilities.origin_country}`,
        };
      }
    }
  }
  if (job.certified) {
    if (!international && !capabilities.certified) {
      return { field: "certified", message: "this provider sends no certified mail" };
    }
    if (international && !capabilities.registered.includes(country)) {
      return { field: "certified", message: `this provider sends no registered mail to ${country}` };
    }
  }
  if (job.certified_return_receipt === true) {
    if (international) {
      return {
        field: "certified_return_receipt",
        message: `registered mail to ${country} has no return receipt; return receipts come with certified mail at home`,
      };
    }
    const format = job.return_receipt_format ?? "electronic";
    if (!(capabilities.return_receipts ?? []).includes(format)) {
      return {
        field: "return_receipt_format",
        message: `this provider obtains no ${format} return receipts`,
      };
    }
  }
  return undefined;
}

/** True when `capabilities` carry the (well-formed) `job`. */
export function carries(capabilities: PrintCapabilities, job: PrintJob): boolean {
  return capabilityGap(capabilities, job) === undefined;
}

/**
 * Chooses the first provider, in the order given, whose capabilities carry `job`. List the preferred provider
 * first: with a first provider that declares international postcards for 4x6 with a domestic return address and a
 * second that declares them for every size and any return address, spec 1's postcard rule follows.
 * Throws `PrintError` `invalid_job` for a malformed job and `no_capable_provider`, naming each provider's gap,
 * when none carries it.
 */
export function routeProvider<P extends Pick<PrintProvider, "name" | "capabilities">>(
  providers: readonly P[],
  job: PrintJob,
): P {
  const problem = findPrintJobProblem(job);
  if (problem) throw new PrintError("invalid_job", problem.message, { field: problem.field });
  const gaps: string[] = [];
  for (const provider of providers) {
    const gap = capabilityGap(provider.capabilities, job);
    if (gap === undefined) return provider;
    gaps.push(`${provider.name}: ${gap.message}`);
  }
  throw new PrintError(
    "no_capable_provider",
    providers.length === 0
      ? "no print provider is configured"
      : `no print provider carries this job (${gaps.join("; ")})`,
  );
}

import type { Issue } from "@mailpiece/errors";
import type { Workflow } from "@mailpiece/forms";
import { BUILTIN_WORKFLOWS, findWorkflow, requiresCertified } from "@mailpiece/forms";
import type { ClaimStore } from "@mailpiece/idempotency";
import { claimRequest, fingerprintJson, peekRequest } from "@mailpiece/idempotency";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { BlobStore, Clock, IdGenerator, Store } from "@mailpiece/ports";
import type { CoreConfig } from "../config.ts";
import type { DocumentKeeper } from "../document-retention.ts";
import { keepDocumentFor } from "../document-retention.ts";
import { sha256Hex } from "../documents.ts";
import { CoreError, invalidRequest, rateLimitedError } from "../errors.ts";
import type { PreviewSigner } from "../previews.ts";
import { openDocument } from "../previews.ts";
import type { RateLimit } from "../rate-limit.ts";
import { consumeRate } from "../rate-limit.ts";
import { lifecycleLengthMs, SIMULATIONS } from "./lifecycle.ts";
import type { Preview, PreviewContext } from "./preview-document.ts";
import { formNames, formPreview, letterPreview, pdfPreview } from "./preview-document.ts";
import type { TestDraftRecord } from "./record.ts";
import { draftKey, hexOfId, hexOfUuid } from "./record.ts";
import type { FormDraftRequest, MailDraftRequest, Parsed } from "./requests.ts";
import { mailServiceOf, parseFormDraft, parseMailDraft } from "./requests.ts";
import type { TestDraftView, TestOrderView } from "./view.ts";
import { draftView, orderView } from "./view.ts";

/** What the test drafts are made with; `createMailpieceCore` passes its own. */
export interface TestDraftsDeps {
  store: Store;
  blobs: BlobStore;
  clock: Clock;
  ids: IdGenerator;
  /** The PDF limits (maxPdfBytes, maxPdfPages) a pdf_url document is checked against, as an order's is. */
  config: CoreConfig;
  /** The document workers that typeset, check, watermark and build packets; absent: the caller's thread. */
  pdf?: PdfWork;
  /** The deployment's safe fetcher of allowlisted PDF URLs (PDF_DOWNLOAD_HOSTS); absent: pdf_url is refused. */
  fetchDocument?: (url: string) => Promise<Uint8Array>;
  /** The workflow forms offered; default: the built-in ones. */
  workflows?: readonly Workflow[];
  /** Signs preview links (the core's preview signer); absent: drafts answer preview_pdf_path null. */
  previews?: PreviewSigner;
  /** Keeps the watermarked PDFs by content and collects them after their retention; absent: kept for good. */
  documents?: DocumentKeeper;
  /** Drafts one client may create per window, counted in the store; default TEST_DRAFT_RATE_LIMIT. */
  rateLimit?: RateLimit;
  /** How long a draft, its Idempotency-Key and its PDF are kept; default TEST_DRAFT_RETENTION_MS. */
  retentionMs?: number;
}

/** Test drafts one client (IP) may create: 60 an hour, counted across the deployment's processes. */
export const TEST_DRAFT_RATE_LIMIT: RateLimit = { limit: 60, windowMs: 60 * 60 * 1000 };
/** How long a test draft is kept: 30 days, well past the longest fake lifecycle. */
export const TEST_DRAFT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** One creation request: the Idempotency-Key header as sent, the parsed JSON body and who is asking. */
export interface CreateTestDraftInput {
  idempotencyKey: string | null | undefined;
  body: unknown;
  /** The client (its IP) for the per-client limit; absent: not limited (embedding, tests). */
  clientKey?: string;
}

/**
 * The test-mode draft endpoints of spec 3 ({base_url}/v1/test): a watermarked preview (TEST MODE on every page), a
 * zero-dollar quote and a fake lifecycle. Nothing is ever charged, reserved or sent to a print provider, and no
 * credential is needed: each client is limited instead.
 *
 * Creation checks, in this order, so that each refusal changes nothing: the Idempotency-Key
 * (idempotency_key_required when missing or not a UUID, before anything else), the client's limit (rate_limited),
 * the body (validation_failed with every issue), the key's earlier use (request_id_conflict for another body; the
 * same body answers the same draft with idempotent_replay true, without making anything again), the document
 * (validation_failed, at the field at fault). Only then are the draft and its PDF stored.
 */
export interface TestDrafts {
  /** The Idempotency-Key of a creation, lower-cased. Throws idempotency_key_required when missing or not a UUID. */
  idempotencyKey(header: string | null | undefined): string;
  /** POST /v1/test/mail_drafts: letter_text with sender and recipient names, or pdf_url with a mail_class. */
  createMailDraft(input: CreateTestDraftInput): Promise<TestDraftView>;
  /** POST /v1/test/form_drafts: a workflow's packet from `answers` (and `attachments`). */
  createFormDraft(input: CreateTestDraftInput): Promise<TestDraftView>;
  /** GET /v1/test/orders/{id}: by the order id (`tord_...`) or the draft's (`tdr_...`); undefined when unknown. */
  getOrder(id: string): Promise<TestOrderView | undefined>;
  /**
   * The PDF behind a preview link. Throws preview_link_invalid (tampered or expired, the message says which) or
   * not_found (no longer kept).
   */
  openPreview(sha256: string, expires: string | null, sig: string | null): Promise<Uint8Array>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a new draft's record says besides its id, document, warnings and time. */
type DraftFacts = Omit<TestDraftRecord, "hex" | "sha256" | "page_count" | "warnings" | "created_at">;
/** The made piece of a valid request and its facts, or every issue that stops it. */
type Made = { ok: false; issues: Issue[] } | (Extract<Preview, { ok: true }> & { facts: DraftFacts });

const keyConflict = () =>
  new CoreError(
    "request_id_conflict",
    "This Idempotency-Key was already used with a different body. Retry with the same body, or use a new key for a new draft.",
  );

export function createTestDrafts(deps: TestDraftsDeps): TestDrafts {
  const workflows = deps.workflows ?? BUILTIN_WORKFLOWS;
  const rule = deps.rateLimit ?? TEST_DRAFT_RATE_LIMIT;
  const retentionMs = deps.retentionMs ?? TEST_DRAFT_RETENTION_MS;
  const longest = Math.max(...SIMULATIONS.map(lifecycleLengthMs));
  if (!Number.isFinite(retentionMs) || retentionMs < longest) {
    throw new RangeError(`retentionMs must be at least ${longest} ms, the longest fake lifecycle.`);
  }
  const preview: PreviewContext = {
    config: deps.config,
    store: deps.store,
    blobs: deps.blobs,
    clock: deps.clock,
    ...(deps.pdf ? { pdf: deps.pdf } : {}),
    ...(deps.fetchDocument ? { fetchDocument: deps.fetchDocument } : {}),
  };
  // Idempotency-Keys live under this surface's own prefix, apart from the machine API's request_ids, and expire
  // with the drafts they name.
  const claims: ClaimStore = {
    get: (key) => deps.store.get(`test-drafts:${key}`),
    create: (key, value) => deps.store.create(`test-drafts:${key}`, value, { ttlMs: retentionMs }),
  };

  const idempotencyKey = (header: string | null | undefined): string => {
    if (header === null || header === undefined || header.trim() === "") {
      throw new CoreError(
        "idempotency_key_required",
        "Send an Idempotency-Key header holding a UUID (for example 0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c03); a retry with the same key and body answers the same draft.",
      );
    }
    const key = header.trim();
    if (!UUID.test(key)) {
      throw new CoreError(
        "idempotency_key_required",
        "The Idempotency-Key header must be a UUID (for example 0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c03).",
      );
    }
    return key.toLowerCase();
  };

  const load = async (hex: string) => (await deps.store.get<TestDraftRecord>(draftKey(hex)))?.value;

  /** The creation rules both kinds of draft share, around the parse and the making of one kind. */
  const create = async <R>(
    route: "mail_drafts" | "form_drafts",
    input: CreateTestDraftInput,
    parse: (body: unknown) => Parsed<R>,
    make: (request: R) => Promise<Made>,
  ): Promise<TestDraftView> => {
    const key = idempotencyKey(input.idempotencyKey);
    if (input.clientKey !== undefined) {
      const rate = await consumeRate(deps.store, "test_drafts", input.clientKey, rule, deps.clock.now());
      if (!rate.allowed) throw rateLimitedError(rate.retryAfterSeconds, "test drafts");
    }
    const parsed = parse(input.body);
    if (!parsed.ok) throw invalidRequest(parsed.issues, "test draft");
    const fingerprint = fingerprintJson({ route, body: input.body });
    const earlier = await peekRequest(claims, key, fingerprint);
    if (earlier?.kind === "conflict") throw keyConflict();
    if (earlier?.kind === "replay") {
      const found = await load(earlier.claim.order_id);
      if (found) return draftView(found, deps.clock.now(), deps.previews, true);
    }
    const made = await make(parsed.value);
    if (!made.ok) throw invalidRequest(made.issues, "test draft");
    const claim = await claimRequest(claims, {
      request_id: key,
      fingerprint,
      order_id: hexOfUuid(deps.ids.uuid()),
      now: deps.clock.now(),
    });
    if (claim.kind === "conflict") throw keyConflict();
    // A replay that finds no draft (its first request is still making it, or stopped before writing it) writes the
    // draft of the claim: whichever write comes first is the draft both answer.
    const record: TestDraftRecord = {
      ...made.facts,
      hex: claim.claim.order_id,
      sha256: sha256Hex(made.pdf),
      page_count: made.page_count,
      warnings: made.warnings,
      created_at: claim.claim.claimed_at,
    };
    await keepDocumentFor(deps, record.sha256, record.created_at + retentionMs, made.pdf);
    const written = await deps.store.create(draftKey(record.hex), record, { ttlMs: retentionMs });
    const replay = claim.kind === "replay" || !written.created;
    return draftView(written.record.value, deps.clock.now(), deps.previews, replay);
  };

  const makeMailDraft = async (request: MailDraftRequest): Promise<Made> => {
    const made =
      request.source === "letter_text"
        ? await letterPreview(request, preview)
        : await pdfPreview(request.pdf_url, preview);
    if (!made.ok) return made;
    return {
      ...made,
      facts: {
        object: "test_mail_draft",
        source: request.source,
        ...(request.sender ? { sender_name: request.sender.name } : {}),
        ...(request.recipient ? { recipient_name: request.recipient.name } : {}),
        mail_class: request.mail_class,
        service: mailServiceOf(request.mail_class),
        simulate: request.simulate,
      },
    };
  };

  const makeFormDraft = async (request: FormDraftRequest): Promise<Made> => {
    const workflow = findWorkflow(workflows, request.workflow_slug);
    if (!workflow) {
      const slug = request.workflow_slug.slice(0, 100);
      return {
        ok: false,
        issues: [
          {
            path: "workflow_slug",
            code: "form_unknown",
            message: `No workflow form is published under "${slug}". List the forms with GET /api/machine/forms.`,
          },
        ],
      };
    }
    const made = await formPreview(request, workflow, preview);
    if (!made.ok) return made;
    const names = formNames(request.answers);
    return {
      ...made,
      facts: {
        object: "test_form_draft",
        source: "form",
        workflow_slug: workflow.slug,
        ...(names.sender ? { sender_name: names.sender } : {}),
        ...(names.recipient ? { recipient_name: names.recipient } : {}),
        mail_class: workflow.envelope.mail_class,
        service: {
          mail_class: workflow.envelope.mail_class,
          certified: requiresCertified(workflow) || workflow.envelope.certified,
        },
        simulate: request.simulate,
      },
    };
  };

  return {
    idempotencyKey,
    createMailDraft: (input) => create("mail_drafts", input, parseMailDraft, makeMailDraft),
    createFormDraft: (input) => create("form_drafts", input, parseFormDraft, makeFormDraft),
    async getOrder(id) {
      const hex = hexOfId(id);
      const found = hex === undefined ? undefined : await load(hex);
      return found ? orderView(found, deps.clock.now(), deps.previews) : undefined;
    },
    async openPreview(sha256, expires, sig) {
      const verdict = deps.previews
        ? deps.previews.verify(sha256, expires, sig, deps.clock.now())
        : "invalid";
      if (verdict === "expired") {
        throw new CoreError(
          "preview_link_invalid",
          "This preview link has expired; GET the test order again for a new one.",
        );
      }
      if (verdict !== "ok") throw new CoreError("preview_link_invalid", "This preview link is not valid.");
      const blob = await openDocument(deps, sha256);
      if (!blob) throw new CoreError("not_found", "This preview is no longer kept.");
      return blob.bytes;
    },
  };
}

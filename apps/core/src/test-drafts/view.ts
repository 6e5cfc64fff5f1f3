import type { Issue } from "@mailpiece/orders";
import type { PreviewSigner } from "../previews.ts";
import type { Simulation, TestEvent, TestOrderStatus, TrackingStatus } from "./lifecycle.ts";
import { lifecycleAt } from "./lifecycle.ts";
import type { TestQuote } from "./quote.ts";
import { testQuote } from "./quote.ts";
import type { TestDraftRecord, TestDraftSource } from "./record.ts";
import { draftId, orderId } from "./record.ts";

/** Where the test surface serves preview PDFs: `<path>/<sha256>.pdf?expires=<unix s>&sig=<hex>`. */
export const TEST_PREVIEW_PATH = "/v1/test/previews";

/** What a test draft and its order both say of the piece, as it stands when read. */
export interface TestPieceView {
  mode: "test";
  status: TestOrderStatus;
  source: TestDraftSource;
  workflow_slug: string | null;
  mailpiece_type: "letter";
  sender: { name: string } | null;
  recipient: { name: string } | null;
  mail_class: string;
  certified: boolean;
  page_count: number;
  simulate: Simulation;
  price_cents: 0;
  currency: "usd";
  quote: TestQuote;
  /**
   * The path and query of a signed, expiring link to the watermarked PDF (the surface prefixes its base URL); null
   * when the deployment signs no preview links.
   */
  preview_pdf_path: string | null;
  preview_expires_at: string | null;
  tracking_number: string | null;
  /** Always null: no carrier tracks a test piece. */
  tracking_url: null;
  tracking_status: TrackingStatus | null;
  events: TestEvent[];
  next_event_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The answer to creating a test draft: the draft, its order's id and the piece. */
export interface TestDraftView extends TestPieceView {
  id: string;
  object: "test_mail_draft" | "test_form_draft";
  order_id: string;
  /** Things worth knowing that did not stop the draft (a form's answers to hidden fields, say). */
  warnings: Issue[];
  /** True when this answer is the draft an earlier request with the same Idempotency-Key and body made. */
  idempotent_replay: boolean;
}

/** GET /v1/test/orders/{id}: the order of a test draft and its fake lifecycle so far. */
export interface TestOrderView extends TestPieceView {
  id: string;
  object: "test_order";
  draft_id: string;
}

/** The piece as it stands at `now`, with a preview link signed now. */
export function pieceView(
  record: TestDraftRecord,
  now: number,
  signer: PreviewSigner | undefined,
): TestPieceView {
  const state = lifecycleAt(
    { order_id: orderId(record.hex), created_at: record.created_at, simulate: record.simulate },
    now,
  );
  const link = previewLink(signer, record.sha256, now);
  return {
    mode: "test",
    status: state.status,
    source: record.source,
    workflow_slug: record.workflow_slug ?? null,
    mailpiece_type: "letter",
    sender: record.sender_name === undefined ? null : { name: record.sender_name },
    recipient: record.recipient_name === undefined ? null : { name: record.recipient_name },
    mail_class: record.mail_class,
    certified: record.service.certified,
    page_count: record.page_count,
    simulate: record.simulate,
    price_cents: 0,
    currency: "usd",
    quote: testQuote(record.page_count, record.service),
    preview_pdf_path: link?.path ?? null,
    preview_expires_at: link ? new Date(link.expiresAt).toISOString() : null,
    tracking_number: state.tracking_number,
    tracking_url: null,
    tracking_status: state.tracking_status,
    events: state.events,
    next_event_at: state.next_event_at,
    created_at: new Date(record.created_at).toISOString(),
    updated_at: state.updated_at,
  };
}

export function draftView(
  record: TestDraftRecord,
  now: number,
  signer: PreviewSigner | undefined,
  replay: boolean,
): TestDraftView {
  return {
    id: draftId(record.hex),
    object: record.object,
    order_id: orderId(record.hex),
    ...pieceView(record, now, signer),
    warnings: record.warnings,
    idempotent_replay: replay,
  };
}

export function orderView(
  record: TestDraftRecord,
  now: number,
  signer: PreviewSigner | undefined,
): TestOrderView {
  return {
    id: orderId(record.hex),
    object: "test_order",
    draft_id: draftId(record.hex),
    ...pieceView(record, now, signer),
  };
}

/**
 * A signed link to a kept PDF on the test surface. The signature covers the document's hash and the expiry only
 * (see previews.ts), so the signer's query serves here as it does on the machine API's preview path.
 */
function previewLink(
  signer: PreviewSigner | undefined,
  sha256: string,
  now: number,
): { path: string; expiresAt: number } | undefined {
  if (!signer) return undefined;
  const signed = signer.sign(sha256, now);
  const query = signed.path.slice(signed.path.indexOf("?"));
  return { path: `${TEST_PREVIEW_PATH}/${sha256}.pdf${query}`, expiresAt: signed.expiresAt };
}

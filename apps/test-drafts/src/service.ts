/**
 * What the app calls: the core's test drafts (`createTestDrafts` in @mailpiece/core, `core.testDrafts` once a core
 * composes them). The app reads only the preview path of what they answer and passes the rest through as JSON, so
 * any object of this shape mounts.
 */
export interface TestDraftsService {
  /** The Idempotency-Key of a creation; throws CoreError idempotency_key_required when missing or not a UUID. */
  idempotencyKey(header: string | null | undefined): string;
  createMailDraft(input: CreateInput): Promise<DraftAnswer>;
  createFormDraft(input: CreateInput): Promise<DraftAnswer>;
  /** A test order by its id or its draft's; undefined when unknown. */
  getOrder(id: string): Promise<PieceAnswer | undefined>;
  /** The PDF behind a preview link; throws CoreError preview_link_invalid or not_found. */
  openPreview(sha256: string, expires: string | null, sig: string | null): Promise<Uint8Array>;
}

export interface CreateInput {
  idempotencyKey: string;
  body: unknown;
  /** The client IP, for the per-client limit. */
  clientKey: string;
}

/** A draft or order answer: the app turns its preview path into an absolute preview_pdf_url. */
export interface PieceAnswer {
  preview_pdf_path: string | null;
}

export interface DraftAnswer extends PieceAnswer {
  idempotent_replay: boolean;
}

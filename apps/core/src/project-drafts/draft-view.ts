import type { KeyMode } from "../workspaces/api-keys.ts";
import type { DraftRecord, DraftRevision, DraftState, RevisionReason } from "./draft-record.ts";
import type { DraftTypeName, SendBody } from "./draft-types.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** One revision of a draft in full, as a client reads it. */
export interface DraftRevisionView {
  revision: number;
  reason: RevisionReason;
  /** The send body of this revision, with its type: what a release sends. */
  body: SendBody & { type: DraftTypeName };
  price_cents: number;
  currency: "usd";
  quote_id: string | null;
  quote_expires_at: string | null;
  created_at: string;
}

/** A draft of the Projects API (spec 3): its state, the revision shown, every revision's summary, its approval. */
export interface DraftView {
  object: "draft";
  id: string;
  type: DraftTypeName;
  mode: KeyMode;
  state: DraftState;
  current_revision: number;
  /** The revision shown: the current one unless another was asked for. */
  revision: DraftRevisionView;
  revisions: {
    revision: number;
    reason: RevisionReason;
    price_cents: number;
    currency: "usd";
    quote_id: string | null;
    created_at: string;
  }[];
  /** The approval of the current revision; null when none was asked for (or a new revision cleared it). */
  approval: {
    revision: number;
    state: "pending" | "approved" | "rejected";
    requested_at: string;
    decided_at: string | null;
    note: string | null;
  } | null;
  /** The order a release made, and the revision it sent. */
  order_id: string | null;
  released_revision: number | null;
  released_at: string | null;
  discarded_at: string | null;
  created_at: string;
  updated_at: string;
}

export function revisionView(draft: DraftRecord, revision: DraftRevision): DraftRevisionView {
  return {
    revision: revision.revision,
    reason: revision.reason,
    body: { type: draft.type, ...revision.body },
    price_cents: revision.price_cents,
    currency: revision.currency,
    quote_id: revision.quote_id,
    quote_expires_at: isoOrNull(revision.quote_expires_at),
    created_at: iso(revision.created_at),
  };
}

export function draftView(draft: DraftRecord, shown: DraftRevision = draft.current): DraftView {
  const { approval, release } = draft;
  return {
    object: "draft",
    id: draft.id,
    type: draft.type,
    mode: draft.mode,
    state: draft.state,
    current_revision: draft.current.revision,
    revision: revisionView(draft, shown),
    revisions: draft.revisions.map((r) => ({
      revision: r.revision,
      reason: r.reason,
      price_cents: r.price_cents,
      currency: r.currency,
      quote_id: r.quote_id,
      created_at: iso(r.created_at),
    })),
    approval: approval
      ? {
          revision: approval.revision,
          state: approval.state,
          requested_at: iso(approval.requested_at),
          decided_at: isoOrNull(approval.decided_at),
          note: approval.note,
        }
      : null,
    order_id: release?.order_id ?? null,
    released_revision: draft.state === "released" ? (release?.revision ?? null) : null,
    released_at: isoOrNull(release?.released_at ?? null),
    discarded_at: isoOrNull(draft.discarded_at),
    created_at: iso(draft.created_at),
    updated_at: iso(draft.updated_at),
  };
}

/** The approval states a summary can show; `none` when no approval applies to the current revision. */
export type ApprovalState = "none" | "pending" | "approved" | "rejected";

/**
 * What an approval shows (spec 3: expense-only): which draft, what kind of mail, at what price, where the decision
 * stands. Never the documents, addresses, metadata or tracking of the mail.
 */
export interface ApprovalSummary {
  object: "approval";
  draft_id: string;
  type: DraftTypeName;
  mode: KeyMode;
  revision: number;
  price_cents: number;
  currency: "usd";
  state: ApprovalState;
  requested_at: string | null;
  decided_at: string | null;
}

export function approvalSummary(draft: DraftRecord): ApprovalSummary {
  const approval = draft.approval;
  return {
    object: "approval",
    draft_id: draft.id,
    type: draft.type,
    mode: draft.mode,
    revision: approval?.revision ?? draft.current.revision,
    price_cents: draft.current.price_cents,
    currency: draft.current.currency,
    state: approval?.state ?? "none",
    requested_at: isoOrNull(approval?.requested_at ?? null),
    decided_at: isoOrNull(approval?.decided_at ?? null),
  };
}

/** A page of a listing, as the credit ledger's: oldest first, with the cursor of the next page. */
export interface ListPage<T> {
  object: "list";
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

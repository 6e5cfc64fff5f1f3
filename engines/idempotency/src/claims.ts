import type { ClaimStore } from "./claim-store.ts";

/** What a request_id is bound to: the body that first used it and the order it made. */
export interface RequestClaim {
  request_id: string;
  fingerprint: string;
  order_id: string;
  /** Milliseconds since the epoch. */
  claimed_at: number;
}

export type RequestClaimOutcome =
  /** The caller is the first with this request_id and owns the new order id. */
  | { kind: "claimed"; claim: RequestClaim }
  /** Same request_id, same body: the caller resolves to the order already made. */
  | { kind: "replay"; claim: RequestClaim }
  /** Same request_id, another body: refuse (409). */
  | { kind: "conflict"; claim: RequestClaim };

export const requestKey = (requestId: string) => `idem:request:${requestId}`;

/**
 * Binds `request_id` to a body fingerprint and an order id, at most once. Under any number of concurrent callers
 * with one request_id exactly one gets "claimed"; the others get "replay" (same body) or "conflict".
 */
export async function claimRequest(
  store: ClaimStore,
  input: { request_id: string; fingerprint: string; order_id: string; now: number },
): Promise<RequestClaimOutcome> {
  const claim: RequestClaim = {
    request_id: input.request_id,
    fingerprint: input.fingerprint,
    order_id: input.order_id,
    claimed_at: input.now,
  };
  const result = await store.create<RequestClaim>(requestKey(input.request_id), claim);
  if (result.created) return { kind: "claimed", claim };
  return decide(result.record.value, input.fingerprint);
}

/** Looks at a request_id without claiming it: undefined when unused. */
export async function peekRequest(
  store: ClaimStore,
  requestId: string,
  fingerprint: string,
): Promise<Exclude<RequestClaimOutcome, { kind: "claimed" }> | undefined> {
  const record = await store.get<RequestClaim>(requestKey(requestId));
  return record ? decide(record.value, fingerprint) : undefined;
}

/** The claim on a request_id, whatever body it was made with; undefined when the request_id is unclaimed. */
export async function findRequestClaim(
  store: ClaimStore,
  requestId: string,
): Promise<RequestClaim | undefined> {
  return (await store.get<RequestClaim>(requestKey(requestId)))?.value;
}

function decide(
  existing: RequestClaim,
  fingerprint: string,
): Exclude<RequestClaimOutcome, { kind: "claimed" }> {
  return existing.fingerprint === fingerprint
    ? { kind: "replay", claim: existing }
    : { kind: "conflict", claim: existing };
}

/** A payment credential's replay key, bound to the order it paid for. */
export interface ReplayClaim {
  replay_key: string;
  order_id: string;
  claimed_at: number;
}

export type ReplayClaimOutcome =
  | { kind: "claimed"; claim: ReplayClaim }
  | { kind: "taken"; claim: ReplayClaim };

export const replayKey = (key: string) => `idem:payment:${key.replace(/[^A-Za-z0-9._:-]/g, "_")}`;

/**
 * Claims a payment nonce or challenge id before anything is settled. Exactly one caller wins; the rest learn which
 * order it paid for. Keep it at least as long as the credential could be valid (`ttlMs`).
 */
export async function claimReplay(
  store: ClaimStore,
  input: { replay_key: string; order_id: string; now: number; ttlMs?: number },
): Promise<ReplayClaimOutcome> {
  const claim: ReplayClaim = {
    replay_key: input.replay_key,
    order_id: input.order_id,
    claimed_at: input.now,
  };
  const result = await store.create<ReplayClaim>(
    replayKey(input.replay_key),
    claim,
    input.ttlMs === undefined ? {} : { ttlMs: input.ttlMs },
  );
  return result.created ? { kind: "claimed", claim } : { kind: "taken", claim: result.record.value };
}

/** An unpaid draft, found again by its content: same document, same parties, same options. */
export interface DraftClaim {
  draft_key: string;
  order_id: string;
  request_id: string;
  claimed_at: number;
}

export type DraftClaimOutcome =
  | { kind: "claimed"; claim: DraftClaim }
  | { kind: "duplicate"; claim: DraftClaim };

export const draftKeyOf = (key: string) => `idem:draft:${key.replace(/[^A-Za-z0-9._:-]/g, "_")}`;

/**
 * Collapses recent unpaid duplicate drafts: the first request with this content owns it for `ttlMs`; a later request
 * with another request_id and the same content is told the order it duplicates, so it can become an alias.
 */
export async function claimDraft(
  store: ClaimStore,
  input: { draft_key: string; order_id: string; request_id: string; now: number; ttlMs: number },
): Promise<DraftClaimOutcome> {
  const claim: DraftClaim = {
    draft_key: input.draft_key,
    order_id: input.order_id,
    request_id: input.request_id,
    claimed_at: input.now,
  };
  const result = await store.create<DraftClaim>(draftKeyOf(input.draft_key), claim, { ttlMs: input.ttlMs });
  return result.created ? { kind: "claimed", claim } : { kind: "duplicate", claim: result.record.value };
}

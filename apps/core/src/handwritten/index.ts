import type { OrderRecord } from "../order-record.ts";
import type { DraftType } from "../project-drafts/draft-types.ts";
import { type ProjectOrderView, projectOrderView } from "../projects/order-view.ts";
import { loadProjectOrder } from "../projects/orders.ts";
import type { ProjectOrderContext } from "../projects/place-order.ts";
import { preparedSendDraftType } from "../projects/send-draft-type.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { type PreparedHandwrittenSend, prepareHandwrittenSend, sendHandwritten } from "./handwritten-send.ts";

export type { PreparedHandwrittenSend } from "./handwritten-send.ts";

/**
 * The Projects API's handwritten mail (spec 3: /handwritten), in the caller's workspace and mode: an order of
 * another workspace, mode or kind is undefined. Permissions are the surface's to check, as for every Projects API
 * use case.
 */
export interface Handwritten {
  /**
   * One handwritten piece, its price reserved, once per Idempotency-Key. Throws idempotency_key_required,
   * validation_failed, request_id_conflict or insufficient_credits; nothing is reserved when it throws.
   */
  send(principal: Principal, body: unknown, idempotencyKey: string | undefined): Promise<ProjectOrderView>;
  /** The order, as every Projects API order reads (tracking always null). */
  get(principal: Principal, id: string): Promise<ProjectOrderView | undefined>;
  /** The proof PDF the handwriting machine writes from. */
  document(principal: Principal, id: string): Promise<Uint8Array | undefined>;
  /** The send typeset and priced, spending and writing nothing (drafts). Throws as send does. */
  prepareDraft(principal: Principal, body: unknown): Promise<PreparedHandwrittenSend>;
  /** Sends a prepared send once per Idempotency-Key; state_conflict when its price changed since. */
  sendPrepared(
    principal: Principal,
    prepared: Pick<PreparedHandwrittenSend, "body" | "price_cents">,
    idempotencyKey: string | undefined,
  ): Promise<ProjectOrderView>;
  /** Drafts of handwritten sends: the body is a send body. */
  readonly draftType: DraftType;
}

export interface HandwrittenContext extends ProjectOrderContext {
  /**
   * How an order reads, as GET /letters/{id} reads one (the core adds its webhook events and receipt fields);
   * default: projectOrderView.
   */
  readOrder?: (principal: Principal, order: OrderRecord) => Promise<ProjectOrderView>;
}

/** The handwritten mail use cases over the context of Projects API orders. */
export function createHandwritten(ctx: HandwrittenContext): Handwritten {
  const read =
    ctx.readOrder ?? (async (_principal: Principal, order: OrderRecord) => projectOrderView(order, false));
  return {
    send: (principal, body, key) => sendHandwritten(ctx, principal, body, key),
    async get(principal, id) {
      const found = await loadProjectOrder(ctx, principal, "handwritten", id);
      return found ? read(principal, found) : undefined;
    },
    async document(principal, id) {
      const found = await loadProjectOrder(ctx, principal, "handwritten", id);
      return found ? (await ctx.blobs.get(found.document.blob_key))?.bytes : undefined;
    },
    prepareDraft: (_principal, body) => prepareHandwrittenSend(ctx, body),
    sendPrepared: (principal, prepared, key) =>
      sendHandwritten(ctx, principal, prepared.body, key, prepared.price_cents),
    draftType: preparedSendDraftType({
      prepare: (_principal, body) => prepareHandwrittenSend(ctx, body),
      send: (principal, body, key) => sendHandwritten(ctx, principal, body, key),
    }),
  };
}

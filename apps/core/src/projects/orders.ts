import { type ProjectsAddress, parseCreateOrderBody } from "@mailpiece/orders";
import { loadOrder, type OrderRecord, updateOrder } from "../order-record.ts";
import { creditBook } from "../workspaces/credits.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { requestProblems } from "./documents.ts";
import { partyIssues } from "./order-parties.ts";
import { type ProjectMailpieceType, type ProjectOrderView, projectMailpieceType } from "./order-view.ts";
import {
  type OrderPlan,
  type ProjectOrderContext,
  placeProjectOrder,
  requireIdempotencyKey,
} from "./place-order.ts";
import { loadQuote, type ProjectQuoteRecord } from "./quotes.ts";

export {
  LEGACY_ORDER_INTENT_PREFIX,
  liftLegacyOrderIntents,
  noteOrderIntent,
  ORDER_INTENT_GRACE_MS,
  ORDER_INTENTS_QUEUE,
  type OrderIntent,
  orderIntentWork,
} from "./order-intents.ts";
export { type ProjectOrderView, projectOrderView } from "./order-view.ts";
export type { ProjectOrderContext } from "./place-order.ts";

/** Statuses after a print provider accepted the piece: its price is captured. */
const ACCEPTED = new Set(["accepted", "in_transit", "delivered", "returned"]);
/** Statuses that end an order without mailing it: its reservation is released. */
const UNMAILED = new Set(["failed", "canceled"]);

/**
 * Creates a letter or postcard order from a quote (spec 3), at most once per Idempotency-Key: the same key and body
 * answer the original order (idempotent_replay), another body is refused. The checks all come first (the body with
 * its address rules, the quote: unknown, of another kind, expired or used, the countries it was quoted for), so a
 * refused request reserves nothing. Then the price is reserved on the workspace's credits (insufficient_credits
 * when they do not cover it, and nothing is written) and the order goes to the same fulfilment as every order
 * (placeProjectOrder).
 */
export async function createProjectOrder(
  ctx: ProjectOrderContext,
  principal: Principal,
  kind: "letter" | "postcard",
  body: unknown,
  idempotencyKey: string | undefined,
): Promise<ProjectOrderView> {
  requireIdempotencyKey(idempotencyKey);
  const parsed = parseCreateOrderBody(body, {});
  if (!parsed.ok) throw requestProblems(parsed.issues);
  const request = parsed.value;
  return placeProjectOrder(
    ctx,
    principal,
    { idempotencyKey, fingerprint: { kind, body } },
    async (orderId) => {
      const quote = await checkQuote(ctx, principal, kind, request.quote_id, orderId);
      const issues = partyIssues(
        { destination: quote.destination_country_code, origin: quote.origin_country_code },
        request.recipient,
        request.sender,
        "The quote",
      );
      if (issues.length > 0 || !request.sender) throw requestProblems(issues);
      return quotePlan(quote, request.recipient, request.sender, request.metadata);
    },
  );
}

/** A Projects API order of the caller's workspace, mode and kind; undefined for anything else. */
export async function loadProjectOrder(
  ctx: Pick<ProjectOrderContext, "store">,
  principal: Principal,
  kind: ProjectMailpieceType,
  id: string,
): Promise<OrderRecord | undefined> {
  const found = /^[0-9a-f-]{36}$/.test(id) ? (await loadOrder(ctx.store, id))?.value : undefined;
  const project = found?.project;
  return found &&
    project &&
    project.workspace_id === principal.workspace_id &&
    project.mode === principal.mode &&
    projectMailpieceType(found) === kind
    ? found
    : undefined;
}

/**
 * Moves an order's reserved credits with its status: captured once a print provider accepted the piece, released
 * when it failed or was canceled unmailed. Idempotent: the ledger settles a reservation once, by these keys.
 */
export async function settleProjectCredits(
  ctx: ProjectOrderContext,
  order: OrderRecord,
): Promise<OrderRecord> {
  const project = order.project;
  const status = order.lifecycle?.status;
  if (project?.funds_status !== "reserved" || !status) return order;
  const book = creditBook(project.workspace_id, project.mode);
  let funds: "captured" | "released";
  if (ACCEPTED.has(status)) {
    await ctx.credits.ledger.capture(book, {
      reservation_id: project.reservation_id,
      idempotency_key: `capture:${order.id}`,
    });
    funds = "captured";
  } else if (UNMAILED.has(status)) {
    await ctx.credits.ledger.release(book, {
      reservation_id: project.reservation_id,
      idempotency_key: `release:${order.id}`,
    });
    await ctx.creditsChanged?.(project.workspace_id, project.mode);
    funds = "released";
  } else {
    return order;
  }
  return updateOrder(ctx.store, order.id, ctx.clock.now, (o) =>
    o.project && o.project.funds_status === "reserved"
      ? { ...o, project: { ...o.project, funds_status: funds } }
      : undefined,
  );
}

async function checkQuote(
  ctx: ProjectOrderContext,
  principal: Principal,
  kind: "letter" | "postcard",
  quoteId: string,
  orderId: string,
): Promise<ProjectQuoteRecord> {
  const quote = await loadQuote(ctx, principal, quoteId);
  const refuse = (code: string, message: string): never => {
    throw requestProblems([{ path: "quote_id", code, message }]);
  };
  if (!quote) return refuse("quote_not_found", "No quote of this workspace has this id.");
  if (quote.mailpiece_type !== kind) {
    return refuse(
      "quote_kind_mismatch",
      `This is a ${quote.mailpiece_type} quote; send it to /${quote.mailpiece_type}s.`,
    );
  }
  if (quote.used_by !== undefined && quote.used_by !== orderId) {
    return refuse("quote_used", "This quote was used by another order; request a new quote.");
  }
  if (quote.expires_at <= ctx.clock.now())
    return refuse("quote_expired", "This quote has expired; request a new quote.");
  return quote;
}

/** The plan of an order from a quote: its piece, options, document and price, as the quote fixed them. */
function quotePlan(
  quote: ProjectQuoteRecord,
  recipient: ProjectsAddress,
  sender: ProjectsAddress,
  metadata: Record<string, string>,
): OrderPlan {
  return {
    mailpiece_type: quote.mailpiece_type,
    ...(quote.postcard_size ? { postcard_size: quote.postcard_size } : {}),
    options: quote.options,
    price: quote.view,
    document: { sha256: quote.document_sha256, page_count: quote.page_count, source: "pdf", format: null },
    recipient,
    sender,
    metadata,
    quote: { id: quote.id, document_id: quote.document_id },
  };
}

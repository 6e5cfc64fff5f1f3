import type { Issue, NormalizedOrder } from "@mailpiece/orders";
import { isInternationalPiece, validateOrderRequest, withResolvedAddresses } from "@mailpiece/orders";
import type { PreparedCampaign } from "./campaign-orders.ts";
import { prepareCampaign } from "./campaign-orders.ts";
import type { CampaignValidationView } from "./campaigns.ts";
import type { DocumentContext, ResolvedDocument } from "./documents.ts";
import { resolveDocument } from "./documents.ts";
import { lookUpOrderAddresses } from "./order-addresses.ts";
import type { PartyView } from "./party-view.ts";
import { partyView } from "./party-view.ts";
import type { QuoteView } from "./quote-order.ts";
import { quoteOrder } from "./quote-order.ts";

/** The answer to a valid order: what will be mailed, to whom, and for how much. Nothing is stored or charged. */
export interface OrderValidationView {
  object: "order_validation";
  valid: true;
  request_id: string;
  mailpiece_type: NormalizedOrder["mailpiece_type"];
  postcard_size: NormalizedOrder["postcard_size"] | null;
  document: { source: "pdf" | "letter" | "form"; format: string | null; page_count: number };
  sender: PartyView;
  recipient: PartyView;
  options: NormalizedOrder["options"];
  quote: QuoteView;
  warnings: Issue[];
  /** For postcards: which production route carries the card (spec 1: international postcards). */
  postcard_route?: { route: "domestic" | "international_first" | "international_second"; reason: string };
  /** Path and query of a signed, short-lived link to the PDF that would print (the app makes it absolute). */
  preview_path?: string;
}

export type ValidateOrderOutcome =
  | { ok: true; view: OrderValidationView | CampaignValidationView }
  | { ok: false; issues: Issue[] };

/** A valid single order with everything needed to charge and print it. */
export interface PreparedOrder {
  kind: "order";
  order: NormalizedOrder & { recipient: NonNullable<NormalizedOrder["recipient"]> };
  document: ResolvedDocument;
  view: OrderValidationView;
}

/** A valid machine order request: a single order, or a bulk campaign. */
export type PreparedMailing = PreparedOrder | PreparedCampaign;

export type PrepareOrderOutcome = { ok: true; prepared: PreparedMailing } | { ok: false; issues: Issue[] };

/**
 * Validates a machine order request end to end: schema, rules and the address search ids, the document (or the
 * campaign), then the price.
 */
export async function validateOrder(body: unknown, ctx: DocumentContext): Promise<ValidateOrderOutcome> {
  const prepared = await prepareOrder(body, ctx);
  return prepared.ok ? { ok: true, view: prepared.prepared.view } : prepared;
}

/**
 * Like validateOrder, and keeps the normalised order and the print-ready document. A draft (`draft: true`) is an
 * order whose buyer is named at checkout. Every Address-mode party is resolved through the deployment's address
 * provider before anything else reads it: the letter's window lines, the price and the record all come from the
 * structured address its id names. An unknown id is reported with the request's other problems; a provider that
 * cannot answer throws CoreError address_search_unavailable.
 */
export async function prepareOrder(
  body: unknown,
  ctx: DocumentContext,
  options: { draft?: boolean } = {},
): Promise<PrepareOrderOutcome> {
  const { config } = ctx;
  const checked = validateOrderRequest(body, options);
  const lookup = await lookUpOrderAddresses(body, checked.ok ? [] : checked.issues, ctx.addresses);
  if (!checked.ok || !lookup.ok) {
    return {
      ok: false,
      issues: [...(checked.ok ? [] : checked.issues), ...(lookup.ok ? [] : lookup.issues)],
    };
  }
  const order = withResolvedAddresses(checked.order, lookup.addresses);
  if (order.bulk) return prepareCampaign(order, checked.warnings, ctx);
  if (!order.recipient) {
    return {
      ok: false,
      issues: [
        {
          path: "bulk",
          code: "bulk_unavailable",
          message: "Bulk campaigns are not accepted by this deployment; send one order per recipient.",
        },
      ],
    };
  }
  const resolved = await resolveDocument(order, ctx);
  if (!resolved.ok) return resolved;
  const doc = resolved.document;
  const documentPath = order.document?.kind ?? "";
  const priced = quoteOrder(order, order.recipient, doc.page_count, config, documentPath);
  if (!priced.ok) return priced;
  const view: OrderValidationView = {
    object: "order_validation",
    valid: true,
    request_id: order.request_id,
    mailpiece_type: order.mailpiece_type,
    postcard_size: order.postcard_size ?? null,
    document: { source: doc.source, format: doc.format ?? null, page_count: doc.page_count },
    sender: partyView(order.sender, isInternationalPiece(order.sender, order.recipient)),
    recipient: partyView(order.recipient, isInternationalPiece(order.sender, order.recipient)),
    options: order.options,
    quote: priced.quote,
    warnings: [...checked.warnings, ...(doc.warnings ?? [])],
    ...(order.mailpiece_type === "postcard" ? { postcard_route: postcardRoute(order) } : {}),
  };
  return {
    ok: true,
    prepared: { kind: "order", order: { ...order, recipient: order.recipient }, document: doc, view },
  };
}

/**
 * Spec 1: international postcards go to the first provider only at 4x6 with a U.S. return address; larger
 * international postcards, or those with a non-U.S. return address, go to a second provider before submission.
 */
export function postcardRoute(order: NormalizedOrder): NonNullable<OrderValidationView["postcard_route"]> {
  if (order.recipient?.country === "US")
    return { route: "domestic", reason: "Mailed within the United States." };
  if (order.postcard_size === "4x6" && order.sender.country === "US") {
    return {
      route: "international_first",
      reason: "A 4x6 international postcard with a U.S. return address.",
    };
  }
  return {
    route: "international_second",
    reason:
      order.postcard_size === "4x6"
        ? "An international postcard with a return address outside the U.S. goes to the second provider."
        : `A ${order.postcard_size} international postcard goes to the second provider (the first carries 4x6 only).`,
  };
}

import type { CheckoutView } from "@mailpiece/core";
import type { PaymentHandler } from "./business-profile.ts";
import type { CheckoutState, UcpMessage } from "./checkouts.ts";
import type { UcpResponseMeta } from "./platform-profile.ts";
import { joinUrl, MAILPIECE_ITEM_ID, MAILPIECE_MEMBER } from "./protocol.ts";

/** The UCP checkout statuses. */
export type UcpStatus =
  | "incomplete"
  | "requires_escalation"
  | "ready_for_complete"
  | "complete_in_progress"
  | "completed"
  | "canceled";

export interface RenderContext {
  publicUrl: string;
  handlers: PaymentHandler[];
  /** The signed path of a PDF preview, when previews are configured. */
  previewPath(sha256: string): string | undefined;
}

/**
 * The checkout object of UCP 2026-01-11 for one checkout: one line item (the mail order, priced by its quote), the
 * totals with the quote's lines, the status, messages, links, the hosted checkout page as continue_url, the payment
 * handlers and the instrument used (never its token), and the order once paid. The mail order is shown back under
 * its member: what will print, to whom, with which options.
 */
export function checkoutObject(
  ucp: UcpResponseMeta,
  state: CheckoutState,
  ctx: RenderContext,
): Record<string, unknown> {
  const { record, view } = state;
  const { status, messages } = statusOf(state);
  const amount = view.amount_cents;
  const continueUrl = joinUrl(ctx.publicUrl, `/checkout/${view.id}`);
  const preview = ctx.previewPath(view.document_sha256);
  return {
    ucp,
    id: record.id,
    status,
    currency: "USD",
    line_items: [
      {
        id: record.line_item_id,
        item: { id: MAILPIECE_ITEM_ID, title: titleOf(view), price: amount },
        quantity: 1,
        totals: [
          { type: "subtotal", amount },
          { type: "total", amount },
        ],
      },
    ],
    totals: [
      {
        type: "subtotal",
        amount,
        display_text: "Printing and postage",
        lines: view.line_items.map((line) => ({ display_text: line.description, amount: line.amount_cents })),
      },
      { type: "total", amount, display_text: "Total" },
    ],
    ...(record.buyer ? { buyer: record.buyer } : {}),
    payment: {
      handlers: ctx.handlers,
      ...(record.instrument ? { instruments: [record.instrument] } : {}),
    },
    links: preview
      ? [{ type: "preview", url: joinUrl(ctx.publicUrl, preview), title: "The PDF that will print" }]
      : [],
    ...(messages.length > 0 ? { messages } : {}),
    expires_at: view.expires_at,
    continue_url: continueUrl,
    ...(status === "completed" ? { order: { id: view.order_id, permalink_url: continueUrl } } : {}),
    [MAILPIECE_MEMBER]: {
      order_id: view.order_id,
      mailpiece_type: view.mailpiece.mailpiece_type,
      postcard_size: view.mailpiece.postcard_size,
      page_count: view.mailpiece.page_count,
      sender: view.sender,
      recipient: view.recipient,
      options: view.mailpiece.options,
    },
  };
}

/** The UCP status of a checkout and the messages that explain it. */
function statusOf(state: CheckoutState): { status: UcpStatus; messages: UcpMessage[] } {
  const { view, record } = state;
  const messages = [...state.messages];
  switch (view.status) {
    case "completed":
    case "complete_in_progress":
      return { status: view.status, messages };
    case "canceled":
      return { status: "canceled", messages };
    case "expired":
      messages.push({
        type: "error",
        code: "checkout_expired",
        content: "This checkout has expired. Create a new checkout.",
        severity: "unrecoverable",
      });
      return { status: "canceled", messages };
    default:
      break;
  }
  // An open session: a refused payment stays on it until a payment succeeds.
  for (const message of view.messages) {
    if (message.type !== "error" || messages.some((m) => m.code === message.code)) continue;
    messages.push({
      type: "error",
      code: message.code,
      content: message.content,
      severity: message.code === "requires_3ds" ? "requires_buyer_input" : "recoverable",
    });
  }
  if (messages.some((m) => m.severity === "requires_buyer_input" || m.severity === "requires_buyer_review")) {
    return { status: "requires_escalation", messages };
  }
  const missing = (["first_name", "email"] as const).filter((field) => !record.buyer?.[field]);
  if (missing.length > 0) {
    for (const field of missing) {
      messages.push({
        type: "error",
        code: "missing",
        content: `buyer.${field} is needed to complete (the receipt goes to the buyer's email).`,
        severity: "recoverable",
        path: `$.buyer.${field}`,
      });
    }
    return { status: "incomplete", messages };
  }
  return { status: "ready_for_complete", messages };
}

function titleOf(view: CheckoutView): string {
  const { mailpiece_type, page_count, postcard_size } = view.mailpiece;
  const piece =
    mailpiece_type === "postcard"
      ? `Postcard${postcard_size ? ` ${postcard_size}` : ""}`
      : `Letter, ${page_count} page${page_count === 1 ? "" : "s"}`;
  return `${piece}, to ${view.recipient.name}`;
}

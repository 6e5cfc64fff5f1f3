import type { Lifecycle } from "@mailpiece/lifecycle";
import { isTerminal, machineSteps } from "@mailpiece/lifecycle";
import type { PaymentProtocol } from "@mailpiece/ports";
import type { MailingStatus, OrderRecord, StatusStep } from "./order-record.ts";
import type { PayableRecord } from "./payments/payment-record.ts";
import { publicPaymentStatus } from "./payments/payment-record.ts";
import type { QuoteView } from "./quote-order.ts";

/** What a buyer or agent sees when polling an order. */
/** One event of an order's timeline as every surface shows it (spec 3's timeline event). */
export interface TimelineEventView {
  id: string;
  event_type: string;
  status_before: string | null;
  status_after: string;
  source: string;
  created_at: string;
}

/** An order's timeline as shown: its lifecycle's events without their internal reasons. */
export function timelineView(lifecycle: Lifecycle | undefined): TimelineEventView[] {
  return lifecycle ? lifecycle.timeline.map(({ reason: _r, ...event }) => event) : [];
}

export interface OrderStatusView {
  object: "order_status";
  order_id: string;
  /** The request_id this view was asked with (by create or status); empty when asked by order_id. */
  request_ids: string[];
  /** awaiting_payment, then the order statuses of spec 3 (queued ... delivered). */
  status: string;
  payment_status: "unpaid" | "settled_pending_webhook" | "paid";
  is_paid: boolean;
  terminal: boolean;
  current_step: StatusStep | null;
  steps: { step: StatusStep; at: string }[];
  mailpiece_type: "letter" | "postcard";
  page_count: number;
  quote: { price_cents: number; price_usd: string; currency: "usd"; pricing_version: string };
  payment: {
    protocol: PaymentProtocol;
    reference: string | null;
    payer: string | null;
    amount_cents: number;
    settled_at: string | null;
  } | null;
  tracking: {
    number: string | null;
    url: string | null;
    events: { status: string; at: string; description: string }[];
  } | null;
  timeline: TimelineEventView[];
  /** For a bulk order: how many pieces the campaign mails (its page is at campaign_url). */
  campaign?: { pieces: number; by_status?: Record<string, number> };
  created_at: string;
  updated_at: string;
}

const TERMINAL: ReadonlySet<MailingStatus> = new Set(["canceled", "abandoned"]);

/** What a status view is made of: the fields an order's record and a campaign's record share. */
export interface StatusSource extends PayableRecord {
  request_ids: string[];
  status: MailingStatus;
  lifecycle?: Lifecycle;
  fulfilment?: OrderRecord["fulfilment"];
  quote: QuoteView;
  steps: OrderRecord["steps"];
  created_at: number;
}

export function orderStatusView(order: OrderRecord): OrderStatusView {
  return statusView(order, {
    mailpiece_type: order.order.mailpiece_type,
    page_count: order.document.page_count,
  });
}

/** The status view of an order or a campaign; `about` adds what only the record's own kind knows. */
export function statusView(
  order: StatusSource,
  about: Pick<OrderStatusView, "mailpiece_type" | "page_count" | "campaign">,
): OrderStatusView {
  const payment_status = publicPaymentStatus(order.payment_status);
  const lifecycle = order.lifecycle;
  // The receipt's email is no lifecycle event: it is a step of its own, noted when the mail server took it.
  const emailSentAt = order.steps.find((s) => s.step === "email_sent")?.at;
  const stepList: { step: StatusStep; at: string }[] = lifecycle
    ? machineSteps(lifecycle.timeline, {
        ...(order.payment?.settled_at === undefined ? {} : { payment_received_at: order.payment.settled_at }),
        ...(emailSentAt === undefined ? {} : { email_sent_at: emailSentAt }),
      })
    : order.steps.map((s) => ({ step: s.step, at: new Date(s.at).toISOString() }));
  const last = stepList.at(-1);
  const payment = order.payment && order.payment.status !== "failed" ? order.payment : undefined;
  return {
    object: "order_status",
    order_id: order.id,
    request_ids: order.request_ids,
    status: lifecycle?.status ?? order.status,
    payment_status,
    is_paid: payment_status === "paid",
    terminal: lifecycle ? isTerminal(lifecycle.status) : TERMINAL.has(order.status),
    current_step: last?.step ?? null,
    steps: stepList,
    mailpiece_type: about.mailpiece_type,
    page_count: about.page_count,
    quote: {
      price_cents: order.quote.price_cents,
      price_usd: order.quote.price_usd,
      currency: order.quote.currency,
      pricing_version: order.quote.pricing_version,
    },
    payment: payment
      ? {
          protocol: payment.protocol,
          reference: payment.reference ?? null,
          payer: payment.payer ?? null,
          amount_cents: payment.amount_cents,
          settled_at: payment.settled_at === undefined ? null : new Date(payment.settled_at).toISOString(),
        }
      : null,
    tracking: order.fulfilment
      ? {
          number: order.fulfilment.tracking_number ?? null,
          url: order.fulfilment.tracking_url ?? null,
          events: (order.fulfilment.tracking_events ?? []).map((e) => ({
            status: e.status,
            at: e.at,
            description: e.description,
          })),
        }
      : null,
    timeline: timelineView(lifecycle),
    ...(about.campaign ? { campaign: about.campaign } : {}),
    created_at: new Date(order.created_at).toISOString(),
    updated_at: new Date(order.updated_at).toISOString(),
  };
}

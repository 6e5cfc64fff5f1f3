import { isHandwrittenOrder } from "../handwritten/handwritten-piece.ts";
import type { OrderRecord, ProjectOrderInfo } from "../order-record.ts";
import { type TimelineEventView, timelineView } from "../order-status.ts";

/** The kinds of Projects API orders: letters (also those sent from templates), postcards and handwritten pieces. */
export type ProjectMailpieceType = "letter" | "postcard" | "handwritten";

/**
 * What a Projects API order records besides ProjectOrderInfo when it was sent from a template: the template and the
 * version merged. An order sent without a quote or an uploaded document (a template or handwritten send) records an
 * empty quote_id and document_id.
 */
export interface ProjectSendInfo extends ProjectOrderInfo {
  template_id?: string;
  template_version?: number;
}

/** The order response of spec 3. */
export interface ProjectOrderView {
  id: string;
  object: ProjectMailpieceType;
  mailpiece_type: ProjectMailpieceType;
  postcard_size: "4x6" | "6x9" | "11x6" | null;
  status: string;
  mode: "test" | "live";
  price_cents: number;
  currency: "usd";
  funds_status: "reserved" | "captured" | "released";
  billing_rail: "mock_test_credits" | "prepaid_credits";
  /** The quote it was ordered from; null for template and handwritten sends, which are priced when sent. */
  quote_id: string | null;
  /** The uploaded document it prints; null for template and handwritten sends, typeset when sent. */
  document_id: string | null;
  /** For a letter sent from a template: the template and the version merged; null otherwise. */
  template_id: string | null;
  template_version: number | null;
  page_count: number;
  /** Always null for handwritten pieces: they are posted stamped, without carrier tracking. */
  tracking_number: string | null;
  tracking_url: string | null;
  tracking_status: string | null;
  return_receipt_format: "electronic" | "physical";
  restricted_delivery: boolean;
  err_delivery: "manual" | "email";
  err_email: string | null;
  err_status: "manual" | "pending" | "sent" | "failed" | "expired";
  err_delivered_at: string | null;
  err_retention_until: string | null;
  return_receipt_available: boolean;
  return_receipt_url: string | null;
  metadata: Record<string, string>;
  timeline: TimelineEventView[];
  webhook_events: unknown[];
  created_at: string;
  updated_at: string;
  idempotent_replay: boolean;
}

/** The kind of a Projects API order as the API names it: a handwritten piece is stored as a letter sheet. */
export function projectMailpieceType(record: OrderRecord): ProjectMailpieceType {
  return isHandwrittenOrder(record) ? "handwritten" : record.order.mailpiece_type;
}

export function projectOrderView(record: OrderRecord, replay: boolean): ProjectOrderView {
  const project: ProjectSendInfo = record.project!;
  const o = record.order.options;
  const kind = projectMailpieceType(record);
  // Handwritten pieces have no carrier tracking: the provider's production events are not tracking.
  const fulfilment = kind === "handwritten" ? undefined : record.fulfilment;
  const events = fulfilment?.tracking_events ?? [];
  return {
    id: record.id,
    object: kind,
    mailpiece_type: kind,
    postcard_size: record.order.postcard_size ?? null,
    status: record.lifecycle?.status ?? record.status,
    mode: project.mode,
    price_cents: record.quote.price_cents,
    currency: "usd",
    funds_status: project.funds_status,
    billing_rail: project.billing_rail,
    quote_id: project.quote_id || null,
    document_id: project.document_id || null,
    template_id: project.template_id ?? null,
    template_version: project.template_version ?? null,
    page_count: record.document.page_count,
    tracking_number: fulfilment?.tracking_number ?? null,
    tracking_url: fulfilment?.tracking_url ?? null,
    tracking_status: events.at(-1)?.status ?? null,
    return_receipt_format: o.return_receipt_format,
    restricted_delivery: o.restricted_delivery,
    err_delivery: o.err_delivery,
    err_email: o.err_email ?? null,
    err_status: o.certified_return_receipt && o.err_delivery === "email" ? "pending" : "manual",
    err_delivered_at: null,
    err_retention_until: null,
    return_receipt_available: false,
    return_receipt_url: null,
    metadata: { ...project.metadata },
    timeline: timelineView(record.lifecycle),
    webhook_events: [],
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
    idempotent_replay: replay,
  };
}

import { createHash } from "node:crypto";
import type { FloristEvent, FloristOrder, FloristOrderStatus, FloristOrderView } from "@mailpiece/ports";
import { instantOf } from "./calendar.ts";
import type { FloristPace } from "./pace.ts";
import { FLORIST_TEST_PHRASES, type FloristOutcome } from "./test-phrases.ts";

/** A simulated order as kept in the Store. Where it is now is computed from these and the clock, never stored. */
export interface SimulatedFloristRecord {
  reference: string;
  idempotency_key: string;
  fingerprint: string;
  /** Milliseconds since the epoch. */
  submitted_at: number;
  /** The pace and time zone when it was submitted, so every process tells the same story. */
  pace: FloristPace;
  time_zone: string;
  outcome: FloristOutcome;
  order: FloristOrder;
}

const SHOP = "Mailpiece simulated florist";

/** The order as it stands at `now`: status and every event that has happened by then. */
export function viewAt(record: SimulatedFloristRecord, now: number): FloristOrderView {
  const events = story(record).filter((event, index) => index === 0 || Date.parse(event.at) <= now);
  return {
    reference: record.reference,
    status: (events[events.length - 1] as FloristEvent).status,
    product_code: record.order.product_code,
    delivery_date: record.order.delivery_date,
    submitted_at: iso(record.submitted_at),
    events,
  };
}

/** When the order leaves the shop and when it reaches the door. */
export function milestones(record: SimulatedFloristRecord): { outAt: number; doorAt: number } {
  const { pace, submitted_at: t0 } = record;
  if (pace.outForDeliveryAfterMs !== null && pace.deliverAfterMs !== null) {
    return { outAt: t0 + pace.outForDeliveryAfterMs, doorAt: t0 + pace.deliverAfterMs };
  }
  const date = record.order.delivery_date;
  const outAt = Math.max(instantOf(date, pace.outForDeliveryHour, record.time_zone), t0 + pace.minStepMs);
  const doorAt = Math.max(instantOf(date, pace.deliveredHour, record.time_zone), outAt + pace.minStepMs);
  return { outAt, doorAt };
}

/** Every event the order will ever have, oldest first. */
function story(record: SimulatedFloristRecord): FloristEvent[] {
  const { outAt, doorAt } = milestones(record);
  const r = record.order.recipient;
  const place = `${r.city}, ${r.state} ${r.zipcode}`;
  const step = (status: FloristOrderStatus, at: number, description: string, location: string) => ({
    status,
    at: iso(at),
    description,
    location,
  });
  return [
    step(
      "accepted",
      record.submitted_at,
      `Order received for delivery on ${record.order.delivery_date}`,
      SHOP,
    ),
    step("out_for_delivery", outAt, "Arranged and out for delivery with the florist's driver", place),
    record.outcome === "failed"
      ? step(
          "failed",
          doorAt,
          `Delivery attempted; nobody could receive it (scripted test address ${FLORIST_TEST_PHRASES.deliveryFails})`,
          place,
        )
      : step("delivered", doorAt, "Delivered to the recipient", place),
  ];
}

/** Lowercase hex SHA-256 of the order in canonical JSON (keys sorted, absent optional fields left out). */
export function orderFingerprint(order: FloristOrder): string {
  return createHash("sha256").update(canonicalJson(order)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The order as kept: only the fields of the port, so extra properties never change the fingerprint. */
export function keptOrder(order: FloristOrder): FloristOrder {
  const r = order.recipient;
  const c = order.customer;
  return {
    product_code: order.product_code,
    delivery_date: order.delivery_date,
    card_note: order.card_note,
    allow_substitutions: order.allow_substitutions,
    recipient: {
      name: r.name,
      phone: r.phone,
      address1: r.address1,
      city: r.city,
      state: r.state,
      zipcode: r.zipcode,
      country: r.country,
    },
    customer: {
      name: c.name,
      email: c.email,
      country: c.country,
      ...(c.phone === undefined ? {} : { phone: c.phone }),
      ...(c.address1 === undefined ? {} : { address1: c.address1 }),
      ...(c.city === undefined ? {} : { city: c.city }),
      ...(c.state === undefined ? {} : { state: c.state }),
      ...(c.zipcode === undefined ? {} : { zipcode: c.zipcode }),
    },
    total_cents: order.total_cents,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

import type { PrintAddress, PrintJobStatus, PrintJobView, TrackingEvent } from "@mailpiece/ports";
import type { StoredJob } from "./job-fingerprint.ts";
import type { Pace } from "./pace.ts";
import { type SimulatedOutcome, TEST_ADDRESS_PHRASES } from "./test-addresses.ts";
import { trackingNumberFor, trackingUrlFor } from "./tracking-number.ts";

/** A simulated job as kept in the Store. Where it is now is computed from these and the clock, never stored. */
export interface SimulatedJobRecord {
  reference: string;
  idempotency_key: string;
  fingerprint: string;
  /** Milliseconds since the epoch. */
  submitted_at: number;
  /** The pace when it was submitted, so every process tells the same story whatever its own settings. */
  pace: Pace;
  outcome: SimulatedOutcome;
  job: StoredJob;
  /** Set when the job was canceled before production. */
  canceled_at?: number;
}

const PRINT_CENTRE = "Mailpiece simulated print centre";

const PRODUCED: Record<StoredJob["mailpiece_type"], string> = {
  letter: "Printed, folded and enveloped",
  postcard: "Printed and trimmed",
  handwritten: "Written by the handwriting machine, enveloped and stamped",
};

/** The job as it stands at `now`: status, tracking and every event that has happened by then. */
export function viewAt(record: SimulatedJobRecord, now: number, trackingBase: string): PrintJobView {
  const events = eventsAt(record, now);
  const status = (events[events.length - 1] as TrackingEvent).status;
  const inProduction =
    record.canceled_at === undefined && now >= record.submitted_at + record.pace.acceptAfterMs;
  const tracked = inProduction && record.job.mailpiece_type !== "handwritten";
  const trackingNumber = tracked ? trackingNumberFor(record.reference) : null;
  return {
    reference: record.reference,
    status,
    submitted_at: iso(record.submitted_at),
    tracking_number: trackingNumber,
    tracking_url: trackingNumber === null ? null : trackingUrlFor(trackingBase, trackingNumber),
    events,
  };
}

/** The status at `now`, without building the view. */
export function statusAt(record: SimulatedJobRecord, now: number): PrintJobStatus {
  const events = eventsAt(record, now);
  return (events[events.length - 1] as TrackingEvent).status;
}

/**
 * When the job is delivered (milliseconds since the epoch) and where, or undefined when it never will be: canceled,
 * scripted to fail or return, or handwritten (whose story ends in transit).
 */
export function deliveryOf(record: SimulatedJobRecord): { at: number; location: string } | undefined {
  const last = story(record).at(-1) as TrackingEvent;
  if (last.status !== "delivered") return undefined;
  return { at: Date.parse(last.at), location: last.location ?? place(record.job.recipient) };
}

function eventsAt(record: SimulatedJobRecord, now: number): TrackingEvent[] {
  return story(record).filter((event, index) => index === 0 || Date.parse(event.at) <= now);
}

/** Every event the job will ever have, oldest first. */
function story(record: SimulatedJobRecord): TrackingEvent[] {
  const t0 = record.submitted_at;
  const { acceptAfterMs, inTransitAfterMs, deliverAfterMs } = record.pace;
  const type = record.job.mailpiece_type;
  const submitted: TrackingEvent = {
    status: "submitted",
    at: iso(t0),
    description: `Received by the simulated printer (${record.job.document.page_count} page${record.job.document.page_count === 1 ? "" : "s"})`,
    location: PRINT_CENTRE,
  };
  if (record.canceled_at !== undefined) {
    return [
      submitted,
      {
        status: "canceled",
        at: iso(record.canceled_at),
        description: "Canceled before production",
        location: PRINT_CENTRE,
      },
    ];
  }
  const events: TrackingEvent[] = [
    submitted,
    {
      status: "accepted",
      at: iso(t0 + acceptAfterMs),
      description: PRODUCED[type],
      location: PRINT_CENTRE,
    },
  ];
  if (record.outcome === "failed") {
    events.push({
      status: "failed",
      at: iso(t0 + inTransitAfterMs),
      description: `Production failed: scripted test address (${TEST_ADDRESS_PHRASES.failPrint})`,
      location: PRINT_CENTRE,
    });
    return events;
  }
  if (type === "handwritten") {
    // Handwritten mail goes out stamped, without carrier tracking: its story ends when it is posted.
    events.push({
      status: "in_transit",
      at: iso(t0 + inTransitAfterMs),
      description: "Posted as stamped mail; handwritten mail has no carrier tracking",
      location: PRINT_CENTRE,
    });
    return events;
  }
  events.push(
    {
      status: "in_transit",
      at: iso(t0 + inTransitAfterMs),
      description: "Handed to the carrier",
      location: PRINT_CENTRE,
    },
    {
      status: "in_transit",
      at: iso(t0 + Math.floor((inTransitAfterMs + deliverAfterMs) / 2)),
      description: "Arrived at the destination sorting facility",
      location: place(record.job.recipient),
    },
  );
  if (record.outcome === "returned") {
    events.push({
      status: "returned",
      at: iso(t0 + deliverAfterMs),
      description: `Returned to sender: scripted test address (${TEST_ADDRESS_PHRASES.returnToSender})`,
      location: record.job.sender === null ? PRINT_CENTRE : place(record.job.sender),
    });
  } else {
    events.push({
      status: "delivered",
      at: iso(t0 + deliverAfterMs),
      description: "Delivered to the recipient's mailbox",
      location: place(record.job.recipient),
    });
  }
  return events;
}

/** A short place name of an address: `City, ST 12345, US`. */
export function place(address: PrintAddress): string {
  const region = address.state ? `${address.city}, ${address.state}` : address.city;
  return `${region} ${address.postal_code}, ${address.country}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

import { WebhookError } from "./errors.ts";
import { type EventStatus, type EventType, parseEventType } from "./event-types.ts";

/** What a receiver reads of the mailpiece itself. */
export interface MailpieceState {
  status: EventStatus;
  tracking_number: string | null;
  tracking_status: string | null;
}

/** The JSON body of one event (spec 3: id, type, data.object and mailpiece; created and mode besides). */
export interface EventBody<O = unknown> {
  id: string;
  type: EventType;
  /** When the change happened, whole seconds since the epoch. */
  created: number;
  mode: "test" | "live";
  data: { object: O };
  mailpiece: MailpieceState;
}

/** An event id: `evt_` and 1 to 120 letters, digits, `_` or `-`. */
export const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,120}$/;

/**
 * The body of an event, checked: an `evt_` id, a known type, the mode, a whole non-negative `created` (seconds), and
 * a mailpiece whose status is the type's. Throws `invalid_event`.
 */
export function eventBody<O>(input: {
  id: string;
  type: string;
  created: number;
  mode: "test" | "live";
  object: O;
  tracking_number?: string | null;
  tracking_status?: string | null;
}): EventBody<O> {
  const invalid = (message: string) => new WebhookError("invalid_event", message);
  if (typeof input.id !== "string" || !EVENT_ID.test(input.id)) {
    throw invalid("an event id is evt_ followed by 1 to 120 letters, digits, _ or -");
  }
  const parsed = parseEventType(input.type);
  if (!parsed) throw invalid(`${JSON.stringify(input.type)} is not an event type`);
  if (input.mode !== "test" && input.mode !== "live") throw invalid("mode must be test or live");
  if (!Number.isSafeInteger(input.created) || input.created < 0) {
    throw invalid("created must be whole seconds since the epoch");
  }
  const text = (value: string | null | undefined) => (typeof value === "string" ? value : null);
  return {
    id: input.id,
    type: input.type as EventType,
    created: input.created,
    mode: input.mode,
    data: { object: input.object },
    mailpiece: {
      status: parsed.status,
      tracking_number: text(input.tracking_number),
      tracking_status: text(input.tracking_status),
    },
  };
}

/**
 * The bytes sent: the body as compact JSON. Serialised once when the event is made and kept, so that every retry
 * and replay sends, and signs, exactly the same text.
 */
export function serialiseEvent(body: EventBody): string {
  return JSON.stringify(body);
}

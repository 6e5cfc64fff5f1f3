/** The kinds of mailpiece whose status changes are announced. */
export const MAILPIECE_KINDS = ["letter", "postcard", "handwritten"] as const;
export type MailpieceKind = (typeof MAILPIECE_KINDS)[number];

/** The order statuses that are announced (spec 3); every other status (queued, submitted...) is not. */
export const EVENT_STATUSES = [
  "accepted",
  "in_transit",
  "delivered",
  "returned",
  "failed",
  "canceled",
] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

/** The first segment of every event type. */
export const EVENT_TYPE_PREFIX = "service";

/** An event type: `service.<kind>.<status>`. */
export type EventType = `${typeof EVENT_TYPE_PREFIX}.${MailpieceKind}.${EventStatus}`;

/** Statuses a kind never reaches: handwritten mail has no carrier tracking, so it is never returned. */
const NOT_ANNOUNCED: Readonly<Record<MailpieceKind, readonly EventStatus[]>> = {
  letter: [],
  postcard: [],
  handwritten: ["returned"],
};

/**
 * The event type for a kind reaching a status, or undefined when that change is not announced (an unknown kind, a
 * status outside EVENT_STATUSES, or a returned handwritten piece).
 */
export function eventType(kind: string, status: string): EventType | undefined {
  if (!(MAILPIECE_KINDS as readonly string[]).includes(kind)) return undefined;
  if (!(EVENT_STATUSES as readonly string[]).includes(status)) return undefined;
  if (NOT_ANNOUNCED[kind as MailpieceKind].includes(status as EventStatus)) return undefined;
  return `${EVENT_TYPE_PREFIX}.${kind}.${status}` as EventType;
}

/** Every event type there is, kind by kind. */
export const EVENT_TYPES: readonly EventType[] = Object.freeze(
  MAILPIECE_KINDS.flatMap((kind) => EVENT_STATUSES.flatMap((status) => eventType(kind, status) ?? [])),
);

/** The kind and status of an event type; undefined for a text that is not one. */
export function parseEventType(type: unknown): { kind: MailpieceKind; status: EventStatus } | undefined {
  if (typeof type !== "string" || !(EVENT_TYPES as readonly string[]).includes(type)) return undefined;
  const [, kind, status] = type.split(".");
  return { kind: kind as MailpieceKind, status: status as EventStatus };
}

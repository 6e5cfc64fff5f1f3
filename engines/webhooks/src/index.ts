export type { DeliveryAnswer, DeliveryDecision } from "./delivery-decision.ts";
export { decideDelivery, isDelivered } from "./delivery-decision.ts";
export type { WebhookErrorCode } from "./errors.ts";
export { WebhookError } from "./errors.ts";
export type { EventBody, MailpieceState } from "./event-body.ts";
export { EVENT_ID, eventBody, serialiseEvent } from "./event-body.ts";
export type { EventStatus, EventType, MailpieceKind } from "./event-types.ts";
export {
  EVENT_STATUSES,
  EVENT_TYPE_PREFIX,
  EVENT_TYPES,
  eventType,
  MAILPIECE_KINDS,
  parseEventType,
} from "./event-types.ts";
export type { WebhookBody } from "./message.ts";
export { DEFAULT_TOLERANCE_SECONDS } from "./message.ts";
export type { RandomBytes } from "./random.ts";
export { systemRandom } from "./random.ts";
export { checkRetrySchedule, DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from "./retry-schedule.ts";
export type { SigningKeyPair } from "./secrets.ts";
export {
  generateSigningKeyPair,
  generateSigningSecret,
  isSigningSecret,
  MAX_SECRET_BYTES,
  MIN_SECRET_BYTES,
  PUBLIC_KEY_PREFIX,
  publicKeyOf,
  SECRET_BYTES,
  SECRET_PREFIX,
  SIGNING_KEY_PREFIX,
  signingSecretKey,
} from "./secrets.ts";
export {
  parseServiceSignature,
  SERVICE_SIGNATURE_HEADER,
  signServiceSignature,
  verifyServiceSignature,
} from "./service-signature.ts";
export type { StandardWebhookHeaders } from "./standard-signature.ts";
export { standardWebhookHeaders, verifyStandardWebhook } from "./standard-signature.ts";

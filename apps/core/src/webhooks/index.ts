export type { WebhookPrincipal, WebhookRequest, WebhookSender } from "./context.ts";
export { WEBHOOK_QUEUE } from "./context.ts";
export type { WebhookEndpointView, WebhookEndpointWithSecret } from "./endpoints.ts";
export type {
  DeliveryJob,
  OrderStatusChange,
  WebhookAttemptView,
  WebhookDeliveryView,
  WebhookEventPage,
  WebhookEventView,
} from "./events.ts";
export { orderStatusChanges, recordOrderEvents } from "./order-events.ts";
export type { WebhookOptions, Webhooks, WebhooksDeps } from "./webhooks.ts";
export { createWebhooks } from "./webhooks.ts";

export type { EmailOutbox, EmailOutboxOptions, OutboxEntry, OutboxPage } from "./email-outbox.ts";
export { createEmailOutbox } from "./email-outbox.ts";

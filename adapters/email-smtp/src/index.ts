export type { ComposeOptions } from "./compose-email.ts";
export { addressDomain, composeEmail, messageIdFor } from "./compose-email.ts";
export { keyLanes } from "./key-lanes.ts";
export type { SmtpEmailSenderOptions, SmtpTimeouts } from "./smtp-email-sender.ts";
export { createSmtpEmailSender } from "./smtp-email-sender.ts";
export type { SmtpEndpoint } from "./smtp-url.ts";
export { parseSmtpUrl } from "./smtp-url.ts";

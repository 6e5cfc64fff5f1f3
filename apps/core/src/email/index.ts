export type { EmailJob, MailedStatus } from "./email-jobs.ts";
export { EMAIL_QUEUE, emailKey, STATUS_MAILS } from "./email-jobs.ts";
export type { EmailDeps, EmailLinks, Emails } from "./emails.ts";
export { createEmails } from "./emails.ts";

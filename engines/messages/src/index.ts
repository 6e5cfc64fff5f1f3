export { type Brand, DEFAULT_BRAND } from "./brand.ts";
export { type CampaignReceiptInput, campaignReceipt } from "./campaign-receipt.ts";
export type { LineItem } from "./charges.ts";
export {
  MESSAGE_ISSUE_CODES,
  type MessageIssue,
  type MessageIssueCode,
  MessagesError,
  type MessagesErrorCode,
} from "./errors.ts";
export { formatUsd } from "./format-usd.ts";
export { MESSAGE_LIMITS } from "./limits.ts";
export { MAILED_KINDS, type MailedItem, type MailedKind } from "./mailed-item.ts";
export type { MessageInput, OrderMessageInput } from "./message-input.ts";
export { PAYMENT_RAILS, type PaymentDetails, type PaymentRail, RAIL_LABELS } from "./payment.ts";
export { type PaymentReceiptInput, paymentReceipt } from "./payment-receipt.ts";
export { toSubject } from "./plain-text.ts";
export type { RenderedMessage } from "./rendered-message.ts";
export { type ReturnReceiptMailInput, returnReceiptMail } from "./return-receipt-mail.ts";
export { MAIL_STATUSES, type MailStatus, type StatusMailInput, statusMail } from "./status-mail.ts";

import type { Requirement } from "../kit.ts";

/** Values of spec 3 the suite checks answers against, and the bodies it sends. */

export const SPEC_3 = "spec 3 (Projects API)";

/** A requirement of spec 3: its section and the sentence a test checks. */
export function spec3(section: string, sentence: string): Requirement {
  return { spec: SPEC_3, section, sentence };
}

/** Order status values (spec 3, States and transitions). */
export const ORDER_STATUSES: readonly string[] = [
  "queued",
  "document_preparing",
  "document_prepared",
  "submitted",
  "accepted",
  "in_transit",
  "delivered",
  "returned",
  "submission_pending",
  "failed",
  "canceled",
];

/** Receipt states (err_status). */
export const RECEIPT_STATES: readonly string[] = ["manual", "pending", "sent", "failed", "expired"];

/** The billing rails a credit balance names. */
export const BILLING_RAILS: readonly string[] = [
  "mock_test_credits",
  "prepaid_credits",
  "future_projects_spt",
  "future_metronome_streaming",
  "future_mpp_tempo",
  "manual_invoice",
];

/** Webhook event types: `<service>.{letter|postcard|handwritten}.{status}`; handwritten mail is never returned. */
export const WEBHOOK_EVENT_TYPE =
  /^[a-z][a-z0-9_-]*\.(?:(?:letter|postcard)\.(?:accepted|in_transit|delivered|returned|failed|canceled)|handwritten\.(?:accepted|in_transit|delivered|failed|canceled))$/;

/** The lifecycle events of the test-mode draft flow. */
export const TEST_MODE_EVENTS: readonly string[] = [
  "mail.order.created",
  "mail.order.paid",
  "mail.order.submitted",
  "mail.order.provider_accepted",
  "mail.order.provider_rejected",
  "mail.order.mailed",
  "mail.order.tracking_updated",
  "mail.order.delivery_attempted",
  "mail.order.delivered",
  "mail.order.failed",
  "mail.order.refunded",
];

/** Published letter prices (Pricing constants), in cents. */
export const LETTER_PRICES = {
  base: 180,
  bwPage: 20,
  colorPage: 40,
  usCertified: 800,
  caRegistered: 3200,
  electronicReturnReceipt: 300,
} as const;

/** A U.S. address object of spec 3 under its canonical field names. */
export function usAddress(name: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    line1: "1600 Pennsylvania Ave NW",
    city: "Washington",
    state: "DC",
    postal_code: "20500",
    countryCode: "US",
    ...overrides,
  };
}

/** The sender of the suite's mail. */
export function senderAddress(): Record<string, unknown> {
  return usAddress("Conformance Sender", {
    line1: "350 Fifth Avenue",
    city: "New York",
    state: "NY",
    postal_code: "10118",
  });
}

/** A short random tag that makes a request's values recognisable in answers. */
export function tag(): string {
  return crypto.randomUUID().replaceAll("-", "").slice(0, 12);
}

/** A body of the test-mode mail drafts: a plain-text letter between two named people. */
export function testMailDraft(): Record<string, unknown> {
  return {
    letter_text: "Dear Grace,\n\nThis letter only tries the test-mode flow.\n\nAda",
    sender: { name: "Ada Sender" },
    recipient: { name: "Grace Recipient" },
  };
}

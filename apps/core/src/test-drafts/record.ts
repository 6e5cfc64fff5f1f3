import type { Issue } from "@mailpiece/orders";
import type { Simulation } from "./lifecycle.ts";
import type { TestMailService } from "./quote.ts";

/** How the piece's document was given. */
export type TestDraftSource = "letter_text" | "pdf_url" | "form";

/**
 * A test draft as stored, under `test-drafts:draft:<hex>` for as long as test drafts are kept. Its order is the
 * same record: the draft is `tdr_<hex>`, its order `tord_<hex>`. Nothing of it changes after it is written; its
 * lifecycle is computed from `created_at` whenever it is read.
 */
export interface TestDraftRecord {
  /** 32 lowercase hex digits (an id generator's UUID without its hyphens). */
  hex: string;
  object: "test_mail_draft" | "test_form_draft";
  source: TestDraftSource;
  workflow_slug?: string;
  /** The names the piece was given, or a form's own sender and recipient names. */
  sender_name?: string;
  recipient_name?: string;
  /** The mail class as asked (standard, usps_priority, certified, ...), or the workflow's envelope class. */
  mail_class: string;
  service: TestMailService;
  simulate: Simulation;
  page_count: number;
  /** Lowercase hex SHA-256 of the watermarked PDF, kept with the documents. */
  sha256: string;
  warnings: Issue[];
  created_at: number;
}

export const draftId = (hex: string) => `tdr_${hex}`;
export const orderId = (hex: string) => `tord_${hex}`;
export const draftKey = (hex: string) => `test-drafts:draft:${hex}`;

/** The hex of a draft or order id (`tdr_...`, `tord_...`); undefined for anything else. */
export function hexOfId(id: string): string | undefined {
  return /^(?:tdr|tord)_([0-9a-f]{32})$/.exec(id)?.[1];
}

/** A new record's hex from an id generator's UUID. */
export function hexOfUuid(uuid: string): string {
  const hex = uuid.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error("The id generator did not answer a UUID.");
  return hex;
}

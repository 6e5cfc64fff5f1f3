import type { Party } from "@mailpiece/orders";
import { DEFAULT_PRICE_BOOK, type PriceBook } from "@mailpiece/pricing";
import type { PageCounter } from "./pages.ts";
import type { CampaignOrderInput, CampaignPlan } from "./types.ts";

export const HEADER = "recipient_name,line1,city,state,zip,country,venue";
export const US = (name: string, venue = "the park") => `${name},1 Main St,Springfield,IL,62701,US,${venue}`;
export const DE = (name: string, venue = "the park") =>
  `${name},Unter den Linden 77,Berlin,,10117,DE,${venue}`;
export const CA = (name: string, venue = "the park") => `${name},1 Rue Main,Montreal,QC,H2X 1Y4,CA,${venue}`;
export const csvOf = (...rows: string[]) => [HEADER, ...rows].join("\n");

export const SENDER: Party = {
  name: "Ada Lovelace",
  country: "US",
  address: {
    type: "Manual",
    line1: "12 Elm St",
    city: "Boston",
    state: "MA",
    zip: "02110",
    countryCode: "US",
  },
};

export const TEMPLATE = "Dear {{recipient_name}},\n\nSee you at {{venue}}.";

/** A text campaign to these CSV rows, from a US sender. */
export function campaign(
  csv: string,
  top: Partial<Omit<CampaignOrderInput, "bulk">> = {},
  bulk: Partial<{ content_mode: "text" | "html" | "pdf"; template_text: string; template_html: string }> = {},
): CampaignOrderInput {
  return {
    sender: SENDER,
    ...top,
    bulk: { content_mode: "text", template_text: TEMPLATE, ...bulk, csv_content: csv },
  };
}

/**
 * A model of the typesetter: 40 lines a page, 80 characters a line, each line break starting a new line; HTML
 * tags take no room.
 */
export const modelPageCount: PageCounter = (text, { format }) => {
  const plain = format === "html" ? text.replace(/<[^>]*>/g, "\n") : text;
  const lines = plain
    .split(/\r\n|\r|\n/)
    .reduce((sum, line) => sum + Math.max(1, Math.ceil([...line].length / 80)), 0);
  return Math.max(1, Math.ceil(lines / 40));
};

/** A font with Latin-1 only. */
export const latin1 = (text: string) => [...text].every((char) => char.codePointAt(0)! <= 0xff);

export function withoutDestination(country: string): PriceBook {
  const destinations = Object.fromEntries(
    Object.entries(DEFAULT_PRICE_BOOK.destinations).filter(([code]) => code !== country),
  );
  return { ...DEFAULT_PRICE_BOOK, destinations };
}

export const reportOf = (plan: CampaignPlan) =>
  plan.rows.map((row) => [row.row_number, row.status, row.errors.map((e) => [e.column, e.code])]);

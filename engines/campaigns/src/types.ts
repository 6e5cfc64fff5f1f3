import type { CampaignRow, Issue, MailOptions, Party } from "@mailpiece/orders";

/** Whether a piece crosses a border: the sender or the recipient is outside the country pieces are posted in. */
export type PieceRoute = "domestic" | "international";

/** The mail options that move a piece's price. */
export type PricedOptions = Pick<
  MailOptions,
  | "color"
  | "double_sided"
  | "mail_class"
  | "certified"
  | "certified_return_receipt"
  | "return_receipt_format"
  | "restricted_delivery"
  | "signature_required"
>;

/**
 * The bulk part of a campaign: its content and its recipients, either already read into rows (a `NormalizedBulk`
 * of the orders engine) or as the CSV text, read here with the orders engine's CSV rules.
 */
export type CampaignBulkInput = {
  content_mode: "text" | "html" | "pdf";
  template_text?: string;
  template_html?: string;
} & (
  | { columns: readonly string[]; rows: readonly CampaignRow[] }
  | { csv_content: string; columns?: undefined; rows?: undefined }
);

/** What a campaign is planned from; a `NormalizedOrder` of the orders engine is one. */
export interface CampaignOrderInput {
  /** Default letter. */
  mailpiece_type?: "letter" | "postcard";
  postcard_size?: "4x6" | "6x9" | "11x6";
  sender: Party;
  /** Defaults of a single order (DEFAULT_OPTIONS of the orders engine) for what is left out. */
  options?: Partial<PricedOptions>;
  /** Absent: the order is not a campaign, and is refused (`required` on `bulk`). */
  bulk?: CampaignBulkInput;
}

/** One CSV row as the campaign treats it; `errors` is empty for a valid row. */
export interface CampaignRowReport {
  row_number: number;
  status: "valid" | "invalid";
  /** `column` is the CSV header as written, "" for the row as a whole. */
  errors: CampaignRowIssue[];
}

export interface CampaignRowIssue {
  column: string;
  code: string;
  message: string;
}

/** A valid row: the mailpiece it becomes, its route and its price. */
export interface CampaignPiece {
  row_number: number;
  recipient: Party;
  /** Every named cell of the row, for the template. */
  fields: Record<string, string>;
  route: PieceRoute;
  price_cents: number;
}

/** The pieces going to one destination country, all at the same price. */
export interface CampaignDestinationSubtotal {
  destination_country: string;
  route: PieceRoute;
  pieces: number;
  unit_cents: number;
  amount_cents: number;
}

/** The pieces of one route. */
export interface CampaignRouteSubtotal {
  route: PieceRoute;
  pieces: number;
  amount_cents: number;
}

/** How much of a campaign one order may carry: the leading valid rows whose total stays within the ceiling. */
export interface CampaignCeiling {
  max_cents: number;
  /** True when the whole campaign costs at most `max_cents`. */
  within: boolean;
  /** The number of leading valid rows that fit, what they cost and the CSV row the last one is (null when none). */
  fit_pieces: number;
  fit_cents: number;
  fit_through_row: number | null;
}

/** A campaign planned row by row. */
export interface CampaignPlan {
  /** The CSV's header names as written, in file order. */
  columns: string[];
  /** Every row, valid and invalid, in file order. */
  rows: CampaignRowReport[];
  /** The valid rows as mailpieces, in file order. */
  pieces: CampaignPiece[];
  /** The rows left out, with why. */
  invalid: CampaignRowReport[];
  /** The pages every piece is priced at, and how that was decided. */
  document: { page_count: number; page_count_basis: string };
  pricing_version: string;
  total_cents: number;
  /** Domestic first, then international; only routes with pieces. */
  by_route: CampaignRouteSubtotal[];
  /** By destination country, in code order. */
  by_destination: CampaignDestinationSubtotal[];
  ceiling: CampaignCeiling;
  /** `campaign_rows_invalid` when some rows are left out. */
  warnings: Issue[];
}

export type CampaignPlanOutcome =
  | { ok: true; plan: CampaignPlan }
  /** `plan` is given when the campaign was planned but costs more than one order may (`campaign_above_ceiling`). */
  | { ok: false; issues: Issue[]; plan?: CampaignPlan };

import type { ContentMode } from "./bulk-schema.ts";
import { CONTENT_MODES } from "./bulk-schema.ts";
import { type CampaignRow, readCampaignCsv } from "./campaign-csv.ts";
import { PLACEHOLDER } from "./campaign-template.ts";
import { type PdfSourceValue, readPdf } from "./document-source.ts";
import type { IssueList } from "./issues.ts";
import { enumField, field, type JsonObject, objectField, present, stringField } from "./json-access.ts";

/** A bulk campaign, normalised: the content, and the CSV read into rows (valid and invalid). */
export interface NormalizedBulk {
  campaign_name?: string;
  content_mode: ContentMode;
  template_text?: string;
  template_html?: string;
  /** The PDF mailed to every row, in pdf mode. */
  pdf?: PdfSourceValue;
  csv_content: string;
  /** Header names of the CSV, as written. */
  columns: string[];
  rows: CampaignRow[];
  /** Number of valid rows: the mailpieces the campaign creates. */
  recipient_count: number;
}

/** Top-level fields a bulk order does not take: the campaign's rows are the recipients, its content the document. */
export const BULK_EXCLUDED_FIELDS = [
  "recipient_name",
  "recipient_address_type",
  "recipient_address_id",
  "recipient_address_text",
  "recipient_address_manual",
  "pdf",
  "form",
  "letter",
  "format",
] as const;

/** The content field each mode needs. */
const CONTENT_FIELD: Record<ContentMode, "template_text" | "template_html" | "pdf"> = {
  text: "template_text",
  html: "template_html",
  pdf: "pdf",
};

/** The distinct {{placeholder}} names of a template, in order of appearance. */
export function templatePlaceholders(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER)) names.add(match[1] ?? "");
  return [...names];
}

/** Placeholders of `template` that name no column (compared without regard to case). */
export function unknownPlaceholders(template: string, columns: readonly string[]): string[] {
  const known = new Set(columns.map((c) => c.toLowerCase()));
  return templatePlaceholders(template).filter((name) => !known.has(name.toLowerCase()));
}

export interface BulkReading {
  bulk?: NormalizedBulk;
  /** The distinct countries of the valid rows; undefined when the CSV could not be read. */
  destinations?: string[];
}

/**
 * Reads the bulk part of an order: it excludes the recipient and document fields, needs the content of its mode
 * (and no content of another mode), and a CSV with at least one valid row. Template placeholders must name CSV
 * columns. Invalid rows are kept (status invalid) and reported as a warning; the campaign is refused only when no
 * row is valid.
 */
export function readBulk(body: JsonObject, issues: IssueList, warnings: IssueList): BulkReading {
  for (const key of BULK_EXCLUDED_FIELDS) {
    if (present(body, key)) {
      issues.add(
        key,
        "bulk_field_conflict",
        `A bulk order takes its recipients and content from bulk; remove ${key}.`,
      );
    }
  }
  const bulk = objectField(body, "bulk");
  if (bulk === undefined) return {};

  const mode = enumField(bulk, "content_mode", CONTENT_MODES);
  let contentOk = mode !== undefined;
  if (mode !== undefined) {
    const needed = CONTENT_FIELD[mode];
    if (!present(bulk, needed)) {
      issues.add(`bulk.${needed}`, "bulk_content_required", `content_mode ${mode} needs bulk.${needed}.`);
      contentOk = false;
    }
    for (const other of Object.values(CONTENT_FIELD)) {
      if (other !== needed && present(bulk, other)) {
        issues.add(
          `bulk.${other}`,
          "bulk_content_conflict",
          `content_mode is ${mode}; bulk.${other} belongs to another mode.`,
        );
        contentOk = false;
      }
    }
  }
  const pdf = present(bulk, "pdf") ? readPdf(field(bulk, "pdf"), "bulk.pdf", issues) : undefined;

  const csv = stringField(bulk, "csv_content");
  if (csv === undefined) return {};
  const read = readCampaignCsv(csv);
  for (const problem of read.problems) issues.add("bulk.csv_content", problem.code, problem.message);

  const valid = read.rows.filter((row) => row.status === "valid");
  const invalid = read.rows.filter((row) => row.status === "invalid");
  if (valid.length === 0 && read.problems.length === 0) {
    issues.add(
      "bulk.csv_content",
      "campaign_no_valid_rows",
      read.rows.length === 0
        ? "The CSV has a header row but no recipient rows."
        : `None of the ${read.rows.length} rows is a valid recipient: ${describeCampaignRows(invalid)}`,
    );
  } else if (valid.length > 0 && invalid.length > 0) {
    warnings.add(
      "bulk.csv_content",
      "campaign_rows_invalid",
      `${invalid.length} of ${read.rows.length} rows will not be mailed: ${describeCampaignRows(invalid)}`,
    );
  }

  for (const key of ["template_text", "template_html"] as const) {
    const template = stringField(bulk, key);
    if (template === undefined || read.columns.length === 0) continue;
    const unknown = unknownPlaceholders(template, read.columns);
    if (unknown.length > 0) {
      issues.add(
        `bulk.${key}`,
        "template_unknown_placeholder",
        `No CSV column is named ${unknown.map((u) => `{{${u}}}`).join(", ")}; the columns are ${read.columns.join(", ")}.`,
      );
    }
  }

  const destinations = [...new Set(valid.flatMap((row) => (row.recipient ? [row.recipient.country] : [])))];
  if (mode === undefined || !contentOk) return { destinations };
  const campaignName = stringField(bulk, "campaign_name");
  const templateText = stringField(bulk, "template_text");
  const templateHtml = stringField(bulk, "template_html");
  return {
    destinations,
    bulk: {
      ...(campaignName === undefined ? {} : { campaign_name: campaignName }),
      content_mode: mode,
      ...(templateText === undefined ? {} : { template_text: templateText }),
      ...(templateHtml === undefined ? {} : { template_html: templateHtml }),
      ...(pdf === undefined ? {} : { pdf }),
      csv_content: csv,
      columns: read.columns,
      rows: read.rows,
      recipient_count: valid.length,
    },
  };
}

/** "row 2 (zip: invalid_postal_code), row 5 (recipient_name: required).", at most five rows. */
export function describeCampaignRows(
  rows: readonly { row_number: number; errors: readonly { column: string; code: string }[] }[],
): string {
  const shown = rows.slice(0, 5).map((row) => {
    const errors = row.errors.map((e) => `${e.column === "" ? "row" : e.column}: ${e.code}`).join(", ");
    return `row ${row.row_number} (${errors})`;
  });
  const more = rows.length > 5 ? `, and ${rows.length - 5} more` : "";
  return `${shown.join(", ")}${more}.`;
}

import { FormsError } from "./errors.ts";
import type { Workflow } from "./workflow.ts";

/** One entry of the form catalogue (GET /api/machine/forms). */
export interface WorkflowSummary {
  slug: string;
  name: string;
  aliases: string[];
  purpose: string;
  certified: "required" | "optional";
  checkout_flow?: "home" | "forms_order";
  schema_version: number;
  workflow_version: number;
}

export interface WorkflowQuery {
  /** Case-insensitive text searched in slugs, names and aliases. */
  q?: string;
  /** Page size, 1 to 200, default 50. A string of digits (a query parameter) is accepted too. */
  limit?: number | string;
  /** `next_cursor` of the previous page. */
  cursor?: string;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
const MAX_QUERY_CHARS = 200;

/** The workflow published under a slug or one of its aliases (case-insensitive), or undefined. */
export function findWorkflow(workflows: readonly Workflow[], slugOrAlias: string): Workflow | undefined {
  const key = String(slugOrAlias).trim().toLowerCase();
  return (
    workflows.find((w) => w.slug === key) ?? workflows.find((w) => w.aliases.some((alias) => alias === key))
  );
}

/**
 * One page of the catalogue, sorted by slug: workflows whose slug, name or an alias contains `q` (any case).
 * Throws FormsError("invalid_query") for a limit outside 1 to 200 or not an integer, a cursor this function did
 * not make, or a `q` that is not a string of at most 200 characters.
 */
export function listWorkflows(
  workflows: readonly Workflow[],
  query: WorkflowQuery = {},
): { forms: WorkflowSummary[]; next_cursor: string | null } {
  const limit = pageSize(query.limit);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (query.q !== undefined && (typeof query.q !== "string" || query.q.length > MAX_QUERY_CHARS)) {
    throw new FormsError("invalid_query", `q must be a string of at most ${MAX_QUERY_CHARS} characters.`);
  }
  const q = query.q?.trim().toLowerCase() ?? "";
  const matches = [...workflows]
    .filter((w) => q === "" || [w.slug, w.name, ...w.aliases].some((text) => text.toLowerCase().includes(q)))
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
    .filter((w) => after === undefined || w.slug > after);
  const page = matches.slice(0, limit);
  const last = page[page.length - 1];
  return {
    forms: page.map(summarise),
    next_cursor: matches.length > limit && last !== undefined ? encodeCursor(last.slug) : null,
  };
}

/** The catalogue entry of a workflow. */
export function summarise(workflow: Workflow): WorkflowSummary {
  return {
    slug: workflow.slug,
    name: workflow.name,
    aliases: [...workflow.aliases],
    purpose: workflow.purpose,
    certified: workflow.certified,
    ...(workflow.checkout_flow === undefined ? {} : { checkout_flow: workflow.checkout_flow }),
    schema_version: workflow.schema_version,
    workflow_version: workflow.workflow_version,
  };
}

function pageSize(limit: unknown): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  const value = typeof limit === "string" && /^\d{1,4}$/.test(limit.trim()) ? Number(limit.trim()) : limit;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new FormsError("invalid_query", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
  }
  return value;
}

const CURSOR_PREFIX = "f1.";

/** A cursor is the last slug of a page, base64url-encoded behind a version prefix. */
function encodeCursor(slug: string): string {
  return CURSOR_PREFIX + Buffer.from(slug, "utf8").toString("base64url");
}

function decodeCursor(cursor: unknown): string {
  const invalid = () =>
    new FormsError("invalid_query", "cursor must be a next_cursor returned by this catalogue.");
  if (typeof cursor !== "string" || !cursor.startsWith(CURSOR_PREFIX)) throw invalid();
  const encoded = cursor.slice(CURSOR_PREFIX.length);
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(encoded)) throw invalid();
  const slug = Buffer.from(encoded, "base64url").toString("utf8");
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) || encodeCursor(slug) !== cursor) throw invalid();
  return slug;
}

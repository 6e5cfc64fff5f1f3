import { joinPath } from "./issues.ts";
import { field, isJsonObject, type JsonObject } from "./json-access.ts";
import { type ProjectsAddress, type ProjectsAddressRules, parseProjectsAddress } from "./projects-address.ts";
import { checkUnknownFields, describeKey, ProjectsIssueList, type ProjectsParse } from "./projects-issues.ts";
import { MAX_PROJECTS_ID_CHARS } from "./projects-request-schema.ts";
import { charCount } from "./text-length.ts";

/** A valid create-order body of the Projects API (POST /api/v1/letters or /api/v1/postcards). */
export interface CreateOrderBody {
  quote_id: string;
  recipient: ProjectsAddress;
  sender?: ProjectsAddress;
  /** Stored on the order and returned in reads and webhooks; empty when none was sent. */
  metadata: Record<string, string>;
}

/** Chosen bounds of an order's metadata. */
export const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_KEY_CHARS = 40;
export const MAX_METADATA_VALUE_CHARS = 500;

const KNOWN_FIELDS: ReadonlySet<string> = new Set(["quote_id", "recipient", "sender", "metadata"]);

/**
 * Parses a create-order body (spec 3): quote_id required (1 to 128 characters), recipient required and sender
 * optional (address objects, see parseProjectsAddress, with the route's `maxNameLength`), metadata an optional
 * object of at most 50 string values, each key 1 to 40 characters and each value at most 500 (invalid_metadata).
 * Unknown fields are unknown_field. Every issue is reported at once, at its dotted path. Whether the quote exists,
 * has not expired and needs a sender (international letters do) is for the caller, who holds the quote.
 * Never throws.
 */
export function parseCreateOrderBody(
  body: unknown,
  context: ProjectsAddressRules,
): ProjectsParse<CreateOrderBody> {
  const issues = new ProjectsIssueList();
  if (!isJsonObject(body)) {
    issues.add("", "invalid_type", "The request body must be an object.");
    return { ok: false, issues: issues.items };
  }
  checkUnknownFields(body, KNOWN_FIELDS, "", "a create-order body", issues);

  const quoteId = readQuoteId(field(body, "quote_id"), issues);
  const recipient = parseProjectsAddress(field(body, "recipient"), "recipient", context);
  const senderValue = field(body, "sender");
  const sender = senderValue === undefined ? undefined : parseProjectsAddress(senderValue, "sender", context);
  for (const result of [recipient, sender]) {
    if (result !== undefined && !result.ok) for (const issue of result.issues) issues.items.push(issue);
  }
  const metadata = readMetadata(body, issues);

  if (issues.length > 0 || quoteId === undefined || !recipient.ok || (sender !== undefined && !sender.ok)) {
    return { ok: false, issues: issues.items };
  }
  return {
    ok: true,
    value: {
      quote_id: quoteId,
      recipient: recipient.value,
      ...(sender === undefined ? {} : { sender: sender.value }),
      metadata,
    },
  };
}

function readQuoteId(value: unknown, issues: ProjectsIssueList): string | undefined {
  if (value === undefined) issues.add("quote_id", "required", "quote_id is required.");
  else if (typeof value !== "string") issues.add("quote_id", "invalid_type", "quote_id must be a string.");
  else if (value === "") issues.add("quote_id", "too_short", "quote_id must not be empty.");
  else if (charCount(value) > MAX_PROJECTS_ID_CHARS)
    issues.add("quote_id", "too_long", `quote_id must be at most ${MAX_PROJECTS_ID_CHARS} characters.`);
  else return value;
  return undefined;
}

/**
 * The metadata map: an object (invalid_type otherwise) of at most 50 keys; each key 1 to 40 characters, each value
 * a string of at most 500 characters, each problem invalid_metadata at the key's path. A map of too many keys is reported once, without looking at its keys.
 * Keys such as "__proto__" are kept as plain data.
 */
function readMetadata(body: JsonObject, issues: ProjectsIssueList): Record<string, string> {
  const value = field(body, "metadata");
  if (value === undefined) return {};
  if (!isJsonObject(value)) {
    issues.add("metadata", "invalid_type", "metadata must be an object.");
    return {};
  }
  const keys = Object.keys(value);
  if (keys.length > MAX_METADATA_KEYS) {
    issues.add(
      "metadata",
      "invalid_metadata",
      `metadata has ${keys.length} keys; at most ${MAX_METADATA_KEYS} are allowed.`,
    );
    return {};
  }
  const entries: [string, string][] = [];
  for (const key of keys) {
    const entry = field(value, key);
    if (key === "" || charCount(key) > MAX_METADATA_KEY_CHARS) {
      issues.add(
        joinPath("metadata", key),
        "invalid_metadata",
        `metadata key ${describeKey(key)} must be 1 to ${MAX_METADATA_KEY_CHARS} characters.`,
      );
    } else if (typeof entry !== "string") {
      issues.add(
        joinPath("metadata", key),
        "invalid_metadata",
        `metadata value of ${describeKey(key)} must be a string.`,
      );
    } else if (charCount(entry) > MAX_METADATA_VALUE_CHARS) {
      issues.add(
        joinPath("metadata", key),
        "invalid_metadata",
        `metadata value of ${describeKey(key)} must be at most ${MAX_METADATA_VALUE_CHARS} characters.`,
      );
    } else {
      entries.push([key, entry]);
    }
  }
  return Object.fromEntries(entries);
}

import { type NormalizedBulk, readBulk } from "./bulk.ts";
import { type DocumentSource, readDocumentSource } from "./document-source.ts";
import { type Issue, IssueList } from "./issues.ts";
import { enumField, isJsonObject, present, stringField } from "./json-access.ts";
import { type MailOptions, readMailOptions } from "./mail-options.ts";
import { DraftOrderRequest, MAILPIECE_TYPES, OrderRequest, POSTCARD_SIZES } from "./order-request-schema.ts";
import { finishParty, type Party, readParty } from "./party.ts";
import { checkPostcardRules } from "./postcard-rules.ts";
import { createSchemaCheck } from "./schema-check.ts";

/** A valid order request with every default applied: what the rest of Mailpiece works from. */
export interface NormalizedOrder {
  request_id: string;
  buyer_name?: string;
  /** Empty in a draft until the buyer gives it at checkout. */
  buyer_email: string;
  file_name?: string;
  mailpiece_type: "letter" | "postcard";
  postcard_size?: "4x6" | "6x9" | "11x6";
  /** Absent for bulk orders. */
  document?: DocumentSource;
  sender: Party;
  /** Absent for bulk orders. */
  recipient?: Party;
  bulk?: NormalizedBulk;
  options: MailOptions;
}

export type OrderValidation =
  | { ok: true; order: NormalizedOrder; warnings: Issue[] }
  | { ok: false; issues: Issue[] };

const checkSchema = createSchemaCheck(OrderRequest);
let draftSchema: ReturnType<typeof createSchemaCheck> | undefined;
/** The draft schema's check, compiled on first use: most deployments validate orders only. */
function checkDraftSchema(body: unknown) {
  draftSchema ??= createSchemaCheck(DraftOrderRequest);
  return draftSchema(body);
}

export interface OrderRequestOptions {
  /** A draft (spec 1's draft tools): the buyer is named at checkout, so buyer_email may be absent. */
  draft?: boolean;
}

/**
 * Validates a machine order request (spec 1) and normalises it. Every problem is collected, never only the
 * first: the JSON Schema (shape, bounds, enums, formats) and every cross-field rule. Accepted orders come back
 * with the defaults applied and warnings for options that were changed or have no effect. Never throws.
 */
export function validateOrderRequest(body: unknown, request: OrderRequestOptions = {}): OrderValidation {
  const schemaIssues = request.draft ? checkDraftSchema(body) : checkSchema(body);
  if (!isJsonObject(body)) return { ok: false, issues: schemaIssues };

  const issues = new IssueList();
  const warnings = new IssueList();
  const isBulk = present(body, "bulk");
  const mailpieceType = enumField(body, "mailpiece_type", MAILPIECE_TYPES) ?? "letter";
  const postcard = mailpieceType === "postcard";

  const sender = readParty(body, "sender", issues);
  const recipient = isBulk ? undefined : readParty(body, "recipient", issues);
  const document = isBulk ? undefined : readDocumentSource(body, issues);
  const bulk = isBulk ? readBulk(body, issues, warnings) : undefined;
  const senderParty = finishParty(sender, issues);
  const recipientParty = recipient === undefined ? undefined : finishParty(recipient, issues);

  checkPostcardRules(body, issues);
  const buyerEmail = stringField(body, "buyer_email");
  const destinations = bulk?.destinations ?? (recipientParty === undefined ? [] : [recipientParty.country]);
  const options = readMailOptions(body, { postcard, buyerEmail, destinations }, issues, warnings);

  const all = mergeIssues(schemaIssues, issues.items);
  // Without issues the sender is always resolved; the check only narrows its type.
  if (all.length > 0 || senderParty === undefined) return { ok: false, issues: all };

  // With no issue left, the schema and the rules guarantee every value read below.
  const order: NormalizedOrder = {
    request_id: stringField(body, "request_id") ?? "",
    ...optional("buyer_name", stringField(body, "buyer_name")),
    buyer_email: buyerEmail ?? "",
    ...optional("file_name", stringField(body, "file_name")),
    mailpiece_type: mailpieceType,
    ...optional("postcard_size", enumField(body, "postcard_size", POSTCARD_SIZES)),
    ...optional("document", document),
    sender: senderParty,
    ...optional("recipient", recipientParty),
    ...optional("bulk", bulk?.bulk),
    options,
  };
  return { ok: true, order, warnings: warnings.items };
}

/**
 * Schema issues first, then rule issues. A rule issue on a field (or inside a field) the schema already refused
 * is dropped: the schema's issue is the one that explains it.
 */
function mergeIssues(schemaIssues: Issue[], ruleIssues: Issue[]): Issue[] {
  const refused = schemaIssues.map((i) => i.path);
  const covered = (path: string) =>
    refused.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`));
  return [...schemaIssues, ...ruleIssues.filter((i) => !covered(i.path))];
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

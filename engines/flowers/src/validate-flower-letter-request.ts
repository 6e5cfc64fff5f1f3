import type { Issue } from "@mailpiece/errors";
import { createSchemaCheck } from "@mailpiece/orders";
import { FlowersError } from "./errors.ts";
import { COUNTRY_PATTERN, FlowerLetterRequest } from "./flower-letter-schema.ts";
import { toE164 } from "./phone.ts";

/** The country of a party that states none. */
const DEFAULT_COUNTRY = "US";

/** A recipient with its country resolved and its phone in E.164. */
export interface FlowerRecipientValue {
  name: string;
  phone: string;
  address1: string;
  city: string;
  state: string;
  zipcode: string;
  country: string;
}

/** A customer with its country and email resolved, and its phone (if any) in E.164. */
export interface FlowerCustomerValue {
  name: string;
  email: string;
  phone?: string;
  address1?: string;
  city?: string;
  state?: string;
  zipcode?: string;
  country: string;
}

/** A valid flower-letter request with every default applied: what the rest of Mailpiece works from. */
export interface FlowerLetter {
  request_id: string;
  buyer_name?: string;
  buyer_email: string;
  note: string;
  zipcode: string;
  product_code: string;
  delivery_date: string;
  customer: FlowerCustomerValue;
  recipient: FlowerRecipientValue;
  allow_substitutions: boolean;
}

export type FlowerLetterValidation = { ok: true; request: FlowerLetter } | { ok: false; issues: Issue[] };

const checkSchema = createSchemaCheck(FlowerLetterRequest);

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const own = (object: Json, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);
const str = (object: Json, key: string): string | undefined => {
  const value = own(object, key);
  return typeof value === "string" ? value : undefined;
};

/** Messages for fields whose pattern says little to people. */
const PATTERN_MESSAGES: Record<string, string> = {
  phone: "must be a phone number: digits with an optional leading +, spaces, dots, dashes and brackets.",
  country: 'must be an upper-case ISO 3166-1 alpha-2 country code, e.g. "US".',
  product_code: "must be a florist product code: letters, digits, '-' and '_'.",
};

/**
 * Validates a flower-letter request (spec 1) and applies its defaults. Every problem is collected, never only the
 * first: the JSON Schema (shape, bounds, formats, unknown properties) and the rules across fields (no blank text,
 * phone numbers that can exist, read in the party's country, the recipient's ZIP is the delivery ZIP). Phone
 * numbers come back in E.164. The product, coverage, date and price are the florist's to check. Never throws.
 */
export function validateFlowerLetterRequest(body: unknown): FlowerLetterValidation {
  const schemaIssues = checkSchema(body).map(relabel);
  if (!isObject(body)) return { ok: false, issues: schemaIssues };
  const rules: Issue[] = [];

  const blank = (object: Json | undefined, key: string, at: string) => {
    const value = object && str(object, key);
    if (value !== undefined && value.length > 0 && value.trim() === "") {
      rules.push({ path: at, code: "too_short", message: `${key} must not be blank.` });
    }
  };
  /** Each party's phone in E.164, read in the party's country. */
  const phones: { customer?: string; recipient?: string } = {};
  const phone = (object: Json | undefined, party: "customer" | "recipient") => {
    const value = object && str(object, "phone");
    if (object === undefined || value === undefined) return;
    const country = str(object, "country") ?? DEFAULT_COUNTRY;
    // A malformed country is the schema's to report; the phone cannot be read without it.
    if (!new RegExp(COUNTRY_PATTERN).test(country)) return;
    const e164 = toE164(value, country);
    if (e164 !== undefined) phones[party] = e164;
    else {
      rules.push({
        path: `${party}.phone`,
        code: "invalid_format",
        message: `${party}.phone must be a ${country} phone number with its area code, such as (217) 555-0142 in the US, or an international number such as +44 20 7946 0958; no extension.`,
      });
    }
  };

  const customer = isObject(own(body, "customer")) ? (own(body, "customer") as Json) : undefined;
  const recipient = isObject(own(body, "recipient")) ? (own(body, "recipient") as Json) : undefined;
  for (const key of ["buyer_name", "note", "zipcode"]) blank(body, key, key);
  for (const key of ["name", "address1", "city", "state", "zipcode"]) {
    blank(customer, key, `customer.${key}`);
    blank(recipient, key, `recipient.${key}`);
  }
  phone(customer, "customer");
  phone(recipient, "recipient");

  const zipcode = str(body, "zipcode");
  const recipientZip = recipient && str(recipient, "zipcode");
  if (zipcode !== undefined && recipientZip !== undefined && zipBase(zipcode) !== zipBase(recipientZip)) {
    rules.push({
      path: "recipient.zipcode",
      code: "zipcode_mismatch",
      message: `recipient.zipcode (${recipientZip}) must be the delivery zipcode (${zipcode}).`,
    });
  }

  const issues = mergeIssues(schemaIssues, rules);
  if (issues.length > 0 || !customer || !recipient) return { ok: false, issues };

  // With no issue left, the schema guarantees every value read below.
  const buyerEmail = str(body, "buyer_email") ?? "";
  const buyerName = str(body, "buyer_name");
  const optional = (key: string) => {
    const value = str(customer, key);
    return value === undefined ? {} : { [key]: value };
  };
  const request: FlowerLetter = {
    request_id: str(body, "request_id") ?? "",
    ...(buyerName === undefined ? {} : { buyer_name: buyerName }),
    buyer_email: buyerEmail,
    note: str(body, "note") ?? "",
    zipcode: zipcode ?? "",
    product_code: str(body, "product_code") ?? "",
    delivery_date: str(body, "delivery_date") ?? "",
    customer: {
      name: str(customer, "name") ?? "",
      email: str(customer, "email") ?? buyerEmail,
      ...(phones.customer === undefined ? {} : { phone: phones.customer }),
      ...optional("address1"),
      ...optional("city"),
      ...optional("state"),
      ...optional("zipcode"),
      country: str(customer, "country") ?? DEFAULT_COUNTRY,
    },
    recipient: {
      name: str(recipient, "name") ?? "",
      phone: phones.recipient ?? "",
      address1: str(recipient, "address1") ?? "",
      city: str(recipient, "city") ?? "",
      state: str(recipient, "state") ?? "",
      zipcode: recipientZip ?? "",
      country: str(recipient, "country") ?? DEFAULT_COUNTRY,
    },
    allow_substitutions: own(body, "allow_substitutions") !== false,
  };
  return { ok: true, request };
}

/** Like `validateFlowerLetterRequest`, but throws FlowersError `flower_letter_invalid` with every issue. */
export function parseFlowerLetterRequest(body: unknown): FlowerLetter {
  const result = validateFlowerLetterRequest(body);
  if (result.ok) return result.request;
  const count = result.issues.length;
  throw new FlowersError(
    "flower_letter_invalid",
    `The flower letter has ${count} problem${count === 1 ? "" : "s"}: ${result.issues.map((i) => `${i.path || "body"} ${i.code}`).join(", ")}.`,
    { issues: result.issues },
  );
}

/** A ZIP without spaces, case or a ZIP+4 suffix, for comparing two spellings of one ZIP. */
function zipBase(zip: string): string {
  return zip.replace(/\s+/g, "").toUpperCase().split("-")[0] ?? "";
}

function relabel(issue: Issue): Issue {
  if (issue.code !== "invalid_format") return issue;
  const field = issue.path.slice(issue.path.lastIndexOf(".") + 1);
  const message = PATTERN_MESSAGES[field];
  return message === undefined || !issue.message.includes(" must match ")
    ? issue
    : { ...issue, message: `${field} ${message}` };
}

/** Schema issues first, then rule issues on fields the schema did not already refuse. */
function mergeIssues(schemaIssues: Issue[], ruleIssues: Issue[]): Issue[] {
  const refused = new Set(schemaIssues.map((i) => i.path));
  return [...schemaIssues, ...ruleIssues.filter((i) => !refused.has(i.path))];
}

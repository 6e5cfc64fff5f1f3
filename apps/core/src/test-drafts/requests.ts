import type { Issue } from "@mailpiece/errors";
import { MAX_LETTER_CHARS, MAX_PROJECTS_NAME_CHARS, PROJECTS_MAIL_CLASSES } from "@mailpiece/orders";
import type { Simulation } from "./lifecycle.ts";
import { SIMULATIONS } from "./lifecycle.ts";
import type { TestMailService } from "./quote.ts";

/**
 * The mail_class values of a test mail draft: the Projects API's (standard and first class, priority, express, by
 * their neutral and carrier names) and `certified`, first-class mail sent as U.S. Certified Mail.
 */
export const TEST_MAIL_CLASSES = [...PROJECTS_MAIL_CLASSES, "certified"] as const;
export type TestMailClass = (typeof TEST_MAIL_CLASSES)[number];

/** The longest pdf_url taken, in characters (the URL rule of the PDF fetcher). */
export const MAX_PDF_URL_CHARS = 8192;

/** A person named on a test piece: spec 3 asks only for names. */
export interface NamedParty {
  name: string;
}

/** A valid body of POST /v1/test/mail_drafts. */
export type MailDraftRequest = {
  mail_class: TestMailClass;
  simulate: Simulation;
} & (
  | { source: "letter_text"; letter_text: string; sender: NamedParty; recipient: NamedParty }
  | { source: "pdf_url"; pdf_url: string; sender?: NamedParty; recipient?: NamedParty }
);

/** A valid body of POST /v1/test/form_drafts (the answers are checked by the workflow itself). */
export interface FormDraftRequest {
  workflow_slug: string;
  answers: Record<string, unknown>;
  attachments: unknown[];
  simulate: Simulation;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

const MAIL_FIELDS = new Set(["letter_text", "pdf_url", "sender", "recipient", "mail_class", "simulate"]);
const FORM_FIELDS = new Set(["workflow_slug", "answers", "attachments", "simulate"]);
const PARTY_FIELDS = new Set(["name"]);

type Body = Record<string, unknown>;

const isObject = (value: unknown): value is Body =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const has = (body: Body, key: string) => Object.hasOwn(body, key) && body[key] !== undefined;

/**
 * Reads a test mail draft: exactly one of `letter_text` (with `sender` and `recipient`, each `{name}`) and
 * `pdf_url` (https; sender and recipient optional, since the PDF carries its own addresses); `mail_class` (default
 * standard) and `simulate` (default delivered). Every problem is reported at once, each at the path of its field.
 */
export function parseMailDraft(body: unknown): Parsed<MailDraftRequest> {
  const issues: Issue[] = [];
  if (!isObject(body)) return { ok: false, issues: [notAnObject("", "The body")] };
  unknownFields(body, MAIL_FIELDS, "", "a test mail draft", issues);
  const letter = has(body, "letter_text");
  const pdf = has(body, "pdf_url");
  if (!letter && !pdf) {
    issues.push({
      path: "",
      code: "document_source_required",
      message: "A test mail draft needs letter_text (with sender and recipient) or pdf_url.",
    });
  } else if (letter && pdf) {
    issues.push({
      path: "",
      code: "document_source_conflict",
      message: "A test mail draft takes letter_text or pdf_url, not both; keep one.",
    });
  }
  const text = letter ? letterText(body.letter_text, issues) : undefined;
  const url = pdf ? pdfUrl(body.pdf_url, issues) : undefined;
  const sender = party(body, "sender", letter && !pdf, issues);
  const recipient = party(body, "recipient", letter && !pdf, issues);
  const mailClass = oneOf(body, "mail_class", TEST_MAIL_CLASSES, "standard", issues);
  const simulate = oneOf(body, "simulate", SIMULATIONS, "delivered", issues);
  if (issues.length > 0) return { ok: false, issues };
  const common = { mail_class: mailClass!, simulate: simulate! };
  if (text !== undefined) {
    return {
      ok: true,
      value: { ...common, source: "letter_text", letter_text: text, sender: sender!, recipient: recipient! },
    };
  }
  return {
    ok: true,
    value: {
      ...common,
      source: "pdf_url",
      pdf_url: url!,
      ...(sender ? { sender } : {}),
      ...(recipient ? { recipient } : {}),
    },
  };
}

/**
 * Reads a test form draft: `workflow_slug` (a string; whether a workflow has it is for the catalogue), `answers` (an
 * object keyed by field id), `attachments` (optional, an array of `{id, file_name, base64}` as the machine API's
 * `form.attachments`) and `simulate`.
 */
export function parseFormDraft(body: unknown): Parsed<FormDraftRequest> {
  const issues: Issue[] = [];
  if (!isObject(body)) return { ok: false, issues: [notAnObject("", "The body")] };
  unknownFields(body, FORM_FIELDS, "", "a test form draft", issues);
  const slug = body.workflow_slug;
  if (!has(body, "workflow_slug")) {
    issues.push(required("workflow_slug", "workflow_slug names the workflow form (GET /api/machine/forms)."));
  } else if (typeof slug !== "string") {
    issues.push(wrongType("workflow_slug", "workflow_slug must be a string."));
  } else if (slug.trim() === "") {
    issues.push({ path: "workflow_slug", code: "too_short", message: "workflow_slug must not be empty." });
  }
  if (!has(body, "answers")) {
    issues.push(required("answers", "answers holds the form's answers, keyed by field id."));
  } else if (!isObject(body.answers)) {
    issues.push(notAnObject("answers", "answers"));
  }
  if (has(body, "attachments") && !Array.isArray(body.attachments)) {
    issues.push(wrongType("attachments", "attachments must be an array of {id, file_name, base64}."));
  }
  const simulate = oneOf(body, "simulate", SIMULATIONS, "delivered", issues);
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    value: {
      workflow_slug: (slug as string).trim(),
      answers: body.answers as Record<string, unknown>,
      attachments: has(body, "attachments") ? (body.attachments as unknown[]) : [],
      simulate: simulate!,
    },
  };
}

/** The mail class and proof mail a test mail class names. */
export function mailServiceOf(mailClass: TestMailClass): TestMailService {
  if (mailClass === "certified") return { mail_class: "standard", certified: true };
  const plain = mailClass.replace(/^(carrier|usps)_/, "");
  return { mail_class: plain === "priority" || plain === "express" ? plain : "standard", certified: false };
}

function letterText(value: unknown, issues: Issue[]): string | undefined {
  if (typeof value !== "string") {
    issues.push(wrongType("letter_text", "letter_text must be a string: the letter's text."));
    return undefined;
  }
  if (value.trim() === "") {
    issues.push({ path: "letter_text", code: "too_short", message: "letter_text must not be empty." });
    return undefined;
  }
  if (chars(value) > MAX_LETTER_CHARS) {
    issues.push({
      path: "letter_text",
      code: "too_long",
      message: `letter_text is ${chars(value)} characters; at most ${MAX_LETTER_CHARS} are taken.`,
    });
    return undefined;
  }
  return value;
}

function pdfUrl(value: unknown, issues: Issue[]): string | undefined {
  if (typeof value !== "string") {
    issues.push(wrongType("pdf_url", "pdf_url must be a string: the https URL of the PDF."));
    return undefined;
  }
  if (value.length > MAX_PDF_URL_CHARS) {
    issues.push({
      path: "pdf_url",
      code: "too_long",
      message: `pdf_url is ${value.length} characters; at most ${MAX_PDF_URL_CHARS} are taken.`,
    });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    issues.push({ path: "pdf_url", code: "invalid_format", message: "pdf_url is not a URL." });
    return undefined;
  }
  if (url.protocol !== "https:") {
    issues.push({
      path: "pdf_url",
      code: "pdf_url_not_https",
      message: "pdf_url must be an https URL; the PDF is downloaded over HTTPS only.",
    });
    return undefined;
  }
  return value;
}

function party(
  body: Body,
  role: "sender" | "recipient",
  needed: boolean,
  issues: Issue[],
): NamedParty | undefined {
  if (!has(body, role)) {
    if (needed) issues.push(required(role, `A letter_text draft needs ${role}: {"name": "..."}.`));
    return undefined;
  }
  const value = body[role];
  if (!isObject(value)) {
    issues.push(notAnObject(role, role));
    return undefined;
  }
  unknownFields(value, PARTY_FIELDS, role, `${role} (a test piece takes only a name)`, issues);
  const path = `${role}.name`;
  const name = value.name;
  if (!has(value, "name")) {
    issues.push(required(path, `${role}.name is the name printed in the envelope window.`));
  } else if (typeof name !== "string") {
    issues.push(wrongType(path, `${path} must be a string.`));
  } else if (name.trim() === "") {
    issues.push({ path, code: "too_short", message: `${path} must not be empty.` });
  } else if (chars(name) > MAX_PROJECTS_NAME_CHARS) {
    issues.push({
      path,
      code: "too_long",
      message: `${path} is ${chars(name)} characters; at most ${MAX_PROJECTS_NAME_CHARS} are taken.`,
    });
  } else if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name)) {
    issues.push({
      path,
      code: "invalid_format",
      message: `${path} must be one line of printable text (no line breaks or control characters).`,
    });
  } else {
    return { name: name.trim() };
  }
  return undefined;
}

function oneOf<T extends string>(
  body: Body,
  key: string,
  allowed: readonly T[],
  fallback: T,
  issues: Issue[],
): T | undefined {
  if (!has(body, key)) return fallback;
  const value = body[key];
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  issues.push({ path: key, code: "invalid_enum", message: `${key} must be one of: ${allowed.join(", ")}.` });
  return undefined;
}

function unknownFields(
  value: Body,
  known: ReadonlySet<string>,
  path: string,
  what: string,
  issues: Issue[],
): void {
  for (const key of Object.keys(value)) {
    if (known.has(key)) continue;
    issues.push({
      path: path === "" ? key : `${path}.${key}`,
      code: "unknown_field",
      message: `${JSON.stringify(key.slice(0, 64))} is not a field of ${what}.`,
    });
  }
}

/** Characters as people count them (code points, not UTF-16 units). */
const chars = (value: string) => [...value].length;
const required = (path: string, message: string): Issue => ({ path, code: "required", message });
const wrongType = (path: string, message: string): Issue => ({ path, code: "invalid_type", message });
const notAnObject = (path: string, what: string): Issue => wrongType(path, `${what} must be a JSON object.`);

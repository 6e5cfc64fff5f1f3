import { ALLOWED_COUNTRIES, type CountryCode, isAllowedCountry } from "./countries.ts";
import { type Issue, type IssueCode, IssueList } from "./issues.ts";
import { booleanField, enumField, field, isJsonObject, type JsonObject, present } from "./json-access.ts";
import { MAIL_OPTION_FIELDS, type MailOptions, readMailOptions } from "./mail-options.ts";
import { POSTCARD_SIZES } from "./order-request-schema.ts";
import {
  checkUnknownFields,
  type ProjectsIssueCode,
  ProjectsIssueList,
  type ProjectsParse,
} from "./projects-issues.ts";
import { LetterQuoteBody, PostcardQuoteBody, type ProjectsMailClass } from "./projects-request-schema.ts";
import { travelsRegistered } from "./registered-mail.ts";
import { createSchemaCheck, type SchemaCheck } from "./schema-check.ts";

/** How a letter's proof mail travels: U.S. certified mail, registered mail abroad, or none. */
export type ProofMail = "none" | "certified" | "registered";

/** A valid letter quote request of the Projects API with every default applied. */
export interface LetterQuoteRequest {
  document_id: string;
  page_count?: number;
  destination: CountryCode;
  origin: CountryCode;
  /** The options as they will be mailed: nothing the client sent was changed. */
  options: MailOptions;
  /** The value sent, else the workspace setting; fixed on the quote. */
  standalone_address_page: boolean;
  proof_mail: ProofMail;
}

/** A valid postcard quote request of the Projects API. */
export interface PostcardQuoteRequest {
  document_id: string;
  page_count?: number;
  postcard_size: (typeof POSTCARD_SIZES)[number];
  destination: CountryCode;
  origin: CountryCode;
  /** What postcards are mailed with: first class, color, double-sided, no proof mail. */
  options: MailOptions;
}

/** The destinations spec 3 lists for letters and postcards. */
export const PROJECTS_DESTINATIONS: readonly CountryCode[] = Object.freeze([
  "US",
  "CA",
  "AT",
  "BE",
  "CH",
  "DE",
  "ES",
  "FR",
  "GB",
  "IN",
  "LU",
  "NL",
]);

/** Where a letter can be sent with proof mail: U.S. certified mail to US, registered mail to the others. */
export const PROOF_MAIL_DESTINATIONS: readonly CountryCode[] = Object.freeze([
  "US",
  "CA",
  "BE",
  "CH",
  "ES",
  "FR",
]);

/** The mail class each Projects API value names. */
const MAIL_CLASS_OF: Readonly<Record<ProjectsMailClass, MailOptions["mail_class"]>> = Object.freeze({
  standard: "standard",
  carrier_first_class: "standard",
  usps_first_class: "standard",
  priority: "priority",
  carrier_priority: "priority",
  usps_priority: "priority",
  express: "express",
  carrier_express: "express",
  usps_express: "express",
});

/** The option fields readMailOptions reads, under the names both APIs give them. */
const OPTION_KEYS = MAIL_OPTION_FIELDS;

/** The receipt options and the value of each that asks for a return receipt (anything but the default). */
const RECEIPT_REQUESTS: readonly { key: string; asks: (body: JsonObject) => boolean }[] = [
  {
    key: "certified_return_receipt",
    asks: (body) => booleanField(body, "certified_return_receipt") === true,
  },
  { key: "return_receipt_format", asks: (body) => field(body, "return_receipt_format") === "physical" },
  { key: "restricted_delivery", asks: (body) => booleanField(body, "restricted_delivery") === true },
  { key: "err_delivery", asks: (body) => field(body, "err_delivery") === "email" },
  {
    key: "err_email",
    asks: (body) => field(body, "err_delivery") === "email" && typeof field(body, "err_email") === "string",
  },
];

let letterSchema: SchemaCheck | undefined;
let postcardSchema: SchemaCheck | undefined;

/**
 * Parses a letter quote request (spec 3, POST /api/v1/letters/quotes). Every problem is reported, each at its
 * field, and nothing is silently changed:
 * - shape: document_id 1 to 128 characters, page_count an integer of at least 1, booleans and enums typed, err_email
 *   an email of at most 256 characters, country codes of 2 letters in any case; unknown fields are unknown_field;
 * - destination one of PROJECTS_DESTINATIONS (destination_country_not_supported), origin an allowed country
 *   (origin_country_not_supported), both US by default;
 * - the option dependencies of the machine API (readMailOptions): receipts need certified, receipt options need
 *   certified_return_receipt, no emailed receipt with physical receipts, no priority or express with certified;
 * - proof mail (certified) is U.S. certified mail to US and registered mail to CA, BE, CH, ES and FR; to any other
 *   destination it is proof_mail_not_available;
 * - certified_return_receipt, return_receipt_format physical, restricted_delivery and err_delivery email (with its
 *   err_email) come with U.S. certified mail only: return_receipt_not_available for any destination but US;
 * - signature_required is for U.S. priority and express letters only (signature_not_available);
 * - err_email without err_delivery email is err_email_requires_email_delivery.
 * A field refused for its destination is not reported again for a dependency (one issue per field there).
 * standalone_address_page is the value sent, else `context.standaloneAddressPage` (the workspace setting).
 * Never throws.
 */
export function parseLetterQuoteRequest(
  body: unknown,
  context: { standaloneAddressPage: boolean },
): ProjectsParse<LetterQuoteRequest> {
  letterSchema ??= createSchemaCheck(LetterQuoteBody);
  const issues = new ProjectsIssueList();
  addShapeIssues(letterSchema(body), issues);
  if (!isJsonObject(body)) return { ok: false, issues: issues.items };
  checkUnknownFields(
    body,
    new Set(Object.keys(LetterQuoteBody.properties)),
    "",
    "a letter quote request",
    issues,
  );

  const { destination, origin } = readCountries(body, issues);
  if (destination !== undefined) checkDestinationOptions(body, destination, issues);

  const ruleIssues = new IssueList();
  const warnings = new IssueList();
  const options = readMailOptions(
    optionsBody(body),
    { postcard: false, buyerEmail: undefined, destinations: destination === undefined ? [] : [destination] },
    ruleIssues,
    warnings,
  );
  for (const issue of ruleIssues.items) {
    if (!issues.has(issue.path)) issues.add(issue.path, issue.code as IssueCode, issue.message);
  }
  for (const warning of warnings.items) {
    if (issues.has(warning.path)) continue;
    // An unknown mail_class reads as standard; the schema has refused it, so the signature is not judged on it.
    if (warning.path === "signature_required" && mailClassOf(field(body, "mail_class")) === undefined)
      continue;
    const refusal = letterRefusal(warning);
    issues.add(warning.path, refusal.code, refusal.message);
  }

  if (issues.length > 0 || destination === undefined || origin === undefined) {
    return { ok: false, issues: issues.items };
  }
  const pageCount = field(body, "page_count");
  return {
    ok: true,
    value: {
      document_id: field(body, "document_id") as string,
      ...(typeof pageCount === "number" ? { page_count: pageCount } : {}),
      destination,
      origin,
      options,
      standalone_address_page: booleanField(body, "standalone_address_page") ?? context.standaloneAddressPage,
      proof_mail: !options.certified
        ? "none"
        : travelsRegistered(true, destination)
          ? "registered"
          : "certified",
    },
  };
}

/**
 * Parses a postcard quote request (spec 3, POST /api/v1/postcards/quotes): document_id, page_count and the country
 * codes as for letters, postcard_size required (4x6, 6x9 or 11x6). Postcards are mailed first-class, in color and
 * double-sided, without proof mail, receipts or signature: a letter option is accepted only with that value (its
 * default, color and double_sided true, a first-class mail_class); any other value, an err_email and a
 * standalone_address_page true are option_not_available_for_postcards. Never throws.
 */
export function parsePostcardQuoteRequest(body: unknown): ProjectsParse<PostcardQuoteRequest> {
  postcardSchema ??= createSchemaCheck(PostcardQuoteBody);
  const issues = new ProjectsIssueList();
  addShapeIssues(postcardSchema(body), issues);
  if (!isJsonObject(body)) return { ok: false, issues: issues.items };
  checkUnknownFields(
    body,
    new Set(Object.keys(PostcardQuoteBody.properties)),
    "",
    "a postcard quote request",
    issues,
  );

  const { destination, origin } = readCountries(body, issues);
  const ruleIssues = new IssueList();
  const warnings = new IssueList();
  const options = readMailOptions(
    optionsBody(body),
    { postcard: true, buyerEmail: undefined, destinations: destination === undefined ? [] : [destination] },
    ruleIssues,
    warnings,
  );
  for (const issue of [...ruleIssues.items, ...warnings.items]) {
    if (!issues.has(issue.path))
      issues.add(issue.path, "option_not_available_for_postcards", postcardRefusal(issue.path));
  }
  if (booleanField(body, "standalone_address_page") === true) {
    issues.add(
      "standalone_address_page",
      "option_not_available_for_postcards",
      "A postcard has no inserted address page; leave standalone_address_page out.",
    );
  }

  const size = enumField(body, "postcard_size", POSTCARD_SIZES);
  if (issues.length > 0 || size === undefined || destination === undefined || origin === undefined) {
    return { ok: false, issues: issues.items };
  }
  const pageCount = field(body, "page_count");
  return {
    ok: true,
    value: {
      document_id: field(body, "document_id") as string,
      ...(typeof pageCount === "number" ? { page_count: pageCount } : {}),
      postcard_size: size,
      destination,
      origin,
      options,
    },
  };
}

/** The schema's issues, except unknown properties: checkUnknownFields reports those as unknown_field. */
function addShapeIssues(found: readonly Issue[], issues: ProjectsIssueList): void {
  for (const issue of found) {
    if (issue.code !== "unknown_property") issues.add(issue.path, issue.code as IssueCode, issue.message);
  }
}

/**
 * The destination and origin, upper-cased, US when absent. A code the schema refused (not a string of 2 characters)
 * reads as undefined without another issue.
 */
function readCountries(
  body: JsonObject,
  issues: ProjectsIssueList,
): { destination: CountryCode | undefined; origin: CountryCode | undefined } {
  const destination = readCountry(body, "destination_country_code", issues, (code) =>
    PROJECTS_DESTINATIONS.find((allowed) => allowed === code),
  );
  const origin = readCountry(body, "origin_country_code", issues, (code) =>
    isAllowedCountry(code) ? code : undefined,
  );
  return { destination, origin };
}

function readCountry(
  body: JsonObject,
  key: "destination_country_code" | "origin_country_code",
  issues: ProjectsIssueList,
  resolve: (code: string) => CountryCode | undefined,
): CountryCode | undefined {
  if (!present(body, key)) return "US";
  const value = field(body, key);
  if (typeof value !== "string" || value.length !== 2) return undefined;
  const country = resolve(value.toUpperCase());
  if (country === undefined) {
    const [code, which, list] =
      key === "destination_country_code"
        ? (["destination_country_not_supported", "destination", PROJECTS_DESTINATIONS] as const)
        : (["origin_country_not_supported", "origin", ALLOWED_COUNTRIES] as const);
    issues.add(
      key,
      code,
      `${JSON.stringify(value)} is not a supported ${which}; use one of: ${list.join(", ")}.`,
    );
  }
  return country;
}

/** The destination rules of spec 3 for letters: proof mail, return receipts and signature by destination. */
function checkDestinationOptions(
  body: JsonObject,
  destination: CountryCode,
  issues: ProjectsIssueList,
): void {
  if (booleanField(body, "certified") === true && !PROOF_MAIL_DESTINATIONS.includes(destination)) {
    issues.add(
      "certified",
      "proof_mail_not_available",
      `Proof mail is not available for letters to ${destination}: it is U.S. certified mail to US and registered mail to CA, BE, CH, ES and FR. Drop certified.`,
    );
  }
  if (destination !== "US") {
    for (const request of RECEIPT_REQUESTS) {
      if (!request.asks(body)) continue;
      issues.add(
        request.key,
        "return_receipt_not_available",
        `${request.key} comes with U.S. certified mail only (destination US), not with letters to ${destination}; leave it out.`,
      );
    }
  }
  const mailClass = mailClassOf(field(body, "mail_class"));
  if (
    booleanField(body, "signature_required") === true &&
    (destination !== "US" || mailClass === "standard")
  ) {
    issues.add("signature_required", "signature_not_available", SIGNATURE_REFUSAL);
  }
}

const SIGNATURE_REFUSAL =
  "signature_required is available for U.S. priority and express letters only (destination US, mail_class priority or express); leave it out.";

/** The mail class a Projects API value names; first class when absent, undefined when not a known value. */
function mailClassOf(value: unknown): MailOptions["mail_class"] | undefined {
  if (value === undefined) return "standard";
  return typeof value === "string" && Object.hasOwn(MAIL_CLASS_OF, value)
    ? MAIL_CLASS_OF[value as ProjectsMailClass]
    : undefined;
}

/**
 * The option fields of the request as readMailOptions reads them: own properties only, mail_class translated to
 * the engine's class (a value that is not one of PROJECTS_MAIL_CLASSES is passed on and reads as absent; the
 * schema has refused it).
 */
function optionsBody(body: JsonObject): JsonObject {
  const options: JsonObject = {};
  for (const key of OPTION_KEYS) {
    if (present(body, key)) options[key] = field(body, key);
  }
  const mailClass = field(body, "mail_class");
  if (mailClass !== undefined) options.mail_class = mailClassOf(mailClass) ?? mailClass;
  return options;
}

/** The issue spec 3 makes of a warning readMailOptions gives for a letter (an option it would change or ignore). */
function letterRefusal(warning: Issue): { code: ProjectsIssueCode; message: string } {
  if (warning.code === "err_email_unused") {
    return {
      code: "err_email_requires_email_delivery",
      message:
        "err_email is only used with err_delivery email; send err_delivery email or leave err_email out.",
    };
  }
  switch (warning.path) {
    case "signature_required":
      return { code: "signature_not_available", message: SIGNATURE_REFUSAL };
    case "certified_return_receipt":
    case "return_receipt_format":
    case "err_delivery":
    case "restricted_delivery":
      return {
        code: "return_receipt_not_available",
        message: `${warning.path} comes with U.S. certified mail only (destination US); leave it out.`,
      };
    default:
      return {
        code: "option_not_available",
        message: `${warning.path} cannot be applied as sent: ${warning.message}`,
      };
  }
}

function postcardRefusal(key: string): string {
  return `${key} is not available for postcards: they are mailed first-class, in color and double-sided, without proof mail, receipts or signature. Leave it out.`;
}

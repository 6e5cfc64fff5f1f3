import type { IssueList } from "./issues.ts";
import { booleanField, enumField, type JsonObject, stringField } from "./json-access.ts";
import { ERR_DELIVERIES, MAIL_CLASSES, RETURN_RECEIPT_FORMATS } from "./order-request-schema.ts";
import { applyRegisteredMail } from "./registered-mail.ts";

/** The mail options of an order with every default applied. */
export interface MailOptions {
  double_sided: boolean;
  color: boolean;
  mail_class: "standard" | "priority" | "express";
  certified: boolean;
  certified_return_receipt: boolean;
  return_receipt_format: "electronic" | "physical";
  restricted_delivery: boolean;
  err_delivery: "manual" | "email";
  /** Where the electronic return receipt is emailed; set only when err_delivery is email (default buyer_email). */
  err_email?: string;
  signature_required: boolean;
}

/** The request fields of the mail options, as every API names them. */
export const MAIL_OPTION_FIELDS = [
  "double_sided",
  "color",
  "mail_class",
  "certified",
  "certified_return_receipt",
  "return_receipt_format",
  "restricted_delivery",
  "err_delivery",
  "err_email",
  "signature_required",
] as const;

export const DEFAULT_OPTIONS: Readonly<Omit<MailOptions, "err_email">> = Object.freeze({
  double_sided: true,
  color: false,
  mail_class: "standard",
  certified: false,
  certified_return_receipt: false,
  return_receipt_format: "electronic",
  restricted_delivery: false,
  err_delivery: "manual",
  signature_required: false,
});

/** What postcards are always mailed with. */
const POSTCARD_OPTIONS: Readonly<Omit<MailOptions, "err_email">> = Object.freeze({
  ...DEFAULT_OPTIONS,
  color: true,
});

/**
 * Reads the mail options and their dependencies. An option sent with its default value is the same as an option
 * left out; only a value that asks for more needs its prerequisite: certified_return_receipt true needs certified;
 * return_receipt_format physical, restricted_delivery true and err_delivery email need certified_return_receipt;
 * err_delivery email does not go with physical receipts; priority and express do not go with certified.
 * The options returned say what will happen, each change with a warning: signature_required only applies to
 * priority and express letters; certified mail abroad travels registered (see applyRegisteredMail); postcards are
 * normalised to standard mail, color, double-sided and no proof-mail or signature options.
 * `destinations` are the countries the pieces are mailed to (empty when not known).
 */
export function readMailOptions(
  body: JsonObject,
  context: { postcard: boolean; buyerEmail: string | undefined; destinations: readonly string[] },
  issues: IssueList,
  warnings: IssueList,
): MailOptions {
  const given = {
    double_sided: booleanField(body, "double_sided"),
    color: booleanField(body, "color"),
    mail_class: enumField(body, "mail_class", MAIL_CLASSES),
    certified: booleanField(body, "certified"),
    certified_return_receipt: booleanField(body, "certified_return_receipt"),
    return_receipt_format: enumField(body, "return_receipt_format", RETURN_RECEIPT_FORMATS),
    restricted_delivery: booleanField(body, "restricted_delivery"),
    err_delivery: enumField(body, "err_delivery", ERR_DELIVERIES),
    signature_required: booleanField(body, "signature_required"),
  };
  const errEmail = stringField(body, "err_email");

  if (context.postcard) {
    const options: MailOptions = { ...POSTCARD_OPTIONS };
    for (const key of Object.keys(given) as (keyof typeof given)[]) {
      const value = given[key];
      if (key === "signature_required" || value === undefined || value === options[key]) continue;
      warnings.add(
        key,
        "option_normalised",
        `Postcards are mailed with ${key} ${String(options[key])}; the requested ${String(value)} was changed.`,
      );
    }
    if (given.signature_required === true) {
      warnings.add(
        "signature_required",
        "option_ignored",
        "Postcards take no signature on delivery; it was ignored.",
      );
    }
    if (errEmail !== undefined) {
      warnings.add(
        "err_email",
        "err_email_unused",
        "err_email is only used when err_delivery is email; it was ignored.",
      );
    }
    return options;
  }

  const options: MailOptions = {
    double_sided: given.double_sided ?? DEFAULT_OPTIONS.double_sided,
    color: given.color ?? DEFAULT_OPTIONS.color,
    mail_class: given.mail_class ?? DEFAULT_OPTIONS.mail_class,
    certified: given.certified ?? DEFAULT_OPTIONS.certified,
    certified_return_receipt: given.certified_return_receipt ?? DEFAULT_OPTIONS.certified_return_receipt,
    return_receipt_format: given.return_receipt_format ?? DEFAULT_OPTIONS.return_receipt_format,
    restricted_delivery: given.restricted_delivery ?? DEFAULT_OPTIONS.restricted_delivery,
    err_delivery: given.err_delivery ?? DEFAULT_OPTIONS.err_delivery,
    signature_required: given.signature_required ?? DEFAULT_OPTIONS.signature_required,
  };

  if (options.certified_return_receipt && !options.certified) {
    issues.add(
      "certified_return_receipt",
      "requires_certified",
      "certified_return_receipt needs certified true.",
    );
  }
  const needsReceipt = (key: string, why: string) => {
    if (!options.certified_return_receipt) {
      issues.add(key, "requires_certified_return_receipt", `${why} needs certified_return_receipt true.`);
    }
  };
  if (options.return_receipt_format !== DEFAULT_OPTIONS.return_receipt_format)
    needsReceipt("return_receipt_format", `return_receipt_format ${options.return_receipt_format}`);
  if (options.restricted_delivery) needsReceipt("restricted_delivery", "restricted_delivery");
  if (options.err_delivery === "email") {
    needsReceipt("err_delivery", "err_delivery email");
    if (options.return_receipt_format === "physical") {
      issues.add(
        "err_delivery",
        "err_email_physical_conflict",
        "err_delivery email emails the electronic receipt; it does not go with return_receipt_format physical.",
      );
    }
  }
  if (options.certified && options.mail_class !== "standard") {
    issues.add(
      "mail_class",
      "mail_class_certified_conflict",
      `${options.mail_class} mail does not combine with certified; use mail_class standard or drop certified.`,
    );
  }
  if (options.signature_required && options.mail_class === "standard") {
    warnings.add(
      "signature_required",
      "option_ignored",
      "Signature on delivery applies to priority and express letters only; it was ignored for standard mail.",
    );
    options.signature_required = false;
  }
  applyRegisteredMail(options, context.destinations, issues, warnings);
  if (options.err_delivery === "email") {
    const to = errEmail ?? context.buyerEmail;
    if (to !== undefined) options.err_email = to;
  } else if (errEmail !== undefined) {
    warnings.add(
      "err_email",
      "err_email_unused",
      "err_email is only used when err_delivery is email; it was ignored.",
    );
  }
  return options;
}

import type { IssueList } from "./issues.ts";
import type { MailOptions } from "./mail-options.ts";

/**
 * Certified mail goes as US Certified Mail to US addresses and as international registered mail to every other
 * destination. Registered mail has no return receipt: certified_return_receipt is ignored for it, and with it the
 * receipt's format and its emailing; restricted delivery is sold with US Certified Mail only.
 */
export function travelsRegistered(certified: boolean, destinationCountry: string): boolean {
  return certified && destinationCountry !== "US";
}

/**
 * Makes the options of a certified order say what happens to its pieces abroad (`destinations`: the country of each
 * recipient, or of each valid campaign row). When every piece travels registered, certified_return_receipt,
 * return_receipt_format physical and err_delivery email are set back to their defaults, each with an
 * option_ignored warning; when only some do, certified_return_receipt stays for the US pieces with a warning.
 * restricted_delivery is refused (restricted_delivery_unavailable) as soon as one piece travels registered.
 * Runs after the dependency rules, so the options it changes were consistent as sent.
 */
export function applyRegisteredMail(
  options: MailOptions,
  destinations: readonly string[],
  issues: IssueList,
  warnings: IssueList,
): void {
  const abroad = [
    ...new Set(destinations.filter((country) => travelsRegistered(options.certified, country))),
  ];
  if (abroad.length === 0) return;
  const all = destinations.every((country) => country !== "US");
  const where = all
    ? `Certified mail to ${abroad.join(", ")} travels as registered mail`
    : `Certified mail to the recipients outside the US (${abroad.join(", ")}) travels as registered mail`;

  if (options.restricted_delivery) {
    issues.add(
      "restricted_delivery",
      "restricted_delivery_unavailable",
      `${where}; restricted delivery is sold with US Certified Mail only. Drop restricted_delivery${all ? "" : " or mail only to US recipients"}.`,
    );
  }
  if (!all) {
    if (options.certified_return_receipt) {
      warnings.add(
        "certified_return_receipt",
        "option_ignored",
        `${where}, which has no return receipt; those pieces are mailed without one.`,
      );
    }
    return;
  }
  if (options.certified_return_receipt) {
    warnings.add(
      "certified_return_receipt",
      "option_ignored",
      `${where}, which has no return receipt; certified_return_receipt was ignored.`,
    );
    options.certified_return_receipt = false;
  }
  if (options.return_receipt_format !== "electronic") {
    warnings.add(
      "return_receipt_format",
      "option_ignored",
      `${where}, which has no return receipt; return_receipt_format ${options.return_receipt_format} was ignored.`,
    );
    options.return_receipt_format = "electronic";
  }
  if (options.err_delivery !== "manual") {
    warnings.add(
      "err_delivery",
      "option_ignored",
      `${where}, which has no return receipt to email; err_delivery ${options.err_delivery} was ignored.`,
    );
    options.err_delivery = "manual";
  }
}

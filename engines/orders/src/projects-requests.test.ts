import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ALLOWED_COUNTRIES } from "./countries.ts";
import * as entry from "./index.ts";
import { ISSUE_CODES, type Issue, WARNING_CODES } from "./issues.ts";
import { DEFAULT_OPTIONS } from "./mail-options.ts";
import { PROJECTS_ADDRESS_ALIASES, parseProjectsAddress } from "./projects-address.ts";
import { PROJECTS_ISSUE_CODES, type ProjectsParse } from "./projects-issues.ts";
import { parseCreateOrderBody } from "./projects-order-body.ts";
import {
  PROJECTS_DESTINATIONS,
  parseLetterQuoteRequest,
  parsePostcardQuoteRequest,
} from "./projects-requests.ts";

const workspace = { standaloneAddressPage: false };
const doc = { document_id: "doc_123" };

function issuesOf<T>(result: ProjectsParse<T>): { path: string; code: string }[] {
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

function parsedValue<T>(result: ProjectsParse<T>): T {
  if (!result.ok) throw new Error(`expected a valid request, got ${JSON.stringify(result.issues)}`);
  return result.value;
}

const letter = (patch: Record<string, unknown>, context = workspace) =>
  parseLetterQuoteRequest({ ...doc, ...patch }, context);
const letterIssues = (patch: Record<string, unknown>) => issuesOf(letter(patch));
const postcard = (patch: Record<string, unknown>) =>
  parsePostcardQuoteRequest({ ...doc, postcard_size: "4x6", ...patch });

const usAddress = {
  name: "Grace Hopper",
  line1: "1600 Pennsylvania Ave NW",
  city: "Washington",
  state: "DC",
  postal_code: "20500",
};
const address = (patch: Record<string, unknown>, rules: { maxNameLength?: number } = {}) =>
  parseProjectsAddress({ ...usAddress, ...patch }, "recipient", rules);

const order = (patch: Record<string, unknown>, context: { maxNameLength?: number } = {}) =>
  parseCreateOrderBody({ quote_id: "quote_1", recipient: usAddress, ...patch }, context);

describe("package entry", () => {
  it("exports the Projects API parsers", () => {
    expect([
      entry.parseLetterQuoteRequest,
      entry.parsePostcardQuoteRequest,
      entry.parseProjectsAddress,
      entry.parseCreateOrderBody,
    ]).toEqual([
      parseLetterQuoteRequest,
      parsePostcardQuoteRequest,
      parseProjectsAddress,
      parseCreateOrderBody,
    ]);
    expect(entry.PROJECTS_ISSUE_CODES).toContain("conflicting_alias");
  });
});

describe("letter quote request: fields and defaults", () => {
  it("applies every default: first class, US to US, no proof mail, the workspace's address page setting", () => {
    expect(parsedValue(letter({}))).toEqual({
      document_id: "doc_123",
      destination: "US",
      origin: "US",
      options: { ...DEFAULT_OPTIONS },
      standalone_address_page: false,
      proof_mail: "none",
    });
  });

  it("standalone_address_page comes from the workspace unless sent", () => {
    expect(parsedValue(letter({}, { standaloneAddressPage: true })).standalone_address_page).toBe(true);
    expect(
      parsedValue(letter({ standalone_address_page: false }, { standaloneAddressPage: true }))
        .standalone_address_page,
    ).toBe(false);
    expect(
      parsedValue(letter({ standalone_address_page: true }, { standaloneAddressPage: false }))
        .standalone_address_page,
    ).toBe(true);
  });

  it("keeps the options as sent", () => {
    const value = parsedValue(letter({ color: true, double_sided: false, page_count: 3 }));
    expect(value.page_count).toBe(3);
    expect(value.options).toMatchObject({ color: true, double_sided: false });
  });

  it.each([
    ["standard", "standard"],
    ["carrier_first_class", "standard"],
    ["usps_first_class", "standard"],
    ["priority", "priority"],
    ["carrier_priority", "priority"],
    ["usps_priority", "priority"],
    ["express", "express"],
    ["carrier_express", "express"],
    ["usps_express", "express"],
  ])("mail_class %s is %s", (sent, mailClass) => {
    expect(parsedValue(letter({ mail_class: sent })).options.mail_class).toBe(mailClass);
  });

  it("refuses mail classes that are not one of the names, in any other case", () => {
    for (const sent of ["first_class", "Priority", "USPS_EXPRESS", ""]) {
      expect(letterIssues({ mail_class: sent })).toEqual([{ path: "mail_class", code: "invalid_enum" }]);
    }
  });

  it("checks document_id and page_count", () => {
    expect(issuesOf(parseLetterQuoteRequest({}, workspace))).toEqual([
      { path: "document_id", code: "required" },
    ]);
    expect(letterIssues({ document_id: "" })).toEqual([{ path: "document_id", code: "too_short" }]);
    expect(letterIssues({ document_id: "d".repeat(129) })).toEqual([
      { path: "document_id", code: "too_long" },
    ]);
    expect(parsedValue(letter({ document_id: "d".repeat(128) })).document_id).toHaveLength(128);
    expect(letterIssues({ document_id: 7 })).toEqual([{ path: "document_id", code: "invalid_type" }]);
    expect(letterIssues({ page_count: 0 })).toEqual([{ path: "page_count", code: "out_of_range" }]);
    expect(letterIssues({ page_count: 1.5 })).toEqual([{ path: "page_count", code: "invalid_type" }]);
    expect(letterIssues({ page_count: "2" })).toEqual([{ path: "page_count", code: "invalid_type" }]);
    expect(parsedValue(letter({ page_count: 1 })).page_count).toBe(1);
  });

  it("reports wrong types with the engine's codes and messages", () => {
    const result = letter({ color: "yes", return_receipt_format: "green" });
    expect(result.ok ? [] : result.issues).toEqual([
      { path: "color", code: "invalid_type", message: "color must be a boolean." },
      {
        path: "return_receipt_format",
        code: "invalid_enum",
        message: "return_receipt_format must be one of: electronic, physical.",
      },
    ]);
    expect(letterIssues({ err_email: "not-an-email" })).toEqual([
      { path: "err_email", code: "invalid_format" },
    ]);
  });

  it("refuses unknown fields, prototype keys included, without touching Object.prototype", () => {
    expect(letterIssues({ colour: true })).toEqual([{ path: "colour", code: "unknown_field" }]);
    const body = JSON.parse('{"document_id":"d","__proto__":{"certified":true},"constructor":1}');
    expect(issuesOf(parseLetterQuoteRequest(body, workspace))).toEqual([
      { path: "__proto__", code: "unknown_field" },
      { path: "constructor", code: "unknown_field" },
    ]);
    expect(({} as Record<string, unknown>).certified).toBeUndefined();
  });

  it("returns every issue at once", () => {
    expect(
      issuesOf(
        parseLetterQuoteRequest(
          { page_count: 0, color: 1, extra: 1, destination_country_code: "BR", signature_required: true },
          workspace,
        ),
      ),
    ).toEqual([
      { path: "document_id", code: "required" },
      { path: "page_count", code: "out_of_range" },
      { path: "color", code: "invalid_type" },
      { path: "extra", code: "unknown_field" },
      { path: "destination_country_code", code: "destination_country_not_supported" },
      { path: "signature_required", code: "signature_not_available" },
    ]);
  });
});

describe("letter quote request: countries", () => {
  it("supports exactly the destinations of spec 3", () => {
    expect([...PROJECTS_DESTINATIONS].sort()).toEqual(
      ["US", "CA", "AT", "BE", "CH", "DE", "ES", "FR", "GB", "IN", "LU", "NL"].sort(),
    );
  });

  it.each(PROJECTS_DESTINATIONS.map((code) => [code]))("accepts destination %s in any case", (code) => {
    expect(parsedValue(letter({ destination_country_code: code.toLowerCase() })).destination).toBe(code);
  });

  it("refuses other destinations and codes that are not 2 characters", () => {
    expect(letterIssues({ destination_country_code: "BR" })).toEqual([
      { path: "destination_country_code", code: "destination_country_not_supported" },
    ]);
    expect(letterIssues({ destination_country_code: "USA" })).toEqual([
      { path: "destination_country_code", code: "too_long" },
    ]);
    expect(letterIssues({ destination_country_code: "" })).toEqual([
      { path: "destination_country_code", code: "too_short" },
    ]);
    expect(letterIssues({ destination_country_code: 1 })).toEqual([
      { path: "destination_country_code", code: "invalid_type" },
    ]);
  });

  it("takes an origin among the allowed countries", () => {
    expect(parsedValue(letter({ origin_country_code: "de" })).origin).toBe("DE");
    for (const code of ALLOWED_COUNTRIES)
      expect(parsedValue(letter({ origin_country_code: code })).origin).toBe(code);
    expect(letterIssues({ origin_country_code: "JP" })).toEqual([
      { path: "origin_country_code", code: "origin_country_not_supported" },
    ]);
  });
});

describe("letter quote request: proof mail by destination", () => {
  it("is U.S. certified mail to US", () => {
    const value = parsedValue(letter({ certified: true }));
    expect([value.proof_mail, value.options.certified]).toEqual(["certified", true]);
  });

  it.each([["CA"], ["BE"], ["CH"], ["ES"], ["FR"]])("is registered mail to %s", (code) => {
    const value = parsedValue(letter({ certified: true, destination_country_code: code }));
    expect([value.proof_mail, value.options.certified]).toEqual(["registered", true]);
  });

  it.each([["DE"], ["AT"], ["GB"], ["IN"], ["LU"], ["NL"]])("is not available to %s", (code) => {
    expect(letterIssues({ certified: true, destination_country_code: code })).toEqual([
      { path: "certified", code: "proof_mail_not_available" },
    ]);
  });

  it("certified false is the same as leaving it out, anywhere", () => {
    expect(parsedValue(letter({ certified: false, destination_country_code: "DE" })).proof_mail).toBe("none");
  });

  it("takes the return receipt and its options with U.S. certified mail", () => {
    const value = parsedValue(
      letter({
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
        restricted_delivery: true,
      }),
    );
    expect(value.options).toMatchObject({
      certified: true,
      certified_return_receipt: true,
      return_receipt_format: "physical",
      restricted_delivery: true,
      err_delivery: "manual",
    });
    const emailed = parsedValue(
      letter({ certified: true, certified_return_receipt: true, err_delivery: "email", err_email: "a@b.co" }),
    );
    expect([emailed.options.err_delivery, emailed.options.err_email]).toEqual(["email", "a@b.co"]);
    const accountEmail = parsedValue(
      letter({ certified: true, certified_return_receipt: true, err_delivery: "email" }),
    );
    expect(accountEmail.options.err_email).toBeUndefined();
  });

  it("refuses the return receipt for Canada registered mail, also without certified", () => {
    expect(
      letterIssues({ certified: true, certified_return_receipt: true, destination_country_code: "CA" }),
    ).toEqual([{ path: "certified_return_receipt", code: "return_receipt_not_available" }]);
    expect(letterIssues({ certified_return_receipt: true, destination_country_code: "CA" })).toEqual([
      { path: "certified_return_receipt", code: "return_receipt_not_available" },
    ]);
  });

  it("refuses every receipt option outside the US, one issue per field", () => {
    expect(
      letterIssues({
        certified: true,
        certified_return_receipt: true,
        restricted_delivery: true,
        err_delivery: "email",
        err_email: "a@b.co",
        destination_country_code: "FR",
      }),
    ).toEqual([
      { path: "certified_return_receipt", code: "return_receipt_not_available" },
      { path: "restricted_delivery", code: "return_receipt_not_available" },
      { path: "err_delivery", code: "return_receipt_not_available" },
      { path: "err_email", code: "return_receipt_not_available" },
    ]);
    expect(
      letterIssues({
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
        destination_country_code: "CA",
      }),
    ).toEqual([
      { path: "certified_return_receipt", code: "return_receipt_not_available" },
      { path: "return_receipt_format", code: "return_receipt_not_available" },
    ]);
  });

  it("accepts receipt options sent with their default values abroad", () => {
    const value = parsedValue(
      letter({
        certified: true,
        certified_return_receipt: false,
        return_receipt_format: "electronic",
        restricted_delivery: false,
        err_delivery: "manual",
        destination_country_code: "CA",
      }),
    );
    expect(value.proof_mail).toBe("registered");
  });
});

describe("letter quote request: option dependencies", () => {
  it("certified_return_receipt needs certified", () => {
    expect(letterIssues({ certified_return_receipt: true })).toEqual([
      { path: "certified_return_receipt", code: "requires_certified" },
    ]);
  });

  it("receipt options need certified_return_receipt", () => {
    expect(
      letterIssues({ certified: true, return_receipt_format: "physical", restricted_delivery: true }),
    ).toEqual([
      { path: "return_receipt_format", code: "requires_certified_return_receipt" },
      { path: "restricted_delivery", code: "requires_certified_return_receipt" },
    ]);
  });

  it("err_delivery email does not go with physical receipts", () => {
    expect(
      letterIssues({
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
        err_delivery: "email",
      }),
    ).toEqual([{ path: "err_delivery", code: "err_email_physical_conflict" }]);
  });

  it("err_email without err_delivery email is refused, not ignored", () => {
    expect(letterIssues({ err_email: "a@b.co" })).toEqual([
      { path: "err_email", code: "err_email_requires_email_delivery" },
    ]);
  });

  it.each([["priority"], ["usps_priority"], ["express"], ["carrier_express"]])(
    "%s does not combine with certified",
    (mailClass) => {
      expect(letterIssues({ mail_class: mailClass, certified: true })).toEqual([
        { path: "mail_class", code: "mail_class_certified_conflict" },
      ]);
    },
  );

  it("signature_required is for U.S. priority and express letters only", () => {
    expect(
      parsedValue(letter({ mail_class: "priority", signature_required: true })).options.signature_required,
    ).toBe(true);
    expect(
      parsedValue(letter({ mail_class: "usps_express", signature_required: true })).options
        .signature_required,
    ).toBe(true);
    expect(letterIssues({ signature_required: true })).toEqual([
      { path: "signature_required", code: "signature_not_available" },
    ]);
    expect(letterIssues({ mail_class: "carrier_first_class", signature_required: true })).toEqual([
      { path: "signature_required", code: "signature_not_available" },
    ]);
    expect(
      letterIssues({ mail_class: "priority", signature_required: true, destination_country_code: "CA" }),
    ).toEqual([{ path: "signature_required", code: "signature_not_available" }]);
    expect(parsedValue(letter({ signature_required: false })).options.signature_required).toBe(false);
  });

  it("does not judge the signature on a mail class it refused", () => {
    expect(letterIssues({ mail_class: "Priority", signature_required: true })).toEqual([
      { path: "mail_class", code: "invalid_enum" },
    ]);
  });
});

describe("postcard quote request", () => {
  it("is first-class, color and double-sided", () => {
    expect(parsedValue(postcard({ page_count: 2 }))).toEqual({
      document_id: "doc_123",
      page_count: 2,
      postcard_size: "4x6",
      destination: "US",
      origin: "US",
      options: { ...DEFAULT_OPTIONS, color: true, double_sided: true, mail_class: "standard" },
    });
  });

  it.each([["4x6"], ["6x9"], ["11x6"]])("takes postcard_size %s", (size) => {
    expect(parsedValue(postcard({ postcard_size: size })).postcard_size).toBe(size);
  });

  it("needs a known postcard_size", () => {
    expect(issuesOf(parsePostcardQuoteRequest(doc))).toEqual([{ path: "postcard_size", code: "required" }]);
    expect(issuesOf(postcard({ postcard_size: "5x7" }))).toEqual([
      { path: "postcard_size", code: "invalid_enum" },
    ]);
  });

  it("accepts the options postcards are mailed with", () => {
    for (const mailClass of ["standard", "carrier_first_class", "usps_first_class"]) {
      expect(postcard({ mail_class: mailClass }).ok).toBe(true);
    }
    expect(
      postcard({ color: true, double_sided: true, certified: false, signature_required: false }).ok,
    ).toBe(true);
  });

  it.each<[string, unknown]>([
    ["certified", true],
    ["certified_return_receipt", true],
    ["return_receipt_format", "physical"],
    ["restricted_delivery", true],
    ["err_delivery", "email"],
    ["err_email", "a@b.co"],
    ["color", false],
    ["double_sided", false],
    ["mail_class", "priority"],
    ["mail_class", "usps_express"],
    ["signature_required", true],
    ["standalone_address_page", true],
  ])("refuses %s %s", (key, value) => {
    expect(issuesOf(postcard({ [key]: value }))).toEqual([
      { path: key, code: "option_not_available_for_postcards" },
    ]);
  });

  it("applies the country rules of letters", () => {
    expect(parsedValue(postcard({ destination_country_code: "gb" })).destination).toBe("GB");
    expect(issuesOf(postcard({ destination_country_code: "BR", origin_country_code: "XX" }))).toEqual([
      { path: "destination_country_code", code: "destination_country_not_supported" },
      { path: "origin_country_code", code: "origin_country_not_supported" },
    ]);
  });

  it("refuses unknown fields and wrong types", () => {
    expect(issuesOf(postcard({ size: "4x6", color: "yes" }))).toEqual([
      { path: "color", code: "invalid_type" },
      { path: "size", code: "unknown_field" },
    ]);
  });
});

describe("address object", () => {
  it("checks and normalises a US address", () => {
    expect(parsedValue(address({ state: "district of columbia", company: " Navy " }))).toEqual({
      name: "Grace Hopper",
      company: "Navy",
      address: {
        line1: "1600 Pennsylvania Ave NW",
        city: "Washington",
        state: "DC",
        zip: "20500",
        countryCode: "US",
      },
    });
  });

  const aliasCases = Object.entries(PROJECTS_ADDRESS_ALIASES).flatMap(([name, aliases]) =>
    aliases.map((alias): [string, string] => [alias, name]),
  );
  it("covers every field with aliases", () => {
    expect(new Set(aliasCases.map(([, name]) => name))).toEqual(
      new Set(["line1", "line2", "city", "state", "postal_code", "countryCode"]),
    );
    expect(aliasCases).toHaveLength(21);
  });

  it.each(aliasCases)("reads %s as %s", (alias, name) => {
    const values: Record<string, [unknown, Record<string, unknown>]> = {
      line1: ["1 Main St", { line1: "1 Main St" }],
      line2: ["Suite 5", { line2: "Suite 5" }],
      city: ["Springfield", { city: "Springfield" }],
      state: ["Illinois", { state: "IL" }],
      postal_code: ["62701-1234", { zip: "62701-1234" }],
      countryCode: ["DE", { countryCode: "DE", state: "Berlin", zip: "10115" }],
    };
    const [sent, shown] = values[name] ?? [undefined, {}];
    const base: Record<string, unknown> =
      name === "countryCode" ? { ...usAddress, state: "Berlin", postal_code: "10115" } : { ...usAddress };
    delete base[name];
    const value = parsedValue(parseProjectsAddress({ ...base, [alias]: sent }, "recipient", {}));
    expect(value.address).toMatchObject(shown);
  });

  it("takes an alias sent with the same value as its field", () => {
    expect(parsedValue(address({ street1: usAddress.line1, zip: "20500" })).address.line1).toBe(
      usAddress.line1,
    );
  });

  it("refuses a field and an alias with different values", () => {
    expect(issuesOf(address({ street1: "1 Main St" }))).toEqual([
      { path: "recipient.line1", code: "conflicting_alias" },
    ]);
    expect(issuesOf(address({ postalCode: "20501", addressZip: "20500" }))).toEqual([
      { path: "recipient.postal_code", code: "conflicting_alias" },
    ]);
    expect(issuesOf(address({ countryCode: "US", country: "CA" }))).toEqual([
      { path: "recipient.countryCode", code: "conflicting_alias" },
    ]);
  });

  it("reports a field sent under an alias at its own name", () => {
    const { line1: _, ...noLine1 } = usAddress;
    expect(issuesOf(parseProjectsAddress({ ...noLine1, street1: 5 }, "sender", {}))).toEqual([
      { path: "sender.line1", code: "invalid_type" },
    ]);
    expect(issuesOf(address({ zip: "2050" }))).toEqual([
      { path: "recipient.postal_code", code: "conflicting_alias" },
    ]);
    const { postal_code: __, ...noPostal } = usAddress;
    expect(issuesOf(parseProjectsAddress({ ...noPostal, zip: "2050" }, "recipient", {}))).toEqual([
      { path: "recipient.postal_code", code: "invalid_postal_code" },
    ]);
  });

  it("applies the machine API's state, postal code and country rules", () => {
    expect(issuesOf(address({ state: undefined }))).toEqual([
      { path: "recipient.state", code: "state_required" },
    ]);
    expect(issuesOf(address({ state: "XX" }))).toEqual([{ path: "recipient.state", code: "invalid_state" }]);
    expect(issuesOf(address({ state: "ON", postal_code: "K1A 0A9" }))).toEqual([
      { path: "recipient.countryCode", code: "country_code_required" },
    ]);
    expect(
      parsedValue(address({ state: "Ontario", postal_code: "k1a0a9", countryCode: "ca" })).address,
    ).toMatchObject({ state: "ON", zip: "K1A 0A9", countryCode: "CA" });
    expect(issuesOf(address({ countryCode: "CAN" }))).toEqual([
      { path: "recipient.countryCode", code: "invalid_enum" },
    ]);
    expect(issuesOf(address({ countryCode: "BR" }))).toEqual([
      { path: "recipient.countryCode", code: "invalid_enum" },
    ]);
    expect(issuesOf(address({ line1: " ", city: undefined }))).toEqual([
      { path: "recipient.line1", code: "too_short" },
      { path: "recipient.city", code: "required" },
    ]);
  });

  it("limits the name to 255 characters, or to the route's limit, and never shortens it", () => {
    const name40 = "N".repeat(40);
    expect(parsedValue(address({ name: name40 }, { maxNameLength: 40 })).name).toBe(name40);
    expect(issuesOf(address({ name: `${name40}x` }, { maxNameLength: 40 }))).toEqual([
      { path: "recipient.name", code: "name_too_long" },
    ]);
    expect(parsedValue(address({ name: "N".repeat(255) })).name).toHaveLength(255);
    expect(issuesOf(address({ name: "N".repeat(256) }))).toEqual([
      { path: "recipient.name", code: "name_too_long" },
    ]);
    expect(issuesOf(address({ name: "N".repeat(256) }, { maxNameLength: 300 }))).toEqual([
      { path: "recipient.name", code: "name_too_long" },
    ]);
  });

  it("checks name and company", () => {
    expect(issuesOf(address({ name: undefined }))).toEqual([{ path: "recipient.name", code: "required" }]);
    expect(issuesOf(address({ name: "  " }))).toEqual([{ path: "recipient.name", code: "too_short" }]);
    expect(issuesOf(address({ name: "Ada 🎉" }))).toEqual([
      { path: "recipient.name", code: "character_unsupported" },
    ]);
    expect(issuesOf(address({ company: "C".repeat(256) }))).toEqual([
      { path: "recipient.company", code: "too_long" },
    ]);
    expect(parsedValue(address({ company: " " })).company).toBeUndefined();
  });

  it("refuses unknown fields and values that are not an object", () => {
    expect(issuesOf(address({ email: "a@b.co" }))).toEqual([
      { path: "recipient.email", code: "unknown_field" },
    ]);
    for (const value of [null, [], "1 Main St", 5]) {
      expect(issuesOf(parseProjectsAddress(value, "recipient", {}))).toEqual([
        { path: "recipient", code: "invalid_type" },
      ]);
    }
    expect(issuesOf(parseProjectsAddress(undefined, "recipient", {}))).toEqual([
      { path: "recipient", code: "required" },
    ]);
  });
});

describe("create-order body", () => {
  it("reads quote, recipient, sender and metadata", () => {
    const value = parsedValue(order({ sender: { ...usAddress, name: "Ada" }, metadata: { customer: "42" } }));
    expect(value.quote_id).toBe("quote_1");
    expect(value.recipient.name).toBe("Grace Hopper");
    expect(value.sender?.name).toBe("Ada");
    expect(value.metadata).toEqual({ customer: "42" });
    const minimal = parsedValue(order({}));
    expect([minimal.metadata, "sender" in minimal]).toEqual([{}, false]);
  });

  it("needs quote_id and recipient", () => {
    expect(issuesOf(parseCreateOrderBody({}, {}))).toEqual([
      { path: "quote_id", code: "required" },
      { path: "recipient", code: "required" },
    ]);
    expect(issuesOf(order({ quote_id: 5 }))).toEqual([{ path: "quote_id", code: "invalid_type" }]);
    expect(issuesOf(order({ quote_id: "" }))).toEqual([{ path: "quote_id", code: "too_short" }]);
    expect(issuesOf(order({ quote_id: "q".repeat(129) }))).toEqual([{ path: "quote_id", code: "too_long" }]);
  });

  it("applies the route's name limit to both parties", () => {
    const long = "N".repeat(41);
    expect(
      issuesOf(
        order(
          { recipient: { ...usAddress, name: long }, sender: { ...usAddress, name: long } },
          { maxNameLength: 40 },
        ),
      ),
    ).toEqual([
      { path: "recipient.name", code: "name_too_long" },
      { path: "sender.name", code: "name_too_long" },
    ]);
    expect(order({ recipient: { ...usAddress, name: long } }).ok).toBe(true);
  });

  it("bounds metadata: 50 keys of 1 to 40 characters, string values of at most 500", () => {
    const keys = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]));
    expect(Object.keys(parsedValue(order({ metadata: keys(50) })).metadata)).toHaveLength(50);
    expect(issuesOf(order({ metadata: keys(51) }))).toEqual([{ path: "metadata", code: "invalid_metadata" }]);
    const key40 = "k".repeat(40);
    expect(parsedValue(order({ metadata: { [key40]: "v".repeat(500), empty: "" } })).metadata).toEqual({
      [key40]: "v".repeat(500),
      empty: "",
    });
    expect(issuesOf(order({ metadata: { [`${key40}k`]: "v", "": "v", a: "v".repeat(501) } }))).toEqual([
      { path: `metadata.${key40}k`, code: "invalid_metadata" },
      { path: 'metadata[""]', code: "invalid_metadata" },
      { path: "metadata.a", code: "invalid_metadata" },
    ]);
  });

  it("refuses metadata values that are not strings", () => {
    expect(issuesOf(order({ metadata: { n: 1, b: true, z: null, o: {}, l: [] } }))).toEqual(
      ["n", "b", "z", "o", "l"].map((key) => ({ path: `metadata.${key}`, code: "invalid_metadata" })),
    );
    for (const metadata of [[], "x", 1, null]) {
      expect(issuesOf(order({ metadata }))).toEqual([{ path: "metadata", code: "invalid_type" }]);
    }
  });

  it("keeps a __proto__ metadata key as data", () => {
    const body = JSON.parse(
      `{"quote_id":"q","recipient":${JSON.stringify(usAddress)},"metadata":{"__proto__":"x","a.b":"y"}}`,
    );
    const metadata = parsedValue(parseCreateOrderBody(body, {})).metadata;
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(metadata["a.b"]).toBe("y");
  });

  it("reports every issue at once, with unknown fields", () => {
    expect(
      issuesOf(
        parseCreateOrderBody(
          {
            quote: "q",
            recipient: { ...usAddress, state: undefined },
            sender: { ...usAddress, street1: "x" },
            metadata: { a: 1 },
          },
          {},
        ),
      ),
    ).toEqual([
      { path: "quote", code: "unknown_field" },
      { path: "quote_id", code: "required" },
      { path: "recipient.state", code: "state_required" },
      { path: "sender.line1", code: "conflicting_alias" },
      { path: "metadata.a", code: "invalid_metadata" },
    ]);
  });
});

describe("hostile input", () => {
  const deep: unknown[] = [];
  let cursor = deep;
  for (let i = 0; i < 10_000; i++) {
    const next: unknown[] = [];
    cursor.push(next);
    cursor = next;
  }
  const hostile: [string, unknown][] = [
    ["null", null],
    ["undefined", undefined],
    ["zero", 0],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["a bigint", 10n],
    ["a symbol", Symbol("x")],
    ["a function", () => 1],
    ["true", true],
    ["an empty string", ""],
    ["a huge string", "x".repeat(2_000_000)],
    ["an empty array", []],
    ["an array of objects", [{ document_id: "d" }]],
    ["a deep array", deep],
    ["__proto__ as data", JSON.parse('{"__proto__":{"polluted":true}}')],
    ["constructor as data", { constructor: { prototype: { polluted: true } } }],
    ["a null-prototype object", Object.create(null)],
    [
      "huge values",
      {
        document_id: "d".repeat(1_000_000),
        err_email: `${"a".repeat(1_000_000)}@b`,
        name: "n".repeat(1_000_000),
      },
    ],
  ];
  const parsers: [string, (value: unknown) => ProjectsParse<unknown>][] = [
    ["letter quote", (value) => parseLetterQuoteRequest(value, workspace)],
    ["postcard quote", (value) => parsePostcardQuoteRequest(value)],
    ["address", (value) => parseProjectsAddress(value, "recipient", { maxNameLength: 40 })],
    ["create order", (value) => parseCreateOrderBody(value, {})],
  ];
  const known = new Set<string>([...ISSUE_CODES, ...PROJECTS_ISSUE_CODES]);

  function expectRefused(result: ProjectsParse<unknown>): void {
    expect(result.ok).toBe(false);
    const issues: Issue[] = result.ok ? [] : result.issues;
    expect(issues.length).toBeGreaterThan(0);
    for (const issue of issues) expectWellFormed(issue);
  }

  function expectWellFormed(issue: Issue): void {
    expect(typeof issue.path).toBe("string");
    expect(known.has(issue.code)).toBe(true);
    expect(WARNING_CODES).not.toContain(issue.code);
    expect(issue.message.length).toBeGreaterThan(0);
  }

  for (const [parserName, parse] of parsers) {
    it.each(hostile)(`${parserName}: %s gives issues without throwing`, (_, value) => {
      expectRefused(parse(value));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it.each(hostile)("a letter field set to %s is refused unless the field takes it", (_, value) => {
    for (const key of [
      "document_id",
      "page_count",
      "mail_class",
      "certified",
      "err_email",
      "destination_country_code",
    ]) {
      const result = parseLetterQuoteRequest({ ...doc, [key]: value }, workspace);
      const takesIt =
        (value === undefined && key !== "document_id") || (key === "certified" && value === true);
      if (takesIt) expect(result.ok).toBe(true);
      else expectRefused(result);
    }
  });

  it.each(hostile)("an address field and a metadata value set to %s is refused unless blank", (_, value) => {
    for (const key of ["name", "street1", "zip", "country", "company"]) {
      const result = parseCreateOrderBody(
        { quote_id: "q", recipient: { ...usAddress, [key]: value }, metadata: { k: value } },
        {},
      );
      // A blank company or country counts as absent, and a blank metadata value is a value.
      if (value === "" && (key === "company" || key === "country")) expect(result.ok).toBe(true);
      else expectRefused(result);
    }
  });

  it("any JSON body gives a well-formed answer", () => {
    const letterKeys = [
      "document_id",
      "page_count",
      "mail_class",
      "certified",
      "certified_return_receipt",
      "err_delivery",
      "signature_required",
      "destination_country_code",
      "__proto__",
    ];
    const values = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom("US", "ca", "priority", "usps_express", "email", "physical", true, false, 1, "doc"),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...letterKeys), values), fc.jsonValue(), (body, other) => {
        for (const [, parse] of parsers) {
          for (const input of [body, other]) {
            const result = parse(input);
            if (!result.ok) for (const issue of result.issues) expectWellFormed(issue);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

const letter = (patch: Record<string, unknown> = {}) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.letter),
  ...patch,
});
const postcard = (patch: Record<string, unknown> = {}) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.postcard),
  ...patch,
});
const proof = { certified: true, certified_return_receipt: true };

function issuesOf(body: unknown) {
  const result = validateOrderRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

function accepted(body: unknown) {
  const result = validateOrderRequest(body);
  if (!result.ok) throw new Error(`expected a valid order, got ${JSON.stringify(result.issues)}`);
  return {
    options: result.order.options,
    warnings: result.warnings.map(({ path, code }) => ({ path, code })),
  };
}

describe("option types", () => {
  it("booleans and enums are checked by the schema", () => {
    expect(issuesOf(letter({ color: "yes" }))).toEqual([{ path: "color", code: "invalid_type" }]);
    expect(issuesOf(letter({ mail_class: "first" }))).toEqual([{ path: "mail_class", code: "invalid_enum" }]);
    expect(issuesOf(letter({ ...proof, return_receipt_format: "green" }))).toEqual([
      { path: "return_receipt_format", code: "invalid_enum" },
    ]);
    expect(issuesOf(letter({ err_delivery: "fax" }))).toEqual([
      { path: "err_delivery", code: "invalid_enum" },
    ]);
  });
  it("the enum message lists the allowed values", () => {
    const result = validateOrderRequest(letter({ mail_class: "first" }));
    expect(result.ok ? "" : result.issues[0]?.message).toContain("standard, priority, express");
  });
});

describe("proof-mail dependencies", () => {
  it("certified_return_receipt requires certified", () => {
    expect(issuesOf(letter({ certified_return_receipt: true }))).toEqual([
      { path: "certified_return_receipt", code: "requires_certified" },
    ]);
  });
  it("return_receipt_format physical requires certified_return_receipt", () => {
    expect(issuesOf(letter({ certified: true, return_receipt_format: "physical" }))).toEqual([
      { path: "return_receipt_format", code: "requires_certified_return_receipt" },
    ]);
  });
  it("an option sent with its default value needs no prerequisite", () => {
    const defaults = {
      return_receipt_format: "electronic",
      restricted_delivery: false,
      err_delivery: "manual",
      certified_return_receipt: false,
      signature_required: false,
    };
    for (const [key, value] of Object.entries(defaults)) {
      const { options, warnings } = accepted(letter({ [key]: value }));
      expect(options[key as keyof typeof options], key).toBe(value);
      expect(warnings).toEqual([]);
    }
    expect(accepted(letter({ certified: true, ...defaults })).options).toMatchObject({
      certified: true,
      ...defaults,
    });
  });
  it("restricted_delivery requires certified_return_receipt", () => {
    expect(issuesOf(letter({ certified: true, restricted_delivery: true }))).toEqual([
      { path: "restricted_delivery", code: "requires_certified_return_receipt" },
    ]);
    accepted(letter({ restricted_delivery: false }));
  });
  it("err_delivery email requires certified_return_receipt", () => {
    expect(issuesOf(letter({ certified: true, err_delivery: "email" }))).toEqual([
      { path: "err_delivery", code: "requires_certified_return_receipt" },
    ]);
  });
  it("err_delivery email does not go with physical receipts", () => {
    expect(issuesOf(letter({ ...proof, return_receipt_format: "physical", err_delivery: "email" }))).toEqual([
      { path: "err_delivery", code: "err_email_physical_conflict" },
    ]);
  });
  it("priority and express do not combine with certified", () => {
    for (const mail_class of ["priority", "express"]) {
      expect(issuesOf(letter({ certified: true, mail_class }))).toEqual([
        { path: "mail_class", code: "mail_class_certified_conflict" },
      ]);
      accepted(letter({ mail_class }));
    }
  });
  it("accepts the full proof-mail set", () => {
    const { options, warnings } = accepted(
      letter({
        ...proof,
        return_receipt_format: "electronic",
        restricted_delivery: true,
        err_delivery: "email",
      }),
    );
    expect(warnings).toEqual([]);
    expect(options).toMatchObject({ ...proof, restricted_delivery: true, err_delivery: "email" });
  });
});

describe("err_email", () => {
  it("is an email address of at most 256 characters", () => {
    expect(issuesOf(letter({ ...proof, err_delivery: "email", err_email: "x" }))).toEqual([
      { path: "err_email", code: "invalid_format" },
    ]);
    expect(
      issuesOf(letter({ ...proof, err_delivery: "email", err_email: `${"a".repeat(250)}@example.com` })),
    ).toEqual([{ path: "err_email", code: "too_long" }]);
  });
  it("defaults to buyer_email when the receipt is emailed", () => {
    expect(accepted(letter({ ...proof, err_delivery: "email" })).options.err_email).toBe("ada@example.com");
    expect(
      accepted(letter({ ...proof, err_delivery: "email", err_email: "legal@example.com" })).options.err_email,
    ).toBe("legal@example.com");
  });
  it("is unused, with a warning, when err_delivery is not email", () => {
    const { options, warnings } = accepted(letter({ err_email: "legal@example.com" }));
    expect(options.err_email).toBeUndefined();
    expect(warnings).toEqual([{ path: "err_email", code: "err_email_unused" }]);
  });
});

describe("signature_required", () => {
  it("applies to priority and express letters", () => {
    const { options, warnings } = accepted(letter({ mail_class: "priority", signature_required: true }));
    expect(options.signature_required).toBe(true);
    expect(warnings).toEqual([]);
  });
  it("is ignored with a warning for standard mail", () => {
    const { options, warnings } = accepted(letter({ signature_required: true }));
    expect(options.signature_required).toBe(false);
    expect(warnings).toEqual([{ path: "signature_required", code: "option_ignored" }]);
  });
  it("is ignored with a warning for postcards", () => {
    const { options, warnings } = accepted(postcard({ mail_class: "express", signature_required: true }));
    expect(options.signature_required).toBe(false);
    expect(warnings).toEqual([
      { path: "mail_class", code: "option_normalised" },
      { path: "signature_required", code: "option_ignored" },
    ]);
  });
});

describe("postcard options", () => {
  it("are normalised to standard, color, double-sided, no proof mail, with a warning per change", () => {
    const { options, warnings } = accepted(
      postcard({
        double_sided: false,
        color: false,
        mail_class: "priority",
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "physical",
        restricted_delivery: true,
        err_delivery: "email",
      }),
    );
    expect(options).toEqual({
      double_sided: true,
      color: true,
      mail_class: "standard",
      certified: false,
      certified_return_receipt: false,
      return_receipt_format: "electronic",
      restricted_delivery: false,
      err_delivery: "manual",
      signature_required: false,
    });
    expect(warnings).toEqual(
      [
        "double_sided",
        "color",
        "mail_class",
        "certified",
        "certified_return_receipt",
        "return_receipt_format",
        "restricted_delivery",
        "err_delivery",
      ].map((path) => ({ path, code: "option_normalised" })),
    );
  });
  it("values that already match raise no warning", () => {
    const { warnings } = accepted(
      postcard({
        double_sided: true,
        color: true,
        mail_class: "standard",
        certified: false,
        err_delivery: "manual",
      }),
    );
    expect(warnings).toEqual([]);
  });
  it("err_email on a postcard is unused", () => {
    expect(accepted(postcard({ err_email: "a@example.com" })).warnings).toEqual([
      { path: "err_email", code: "err_email_unused" },
    ]);
  });
});

describe("certified mail abroad travels registered", () => {
  const paris = { line1: "1 Rue de Rivoli", city: "Paris", zip: "75001", countryCode: "FR" };
  const toParis = (patch: Record<string, unknown>) => letter({ recipient_address_manual: paris, ...patch });

  it("ignores the return receipt, with a warning, and says so in the options", () => {
    const { options, warnings } = accepted(toParis(proof));
    expect(options).toMatchObject({ certified: true, certified_return_receipt: false });
    expect(warnings).toEqual([{ path: "certified_return_receipt", code: "option_ignored" }]);
  });
  it("also for a recipient found by address search", () => {
    const { options, warnings } = accepted(
      letter({
        ...proof,
        recipient_address_type: "Address",
        recipient_address_manual: undefined,
        recipient_address_id: "CA|1",
        recipient_address_text: "150 Wellington St, Ottawa ON K1A 0A9",
      }),
    );
    expect(options.certified_return_receipt).toBe(false);
    expect(warnings).toEqual([{ path: "certified_return_receipt", code: "option_ignored" }]);
  });
  it("ignores the receipt's format and its emailing along with it", () => {
    const physical = accepted(toParis({ ...proof, return_receipt_format: "physical" }));
    expect(physical.options).toMatchObject({
      certified_return_receipt: false,
      return_receipt_format: "electronic",
    });
    expect(physical.warnings).toEqual([
      { path: "certified_return_receipt", code: "option_ignored" },
      { path: "return_receipt_format", code: "option_ignored" },
    ]);
    const emailed = accepted(toParis({ ...proof, err_delivery: "email", err_email: "legal@example.com" }));
    expect(emailed.options).toMatchObject({ certified_return_receipt: false, err_delivery: "manual" });
    expect(emailed.options.err_email).toBeUndefined();
    expect(emailed.warnings).toEqual([
      { path: "certified_return_receipt", code: "option_ignored" },
      { path: "err_delivery", code: "option_ignored" },
      { path: "err_email", code: "err_email_unused" },
    ]);
  });
  it("refuses restricted delivery, which is sold with US Certified Mail only", () => {
    expect(issuesOf(toParis({ ...proof, restricted_delivery: true }))).toEqual([
      { path: "restricted_delivery", code: "restricted_delivery_unavailable" },
    ]);
  });
  it("keeps the receipt of certified mail within the US, and of uncertified mail abroad nothing changes", () => {
    expect(accepted(letter(proof)).options.certified_return_receipt).toBe(true);
    expect(accepted(toParis({})).warnings).toEqual([]);
  });
  it("a campaign with some rows abroad keeps the receipt for the US rows, with a warning", () => {
    const body = {
      ...structuredClone(EXAMPLE_ORDER_REQUESTS.bulk),
      ...proof,
      bulk: {
        ...EXAMPLE_ORDER_REQUESTS.bulk.bulk,
        csv_content:
          "recipient_name,line1,city,state,zip,country,venue\nA,1 Main St,Springfield,IL,62701,US,park\nB,1 Rue,Paris,,75001,FR,park",
      },
    };
    const { options, warnings } = accepted(body);
    expect(options.certified_return_receipt).toBe(true);
    expect(warnings).toEqual([{ path: "certified_return_receipt", code: "option_ignored" }]);
    expect(issuesOf({ ...body, restricted_delivery: true })).toEqual([
      { path: "restricted_delivery", code: "restricted_delivery_unavailable" },
    ]);
  });
});

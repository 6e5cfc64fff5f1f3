import { describe, expect, it } from "vitest";
import { FlowersError } from "./errors.ts";
import { EXAMPLE_FLOWER_LETTER_REQUEST } from "./examples.ts";
import { FLOWER_ISSUE_CODES } from "./issue-codes.ts";
import { parseFlowerLetterRequest, validateFlowerLetterRequest } from "./validate-flower-letter-request.ts";

type Body = Record<string, unknown>;
const example = (): Body => structuredClone(EXAMPLE_FLOWER_LETTER_REQUEST) as Body;
const withTop = (patch: Body): Body => ({ ...example(), ...patch });
const withRecipient = (patch: Body): Body => ({
  ...example(),
  recipient: { ...EXAMPLE_FLOWER_LETTER_REQUEST.recipient, ...patch },
});
const withCustomer = (patch: Body): Body => ({
  ...example(),
  customer: { ...EXAMPLE_FLOWER_LETTER_REQUEST.customer, ...patch },
});
const without = (key: string): Body => {
  const body = example();
  delete body[key];
  return body;
};
const issuesOf = (body: unknown) => {
  const result = validateFlowerLetterRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
};

describe("validateFlowerLetterRequest: the example", () => {
  it("accepts the example and returns it with every default applied", () => {
    const result = validateFlowerLetterRequest(EXAMPLE_FLOWER_LETTER_REQUEST);
    expect(result).toEqual({
      ok: true,
      request: expect.objectContaining({ product_code: "red-roses-dozen" }),
    });
  });

  it("defaults allow_substitutions to true, countries to US and the customer email to buyer_email", () => {
    const body = without("allow_substitutions");
    body.customer = { name: "Grace Hopper" };
    const { country: _, ...recipient } = EXAMPLE_FLOWER_LETTER_REQUEST.recipient;
    body.recipient = recipient;
    const result = validateFlowerLetterRequest(body);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.request.allow_substitutions).toBe(true);
    expect(result.request.customer).toEqual({
      name: "Grace Hopper",
      email: "grace@example.com",
      country: "US",
    });
    expect(result.request.recipient.country).toBe("US");
    const refused = validateFlowerLetterRequest(withTop({ allow_substitutions: false }));
    expect(refused.ok && refused.request.allow_substitutions).toBe(false);
  });

  it("keeps buyer_name optional", () => {
    const result = validateFlowerLetterRequest(without("buyer_name"));
    expect(result.ok && result.request.buyer_name).toBeUndefined();
  });
});

describe("validateFlowerLetterRequest: the card note", () => {
  it("takes 200 characters, counting an emoji as one, and refuses 201", () => {
    expect(issuesOf(withTop({ note: "x".repeat(200) }))).toEqual([]);
    expect(issuesOf(withTop({ note: "🌹".repeat(200) }))).toEqual([]);
    expect(issuesOf(withTop({ note: "x".repeat(201) }))).toEqual([{ path: "note", code: "too_long" }]);
  });

  it("requires a note that is not empty or blank", () => {
    expect(issuesOf(without("note"))).toEqual([{ path: "note", code: "required" }]);
    expect(issuesOf(withTop({ note: "" }))).toEqual([{ path: "note", code: "too_short" }]);
    expect(issuesOf(withTop({ note: "   \n " }))).toEqual([{ path: "note", code: "too_short" }]);
  });
});

describe("validateFlowerLetterRequest: required fields and shapes", () => {
  it("requires request_id, buyer_email, zipcode, product_code, delivery_date, customer and recipient", () => {
    for (const key of [
      "request_id",
      "buyer_email",
      "zipcode",
      "product_code",
      "delivery_date",
      "customer",
      "recipient",
    ]) {
      expect(issuesOf(without(key))).toEqual([{ path: key, code: "required" }]);
    }
  });

  it("rejects unknown properties at the top and in both parties", () => {
    expect(issuesOf(withTop({ gift_wrap: true }))).toEqual([{ path: "gift_wrap", code: "unknown_property" }]);
    expect(issuesOf(withRecipient({ address2: "Apt 4" }))).toEqual([
      { path: "recipient.address2", code: "unknown_property" },
    ]);
    expect(issuesOf(withCustomer({ company: "Navy" }))).toEqual([
      { path: "customer.company", code: "unknown_property" },
    ]);
  });

  it("checks formats: uuid, email, a calendar date in YYYY-MM-DD, product codes and countries", () => {
    expect(issuesOf(withTop({ request_id: "order-1" }))).toEqual([
      { path: "request_id", code: "invalid_format" },
    ]);
    expect(issuesOf(withTop({ buyer_email: "grace" }))).toEqual([
      { path: "buyer_email", code: "invalid_format" },
    ]);
    for (const date of ["2026-02-30", "06/05/2026", "2026-5-6", "2026-05-06T10:00:00Z"]) {
      expect(issuesOf(withTop({ delivery_date: date }))).toEqual([
        { path: "delivery_date", code: "invalid_format" },
      ]);
    }
    expect(issuesOf(withTop({ product_code: "red roses" }))).toEqual([
      { path: "product_code", code: "invalid_format" },
    ]);
    expect(issuesOf(withRecipient({ country: "usa" }))).toEqual([
      { path: "recipient.country", code: "invalid_format" },
    ]);
    expect(issuesOf(withCustomer({ email: "nope" }))).toEqual([
      { path: "customer.email", code: "invalid_format" },
    ]);
  });

  it("writes readable messages for patterns", () => {
    const result = validateFlowerLetterRequest(withRecipient({ country: "us", phone: "call me please" }));
    const messages = result.ok ? {} : Object.fromEntries(result.issues.map((i) => [i.path, i.message]));
    expect(messages).toEqual({
      "recipient.country": 'country must be an upper-case ISO 3166-1 alpha-2 country code, e.g. "US".',
      "recipient.phone":
        "phone must be a phone number: digits with an optional leading +, spaces, dots, dashes and brackets.",
    });
  });

  it("checks types and bounds of every party field", () => {
    expect(issuesOf(withTop({ allow_substitutions: "yes" }))).toEqual([
      { path: "allow_substitutions", code: "invalid_type" },
    ]);
    expect(issuesOf(withRecipient({ name: "n".repeat(257) }))).toEqual([
      { path: "recipient.name", code: "too_long" },
    ]);
    expect(issuesOf(withRecipient({ city: "c".repeat(129) }))).toEqual([
      { path: "recipient.city", code: "too_long" },
    ]);
    expect(issuesOf(withRecipient({ state: "s".repeat(61) }))).toEqual([
      { path: "recipient.state", code: "too_long" },
    ]);
    expect(issuesOf(withTop({ zipcode: "1".repeat(21) }))).toEqual([
      { path: "zipcode", code: "too_long" },
      { path: "recipient.zipcode", code: "zipcode_mismatch" },
    ]);
    expect(issuesOf(withTop({ customer: "Grace" }))).toEqual([{ path: "customer", code: "invalid_type" }]);
    expect(issuesOf([])).toEqual([{ path: "", code: "invalid_type" }]);
    expect(issuesOf(null)).toEqual([{ path: "", code: "invalid_type" }]);
  });

  it("requires the recipient's name, phone, address1, city, state and zipcode, and only the customer's name", () => {
    for (const key of ["name", "phone", "address1", "city", "state", "zipcode"]) {
      const recipient: Body = { ...EXAMPLE_FLOWER_LETTER_REQUEST.recipient };
      delete recipient[key];
      expect(issuesOf(withTop({ recipient }))).toEqual([{ path: `recipient.${key}`, code: "required" }]);
    }
    expect(issuesOf(withTop({ customer: {} }))).toEqual([{ path: "customer.name", code: "required" }]);
  });
});

describe("validateFlowerLetterRequest: rules across fields", () => {
  it("refuses blank names and address lines", () => {
    expect(issuesOf(withRecipient({ address1: "  " }))).toEqual([
      { path: "recipient.address1", code: "too_short" },
    ]);
    expect(issuesOf(withCustomer({ name: "\t" }))).toEqual([{ path: "customer.name", code: "too_short" }]);
    expect(issuesOf(withTop({ buyer_name: " " }))).toEqual([{ path: "buyer_name", code: "too_short" }]);
  });

  it("refuses phone numbers that cannot be numbers of the party's country", () => {
    expect(issuesOf(withRecipient({ phone: "(12) 34-56" }))).toEqual([
      { path: "recipient.phone", code: "invalid_format" },
    ]);
    expect(issuesOf(withCustomer({ phone: "+1 234 567 890 123 456" }))).toEqual([
      { path: "customer.phone", code: "invalid_format" },
    ]);
    for (const phone of ["555.0100 12", "555-0100", "+999 1234567", "217 555 0142 5", "020 7946 0958"]) {
      expect(issuesOf(withRecipient({ phone })), phone).toEqual([
        { path: "recipient.phone", code: "invalid_format" },
      ]);
    }
    const result = validateFlowerLetterRequest(withCustomer({ phone: "+999 1234567" }));
    expect(result.ok ? [] : result.issues.map((i) => i.message)).toEqual([
      expect.stringContaining("customer.phone"),
    ]);
  });

  it.each(["(217) 555-0142", "217-555-0142", "217.555.0142", "2175550142", "+1 217 555 0142"])(
    "accepts the US phone number %s and keeps it in E.164",
    (phone) => {
      const result = validateFlowerLetterRequest(withRecipient({ phone }));
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      expect(result.request.recipient.phone).toBe("+12175550142");
    },
  );

  it("reads national numbers in the party's country and international ones anywhere", () => {
    const uk = validateFlowerLetterRequest({
      ...withRecipient({ phone: "+44 20 7946 0958" }),
      customer: { ...EXAMPLE_FLOWER_LETTER_REQUEST.customer, country: "GB", phone: "020 7946 0958" },
    });
    if (!uk.ok) throw new Error(JSON.stringify(uk.issues));
    expect(uk.request.recipient.phone).toBe("+442079460958");
    expect(uk.request.customer.phone).toBe("+442079460958");
    expect(issuesOf(withCustomer({ country: "GB", phone: "020 7946 0958 1" }))).toEqual([
      { path: "customer.phone", code: "invalid_format" },
    ]);
  });

  it("normalises the example's phone numbers to E.164", () => {
    const result = validateFlowerLetterRequest(EXAMPLE_FLOWER_LETTER_REQUEST);
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.request.customer.phone).toBe("+12025550143");
    expect(result.request.recipient.phone).toBe("+12125550100");
  });

  it("wants the recipient's ZIP to be the delivery ZIP, a ZIP+4 suffix aside", () => {
    expect(issuesOf(withRecipient({ zipcode: "10001" }))).toEqual([
      { path: "recipient.zipcode", code: "zipcode_mismatch" },
    ]);
    expect(issuesOf(withRecipient({ zipcode: "10118-0110" }))).toEqual([]);
  });

  it("collects every problem at once, with codes from the published list", () => {
    const result = validateFlowerLetterRequest({
      ...example(),
      note: "",
      extra: 1,
      recipient: { ...EXAMPLE_FLOWER_LETTER_REQUEST.recipient, zipcode: "94103", phone: "12" },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => i.path).sort()).toEqual([
      "extra",
      "note",
      "recipient.phone",
      "recipient.zipcode",
    ]);
    for (const issue of result.issues) {
      expect(FLOWER_ISSUE_CODES).toContain(issue.code);
      expect(issue.message.length).toBeGreaterThan(10);
    }
  });
});

describe("parseFlowerLetterRequest", () => {
  it("returns the request, or throws FlowersError flower_letter_invalid with every issue", () => {
    expect(parseFlowerLetterRequest(EXAMPLE_FLOWER_LETTER_REQUEST).recipient.name).toBe("Ada Lovelace");
    try {
      parseFlowerLetterRequest(withTop({ note: "x".repeat(201) }));
      throw new Error("expected a FlowersError");
    } catch (error) {
      expect(FlowersError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: "flower_letter_invalid",
        issues: [{ path: "note", code: "too_long" }],
      });
    }
  });
});

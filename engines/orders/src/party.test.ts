import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

const base = (patch: Record<string, unknown> = {}): Record<string, unknown> => {
  const body: Record<string, unknown> = { ...structuredClone(EXAMPLE_ORDER_REQUESTS.letter), ...patch };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
};

function issuesOf(body: unknown) {
  const result = validateOrderRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

function accepted(body: unknown) {
  const result = validateOrderRequest(body);
  if (!result.ok) throw new Error(`expected a valid order, got ${JSON.stringify(result.issues)}`);
  return result.order;
}

const US = { line1: "1 Main St", city: "Springfield", state: "IL", zip: "62701", countryCode: "US" };
const DE = { line1: "Unter den Linden 77", city: "Berlin", zip: "10117", countryCode: "DE" };
const byId = (party: "sender" | "recipient", id: string, text = "1 Main St, Springfield IL 62701") => ({
  [`${party}_address_type`]: "Address",
  [`${party}_address_manual`]: undefined,
  [`${party}_address_id`]: id,
  [`${party}_address_text`]: text,
});

describe("party names", () => {
  it("sender_name is required", () => {
    expect(issuesOf(base({ sender_name: undefined }))).toEqual([{ path: "sender_name", code: "required" }]);
  });
  it("recipient_name is required for a single order", () => {
    expect(issuesOf(base({ recipient_name: undefined }))).toEqual([
      { path: "recipient_name", code: "required" },
    ]);
  });
  it("names are 1 to 256 characters and not blank", () => {
    expect(issuesOf(base({ sender_name: "" }))).toEqual([{ path: "sender_name", code: "too_short" }]);
    expect(issuesOf(base({ recipient_name: "r".repeat(257) }))).toEqual([
      { path: "recipient_name", code: "too_long" },
    ]);
    expect(issuesOf(base({ recipient_name: "   " }))).toEqual([
      { path: "recipient_name", code: "too_short" },
    ]);
  });
});

describe("address strategy", () => {
  it("Address mode needs the address id", () => {
    expect(issuesOf(base({ ...byId("recipient", "US|1"), recipient_address_id: undefined }))).toEqual([
      { path: "recipient_address_id", code: "required" },
    ]);
  });
  it("Address mode needs the address text", () => {
    expect(issuesOf(base({ ...byId("recipient", "US|1"), recipient_address_text: undefined }))).toEqual([
      { path: "recipient_address_text", code: "required" },
    ]);
  });
  it("Address mode forbids the manual address", () => {
    expect(issuesOf(base({ ...byId("recipient", "US|1"), recipient_address_manual: US }))).toEqual([
      { path: "recipient_address_manual", code: "address_strategy_conflict" },
    ]);
  });
  it("Manual mode needs the manual address", () => {
    expect(issuesOf(base({ sender_address_manual: undefined }))).toEqual([
      { path: "sender_address_manual", code: "required" },
    ]);
  });
  it("Manual mode forbids the address id and text", () => {
    expect(issuesOf(base({ recipient_address_id: "US|1", recipient_address_text: "1 Main St" }))).toEqual([
      { path: "recipient_address_id", code: "address_strategy_conflict" },
      { path: "recipient_address_text", code: "address_strategy_conflict" },
    ]);
  });
  it("without a type, both strategies at once conflict", () => {
    expect(
      issuesOf(
        base({
          recipient_address_type: undefined,
          recipient_address_id: "US|1",
          recipient_address_text: "x",
        }),
      ),
    ).toEqual([
      { path: "recipient_address_id", code: "address_strategy_conflict" },
      { path: "recipient_address_text", code: "address_strategy_conflict" },
    ]);
  });
  it("without a type, Manual is assumed when a manual address is given", () => {
    const order = accepted(base({ sender_address_type: undefined }));
    expect(order.sender.address.type).toBe("Manual");
  });
  it("without a type and without a manual address, Address is assumed", () => {
    expect(issuesOf(base({ sender_address_type: undefined, sender_address_manual: undefined }))).toEqual([
      { path: "sender_address_id", code: "required" },
      { path: "sender_address_text", code: "required" },
    ]);
    const order = accepted(base({ ...byId("sender", "US|9"), sender_address_type: undefined }));
    expect(order.sender.address).toEqual({
      type: "Address",
      id: "US|9",
      text: "1 Main St, Springfield IL 62701",
    });
  });
  it("the address type is Address or Manual", () => {
    expect(issuesOf(base({ sender_address_type: "manual" }))).toEqual([
      { path: "sender_address_type", code: "invalid_enum" },
    ]);
  });
  it("a blank address text is refused", () => {
    expect(issuesOf(base(byId("recipient", "US|1", "  ")))).toEqual([
      { path: "recipient_address_text", code: "too_short" },
    ]);
  });
});

describe("address ids", () => {
  it("a malformed id is invalid_address_id", () => {
    for (const id of ["no-bar-here", "U|1", "ABCDE|1", "US|", "12|x"]) {
      expect(issuesOf(base(byId("recipient", id)))).toEqual([
        { path: "recipient_address_id", code: "invalid_address_id" },
      ]);
    }
  });
  it("the country of the id must be allowed", () => {
    for (const id of ["BR|Sao Paulo|1", "MEX|1", "ABCD|1"]) {
      expect(issuesOf(base(byId("recipient", id)))).toEqual([
        { path: "recipient_address_id", code: "address_country_not_allowed" },
      ]);
    }
  });
  it("alpha-2 in any case and alpha-3 codes name the country", () => {
    expect(accepted(base(byId("recipient", "ca|A1|x"))).recipient?.country).toBe("CA");
    expect(
      accepted(base({ ...byId("recipient", "GBR|x"), sender_address_manual: US })).recipient?.country,
    ).toBe("GB");
  });
});

describe("manual addresses", () => {
  it("takes no extra properties", () => {
    expect(issuesOf(base({ recipient_address_manual: { ...US, county: "Sangamon" } }))).toEqual([
      { path: "recipient_address_manual.county", code: "unknown_property" },
    ]);
  });
  it("line1, city and zip are required", () => {
    for (const key of ["line1", "city", "zip"] as const) {
      const { [key]: _, ...rest } = US;
      expect(issuesOf(base({ recipient_address_manual: rest }))).toEqual([
        { path: `recipient_address_manual.${key}`, code: "required" },
      ]);
    }
  });
  it("keeps to the length bounds", () => {
    const cases: [string, string, string][] = [
      ["line1", "l".repeat(257), "too_long"],
      ["line2", "", "too_short"],
      ["line2", "l".repeat(257), "too_long"],
      ["city", "c".repeat(129), "too_long"],
      ["state", "s".repeat(61), "too_long"],
      ["zip", "", "too_short"],
      ["zip", "1".repeat(21), "too_long"],
    ];
    for (const [key, value, code] of cases) {
      expect(issuesOf(base({ recipient_address_manual: { ...US, [key]: value } }))).toEqual([
        { path: `recipient_address_manual.${key}`, code },
      ]);
    }
  });
  it("refuses blank required lines", () => {
    expect(issuesOf(base({ recipient_address_manual: { ...US, line1: "   " } }))).toEqual([
      { path: "recipient_address_manual.line1", code: "too_short" },
    ]);
  });
  it("countryCode is an allowed country and defaults to US", () => {
    expect(issuesOf(base({ recipient_address_manual: { ...US, countryCode: "BR" } }))).toEqual([
      { path: "recipient_address_manual.countryCode", code: "invalid_enum" },
    ]);
    const { countryCode: _, ...noCountry } = US;
    const order = accepted(base({ recipient_address_manual: noCountry }));
    expect(order.recipient?.country).toBe("US");
    expect(order.recipient?.address).toMatchObject({ type: "Manual", countryCode: "US" });
  });
  it("accepts ES", () => {
    const es = { line1: "Gran Via 1", city: "Madrid", zip: "28013", countryCode: "ES" };
    expect(accepted(base({ recipient_address_manual: es })).recipient?.country).toBe("ES");
  });
  it("state is required for US addresses", () => {
    const { state: _, ...noState } = US;
    expect(issuesOf(base({ recipient_address_manual: noState }))).toEqual([
      { path: "recipient_address_manual.state", code: "state_required" },
    ]);
  });
  it("state is required for CA addresses", () => {
    const ca = { line1: "150 Wellington St", city: "Ottawa", zip: "K1A 0A9", countryCode: "CA" };
    expect(issuesOf(base({ recipient_address_manual: ca }))).toEqual([
      { path: "recipient_address_manual.state", code: "state_required" },
    ]);
    accepted(base({ recipient_address_manual: { ...ca, state: "ON" } }));
  });
  it("state is optional elsewhere", () => {
    expect(accepted(base({ recipient_address_manual: DE })).recipient?.address).toEqual({
      type: "Manual",
      ...DE,
    });
  });
  it("a US ZIP code is 12345 or 12345-6789", () => {
    for (const zip of ["1234", "123456", "12345-67", "ABCDE", "12345 6789"]) {
      expect(issuesOf(base({ recipient_address_manual: { ...US, zip } }))).toEqual([
        { path: "recipient_address_manual.zip", code: "invalid_postal_code" },
      ]);
    }
    accepted(base({ recipient_address_manual: { ...US, zip: "62701-1234" } }));
  });
  it("a Canadian postal code is A1A 1A1, normalised to upper case with a space", () => {
    const ca = { line1: "150 Wellington St", city: "Ottawa", state: "ON", countryCode: "CA" };
    for (const zip of ["K1A 0A", "D1A 0A9", "K1A-0A9X", "12345"]) {
      expect(issuesOf(base({ recipient_address_manual: { ...ca, zip } }))).toEqual([
        { path: "recipient_address_manual.zip", code: "invalid_postal_code" },
      ]);
    }
    const order = accepted(base({ recipient_address_manual: { ...ca, zip: "k1a0a9" } }));
    expect(order.recipient?.address).toMatchObject({ zip: "K1A 0A9" });
  });
  it("trims fields and drops a blank line2", () => {
    const order = accepted(base({ recipient_address_manual: { ...US, line1: " 1 Main St ", line2: "  " } }));
    expect(order.recipient?.address).toEqual({ type: "Manual", ...US });
  });
});

describe("countryCode of manual addresses", () => {
  it("a US manual sender may leave it out when the recipient is abroad", () => {
    const { countryCode: _, ...sender } = US;
    const order = accepted(base({ sender_address_manual: sender, recipient_address_manual: DE }));
    expect([order.sender.country, order.recipient?.country]).toEqual(["US", "DE"]);
  });
  it("a US manual recipient may leave it out when the sender, found by address search, is abroad", () => {
    const { countryCode: _, ...recipient } = US;
    const order = accepted(
      base({
        ...byId("sender", "GB|1", "10 Downing St, London SW1A 2AA"),
        recipient_address_manual: recipient,
      }),
    );
    expect([order.sender.country, order.recipient?.country]).toEqual(["GB", "US"]);
  });
  it("an address abroad without it is read as a US address and fails the US rules", () => {
    const { countryCode: _, ...berlin } = DE;
    expect(issuesOf(base({ recipient_address_manual: berlin }))).toEqual([
      { path: "recipient_address_manual.state", code: "state_required" },
    ]);
  });
  it("a Canadian address without it is country_code_required", () => {
    const ottawa = { line1: "150 Wellington St", city: "Ottawa", state: "ON", zip: "K1A 0A9" };
    expect(issuesOf(base({ recipient_address_manual: ottawa }))).toEqual([
      { path: "recipient_address_manual.countryCode", code: "country_code_required" },
    ]);
    accepted(base({ recipient_address_manual: { ...ottawa, countryCode: "CA" } }));
  });
  it("a domestic order may leave it out", () => {
    const { countryCode: _, ...noCountry } = US;
    accepted(base({ sender_address_manual: noCountry, recipient_address_manual: noCountry }));
  });
});

describe("states and provinces of manual addresses", () => {
  it("refuses a state that is not a US state, at the state's path", () => {
    expect(issuesOf(base({ recipient_address_manual: { ...US, state: "ZZ" } }))).toEqual([
      { path: "recipient_address_manual.state", code: "invalid_state" },
    ]);
    expect(issuesOf(base({ sender_address_manual: { ...US, state: "Springfield" } }))).toEqual([
      { path: "sender_address_manual.state", code: "invalid_state" },
    ]);
  });
  it("normalises full names to the code", () => {
    const order = accepted(
      base({
        sender_address_manual: { ...US, state: "Illinois" },
        recipient_address_manual: {
          line1: "1 Main St",
          city: "Vancouver",
          state: "british columbia",
          zip: "V6B 1A1",
          countryCode: "CA",
        },
      }),
    );
    expect(order.sender.address).toMatchObject({ state: "IL" });
    expect(order.recipient?.address).toMatchObject({ state: "BC" });
  });
});

describe("characters that cannot be printed", () => {
  it("in a name are reported at the name, not the address", () => {
    expect(issuesOf(base({ sender_name: "Ada 🎉" }))).toEqual([
      { path: "sender_name", code: "character_unsupported" },
    ]);
    expect(issuesOf(base({ recipient_name: "Grace\u0000Hopper" }))).toEqual([
      { path: "recipient_name", code: "character_unsupported" },
    ]);
    const result = validateOrderRequest(base({ sender_name: "Ada 🎉" }));
    expect(result.ok ? "" : result.issues[0]?.message).toContain('"🎉" (U+1F389)');
  });
  it("in the address text or a manual field are reported at that field", () => {
    expect(issuesOf(base(byId("recipient", "US|1", "1 Main St 🏠, Springfield IL 62701")))).toEqual([
      { path: "recipient_address_text", code: "character_unsupported" },
    ]);
    expect(issuesOf(base({ recipient_address_manual: { ...US, city: "Spring🌸field" } }))).toEqual([
      { path: "recipient_address_manual.city", code: "character_unsupported" },
    ]);
  });
  it("a lone surrogate is refused too", () => {
    expect(issuesOf(base({ sender_name: "Ada \ud800" }))).toEqual([
      { path: "sender_name", code: "character_unsupported" },
    ]);
  });
});

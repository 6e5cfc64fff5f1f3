import { describe, expect, it } from "vitest";
import { formatAddressLines } from "./address-lines.ts";
import {
  ADDRESS_LOOKUP_CODES,
  type AddressReference,
  addressModeUnavailable,
  addressReferences,
  checkResolvedAddress,
  withResolvedAddresses,
} from "./address-reference.ts";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { ISSUE_CODES } from "./issues.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

const letter = (patch: Record<string, unknown>) => ({
  ...structuredClone(EXAMPLE_ORDER_REQUESTS.letter),
  ...patch,
});
const byId = (role: "sender" | "recipient", id: string, text = "1 Main St, Springfield IL 62701") => ({
  [`${role}_address_type`]: "Address",
  [`${role}_address_manual`]: undefined,
  [`${role}_address_id`]: id,
  [`${role}_address_text`]: text,
});
const OTTAWA = {
  line1: "111 Wellington St",
  city: "Ottawa",
  state: "ON",
  zip: "K1A 0A9",
  countryCode: "CA",
};
const recipientRef: AddressReference = {
  role: "recipient",
  path: "recipient_address_id",
  id: "CA|1",
  country: "CA",
};

describe("ADDRESS_LOOKUP_CODES", () => {
  it("are snake_case codes of their own, none of the rule codes", () => {
    for (const code of ADDRESS_LOOKUP_CODES) {
      expect(code).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(ISSUE_CODES as readonly string[]).not.toContain(code);
    }
  });
});

describe("addressReferences", () => {
  it("lists the well-formed ids of Address-mode parties, with their role, path and country", () => {
    const body = letter({ ...byId("sender", "US|a"), ...byId("recipient", "can|b") });
    expect(addressReferences(body)).toEqual([
      { role: "sender", path: "sender_address_id", id: "US|a", country: "US" },
      { role: "recipient", path: "recipient_address_id", id: "can|b", country: "CA" },
    ]);
  });

  it("leaves out manual parties, malformed ids, disallowed countries and ids that already have an issue", () => {
    expect(addressReferences(letter({}))).toEqual([]);
    expect(addressReferences(letter(byId("recipient", "no-bar-here")))).toEqual([]);
    expect(addressReferences(letter(byId("recipient", "BR|1")))).toEqual([]);
    const body = letter(byId("recipient", "US|1"));
    expect(
      addressReferences(body, [{ path: "recipient_address_id", code: "too_long", message: "x" }]),
    ).toEqual([]);
    expect(addressReferences(body, [{ path: "letter", code: "too_long", message: "x" }])).toHaveLength(1);
    // Manual mode by default when a manual address is sent: an id beside it is a conflict, never looked up.
    expect(addressReferences(letter({ recipient_address_id: "US|1" }))).toEqual([]);
    expect(addressReferences("not an object")).toEqual([]);
  });

  it("reads the ids of a request that has other problems too", () => {
    const body = letter({ ...byId("recipient", "US|1"), request_id: "nope", colour: true });
    expect(validateOrderRequest(body).ok).toBe(false);
    expect(addressReferences(body).map((r) => r.path)).toEqual(["recipient_address_id"]);
  });

  it("in a bulk campaign only the sender: its rows are manual addresses", () => {
    const body = { ...structuredClone(EXAMPLE_ORDER_REQUESTS.bulk), ...byId("sender", "US|s") };
    expect(addressReferences(body)).toEqual([
      { role: "sender", path: "sender_address_id", id: "US|s", country: "US" },
    ]);
  });
});

describe("checkResolvedAddress", () => {
  it("answers the address trimmed, without empty optional fields", () => {
    expect(
      checkResolvedAddress(recipientRef, {
        ...OTTAWA,
        line1: " 111 Wellington St ",
        line2: " ",
        countryCode: "ca",
      }),
    ).toEqual({ ok: true, address: OTTAWA });
  });

  it("refuses an unknown id with address_not_found, saying to search again", () => {
    const check = checkResolvedAddress(recipientRef, undefined);
    expect(check).toEqual({
      ok: false,
      issue: { path: "recipient_address_id", code: "address_not_found", message: expect.any(String) },
    });
    if (!check.ok) expect(check.issue.message).toMatch(/svc\.search_addresses.*type Address/);
  });

  it("refuses an address in another country than the id's", () => {
    expect(checkResolvedAddress(recipientRef, { ...OTTAWA, countryCode: "US" })).toEqual({
      ok: false,
      issue: expect.objectContaining({ path: "recipient_address_id", code: "address_country_mismatch" }),
    });
  });

  it("refuses an address holding characters that cannot be printed", () => {
    expect(checkResolvedAddress(recipientRef, { ...OTTAWA, city: "Ottawa 🍁" })).toEqual({
      ok: false,
      issue: expect.objectContaining({ path: "recipient_address_id", code: "character_unsupported" }),
    });
  });

  it("addressModeUnavailable says to send a manual address", () => {
    expect(addressModeUnavailable(recipientRef)).toEqual({
      path: "recipient_address_id",
      code: "address_mode_unavailable",
      message: expect.stringContaining("recipient_address_manual"),
    });
  });
});

describe("withResolvedAddresses", () => {
  it("gives each Address-mode party its structured address, which is what prints", () => {
    const checked = validateOrderRequest(
      letter(byId("recipient", "CA|1", "150 Wellington St, Ottawa ON K1A 0A9, Canada")),
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
    const order = withResolvedAddresses(checked.order, { recipient: OTTAWA, sender: OTTAWA });
    expect(order.recipient?.address).toEqual({
      type: "Address",
      id: "CA|1",
      text: "150 Wellington St, Ottawa ON K1A 0A9, Canada",
      resolved: OTTAWA,
    });
    // The sender is a manual party: it stays as it was.
    expect(order.sender).toEqual(checked.order.sender);
    expect(formatAddressLines(order.recipient!)).toEqual([
      "Grace Hopper",
      "111 Wellington St",
      "Ottawa, ON K1A 0A9",
      "CANADA",
    ]);
  });
});

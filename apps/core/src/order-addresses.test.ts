import { letterOrder } from "@mailpiece/conformance";
import type { AddressProvider, StructuredAddress } from "@mailpiece/ports";
import { AddressError } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "./core.ts";
import { printAddress } from "./fulfilment.ts";
import { lookUpOrderAddresses } from "./order-addresses.ts";
import { refusalOf } from "./refusal.fixture.ts";

const EMPIRE: StructuredAddress = {
  id: "US|esb",
  line1: "350 Fifth Avenue",
  line2: "Suite 3100",
  city: "New York",
  state: "NY",
  zip: "10118",
  countryCode: "US",
  text: "350 Fifth Avenue, Suite 3100, New York, NY 10118",
};
const OTTAWA: StructuredAddress = {
  id: "CA|hill",
  line1: "111 Wellington St",
  city: "Ottawa",
  state: "ON",
  zip: "K1A 0A9",
  countryCode: "CA",
  text: "111 Wellington St, Ottawa, ON K1A 0A9",
};

/** A provider that knows two addresses, counts its lookups, and can be told to be down. */
function provider(known: StructuredAddress[] = [EMPIRE, OTTAWA]) {
  let down = false;
  const looked: string[] = [];
  const addresses: AddressProvider = {
    name: "fake",
    async search() {
      return [];
    },
    async retrieve(id) {
      looked.push(id);
      if (down) throw new AddressError("provider_unavailable", "The address service is down.");
      return known.find((address) => address.id === id);
    },
  };
  return { addresses, looked, goDown: () => (down = true) };
}

function coreWith(addresses?: AddressProvider) {
  return createMailpieceCore({
    store: createMemoryStore(),
    blobs: createMemoryBlobStore(),
    ...(addresses ? { addresses } : {}),
  });
}

const byId = (role: "sender" | "recipient", id: string, text = "1 Decoy Lane, Nowhere, ZZ 00000") => ({
  [`${role}_address_type`]: "Address",
  [`${role}_address_manual`]: undefined,
  [`${role}_address_id`]: id,
  [`${role}_address_text`]: text,
});

describe("address ids of an order, looked up with the address provider", () => {
  it("prints and shows the address the id names, never the text sent with it", async () => {
    const fake = provider();
    const view = await coreWith(fake.addresses).validateOrder({
      body: letterOrder(byId("recipient", "US|esb")),
    });
    if (!("recipient" in view)) throw new Error("expected a single order's validation");
    const recipient = view.recipient as unknown as Record<string, unknown>;
    expect(recipient.address_text).toBe("1 Decoy Lane, Nowhere, ZZ 00000");
    expect(recipient.address).toMatchObject({ line1: "350 Fifth Avenue", zip: "10118", countryCode: "US" });
    expect(recipient.lines).toEqual([
      "Grace Recipient",
      "350 Fifth Avenue",
      "Suite 3100",
      "New York, NY 10118",
    ]);
    expect(fake.looked).toEqual(["US|esb"]);
  });

  it("gives the printer the structured address of a resolved party", async () => {
    const fake = provider();
    const lookup = await lookUpOrderAddresses(letterOrder(byId("sender", "CA|hill")), [], fake.addresses);
    expect(lookup).toEqual({
      ok: true,
      addresses: { sender: { ...OTTAWA, id: undefined, text: undefined } },
    });
    if (!lookup.ok || !lookup.addresses.sender) throw new Error("expected the sender to resolve");
    const { id: _id, ...ottawa } = OTTAWA;
    expect(
      printAddress({
        name: "Ada",
        country: "CA",
        address: { type: "Address", id: "CA|hill", text: "decoy", resolved: lookup.addresses.sender },
      }),
    ).toEqual({
      name: "Ada",
      line1: ottawa.line1,
      city: "Ottawa",
      state: "ON",
      postal_code: "K1A 0A9",
      country: "CA",
    });
  });

  it("refuses an unknown id at its field, with the request's other problems, and changes nothing", async () => {
    const fake = provider();
    const core = coreWith(fake.addresses);
    const error = await refusalOf(
      core.validateOrder({ body: letterOrder({ ...byId("recipient", "US|nope"), colour: true }) }),
    );
    expect(error.code).toBe("validation_failed");
    expect(error.issues?.map((issue) => [issue.path, issue.code])).toEqual(
      expect.arrayContaining([
        ["recipient_address_id", "address_not_found"],
        ["colour", "unknown_property"],
      ]),
    );
  });

  it("refuses an address found in another country than the id's", async () => {
    const fake = provider([{ ...OTTAWA, id: "US|moved" }]);
    const error = await refusalOf(
      coreWith(fake.addresses).validateOrder({ body: letterOrder(byId("recipient", "US|moved")) }),
    );
    expect(error.issues?.map((issue) => [issue.path, issue.code])).toEqual([
      ["recipient_address_id", "address_country_mismatch"],
    ]);
  });

  it("refuses Address mode where the deployment has no address provider", async () => {
    const error = await refusalOf(
      coreWith().validateOrder({ body: letterOrder(byId("recipient", "US|esb")) }),
    );
    expect(error.issues?.map((issue) => [issue.path, issue.code])).toEqual([
      ["recipient_address_id", "address_mode_unavailable"],
    ]);
  });

  it("answers address_search_unavailable with a retry time when the provider is down", async () => {
    const fake = provider();
    fake.goDown();
    const error = await refusalOf(
      coreWith(fake.addresses).validateOrder({ body: letterOrder(byId("recipient", "US|esb")) }),
    );
    expect(error.code).toBe("address_search_unavailable");
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
  });

  it("does not look up an id that already has a problem", async () => {
    const fake = provider();
    await refusalOf(coreWith(fake.addresses).validateOrder({ body: letterOrder(byId("recipient", "BR|1")) }));
    expect(fake.looked).toEqual([]);
  });
});

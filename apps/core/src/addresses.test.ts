import type { AddressProvider, AddressSearch } from "@mailpiece/ports";
import { AddressError } from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { ADDRESS_SEARCH_RATE_LIMITS, addressSearch } from "./addresses.ts";
import { refusalOf } from "./refusal.fixture.ts";

/** A provider that remembers what it was asked and answers one suggestion, or fails as told. */
function provider(fail?: AddressError): AddressProvider & { asked: AddressSearch[] } {
  const asked: AddressSearch[] = [];
  return {
    name: "fake",
    asked,
    async search(input) {
      asked.push(input);
      if (fail) throw fail;
      return [
        {
          id: "US|1",
          text: "350 Fifth Avenue, New York, NY 10118",
          type: "Address",
          description: "New York",
        },
      ];
    },
    async retrieve() {
      return undefined;
    },
  };
}

describe("address search", () => {
  it("keeps spec 1's limits: 120 a minute and 3000 a day per client", () => {
    expect(ADDRESS_SEARCH_RATE_LIMITS.map((rule) => [rule.limit, rule.windowMs])).toEqual([
      [120, 60_000],
      [3000, 86_400_000],
    ]);
  });

  it("asks the provider with country US by default and answers its suggestions", async () => {
    const fake = provider();
    const search = addressSearch(fake);
    const found = await search({ query: "350 fif", clientKey: "a" }, 0);
    expect(found[0]?.id).toBe("US|1");
    expect(fake.asked).toEqual([{ query: "350 fif", country_code: "US" }]);
  });

  it("refuses a client past a limit with rate_limited and its retry time, and counts clients apart", async () => {
    const fake = provider();
    const search = addressSearch(fake, [{ limit: 2, windowMs: 60_000 }]);
    await search({ query: "abc", clientKey: "a" }, 1_000);
    await search({ query: "abc", clientKey: "a" }, 2_000);
    const refused = await refusalOf(search({ query: "abc", clientKey: "a" }, 3_000));
    // Two searches in the minute: a third fits once half of them has slid out of the window, at 90 000.
    expect(refused).toMatchObject({ code: "rate_limited", retryAfterSeconds: 87 });
    expect(fake.asked.length).toBe(2);
    await expect(search({ query: "abc", clientKey: "b" }, 3_000)).resolves.toHaveLength(1);
    expect(await refusalOf(search({ query: "abc", clientKey: "a" }, 89_000))).toMatchObject({
      code: "rate_limited",
    });
    await expect(search({ query: "abc", clientKey: "a" }, 90_000)).resolves.toHaveLength(1);
  });

  it("turns the provider's refusal into validation_failed on the argument, and an outage into a retryable error", async () => {
    const bad = addressSearch(
      provider(new AddressError("unknown_container", "No such container.", { field: "container" })),
    );
    expect(await refusalOf(bad({ query: "abc", container: "US|x", clientKey: "a" }, 0))).toMatchObject({
      code: "validation_failed",
      issues: [{ path: "container", code: "unknown_container" }],
    });
    const down = addressSearch(provider(new AddressError("provider_unavailable", "Down.")));
    expect(await refusalOf(down({ query: "abc", clientKey: "a" }, 0))).toMatchObject({
      code: "address_search_unavailable",
      retryAfterSeconds: 5,
    });
  });
});

import {
  AddressError,
  type AddressErrorCode,
  type AddressProvider,
  type AddressSuggestion,
  type StructuredAddress,
} from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { runSuite } from "../kit.ts";
import {
  ADDRESS_PROVIDER_CONTRACT_NAMES,
  type AddressProviderContractName,
  type AddressProviderContractOptions,
  addressProviderContract,
} from "./address-provider-contract.ts";

/** Ways to break the small reference provider below, each of which a contract test must catch. */
type Fault =
  | "short queries pass"
  | "lower-case countries pass"
  | "nothing is an error"
  | "limit ignored"
  | "repeated ids"
  | "no country prefix"
  | "ignores country_code"
  | "empty containers"
  | "unknown container answers nothing"
  | "retrieve renames"
  | "retrieve answers containers"
  | "retrieve throws on strangers"
  | "case matters"
  | "unavailable answers nothing";

interface Place {
  key: string;
  number: string;
  street: string;
  unit?: string;
  city: string;
  state: string;
  zip: string;
}

const PLACES: readonly Place[] = [
  { key: "a1", number: "350", street: "Fifth Avenue", city: "New York", state: "NY", zip: "10118" },
  { key: "a2", number: "352", street: "Fifth Avenue", city: "New York", state: "NY", zip: "10118" },
  { key: "a3", number: "360", street: "Fifth Avenue", city: "New York", state: "NY", zip: "10118" },
  { key: "a4", number: "1", street: "Market Street", city: "San Francisco", state: "CA", zip: "94105" },
  {
    key: "a5",
    number: "1",
    street: "Market Street",
    unit: "Suite 2",
    city: "San Francisco",
    state: "CA",
    zip: "94105",
  },
];

const field = (code: AddressErrorCode, message: string, name: string) =>
  Object.assign(new AddressError(code, message), { field: name });

/**
 * A deliberately plain provider over five US addresses: every query word must start a word of the address; a
 * query without a digit answers each street with several addresses as one Container `US|c:<street>`.
 */
function referenceProvider(faults: ReadonlySet<Fault>): AddressProvider {
  const prefix = faults.has("no country prefix") ? "" : "US|";
  const text = (p: Place) =>
    `${p.number} ${p.street}${p.unit ? `, ${p.unit}` : ""}, ${p.city}, ${p.state} ${p.zip}`;
  const matches = (words: string[], p: Place) => {
    const own = (faults.has("case matters") ? text(p) : text(p).toLowerCase()).split(/[\s,]+/);
    return words.every((w) => own.some((o) => o.startsWith(w)));
  };
  const address = (p: Place): AddressSuggestion => ({
    id: `${prefix}${p.key}`,
    text: text(p),
    type: "Address",
    description: `${p.city}, ${p.state} ${p.zip}`,
  });
  return {
    name: "reference",
    async search({ query, country_code, container, limit = 10 }) {
      const trimmed = query.trim();
      if (!faults.has("short queries pass") && (trimmed.length < 3 || trimmed.length > 200)) {
        throw field("invalid_query", "query must be 3 to 200 characters", "query");
      }
      const countryPattern = faults.has("lower-case countries pass") ? /^[A-Za-z]{2}$/ : /^[A-Z]{2}$/;
      if (!countryPattern.test(country_code)) {
        throw field("invalid_query", "country_code must be two upper-case letters", "country_code");
      }
      const words = (faults.has("case matters") ? trimmed : trimmed.toLowerCase()).split(/\s+/);
      if (container !== undefined) {
        const street = container.startsWith(`${prefix}c:`) ? container.slice(prefix.length + 2) : undefined;
        if (!PLACES.some((p) => p.street === street)) {
          if (faults.has("unknown container answers nothing")) return [];
          throw field("unknown_container", `no container ${container}`, "container");
        }
        if (faults.has("empty containers")) return [];
        const inside = PLACES.filter((p) => p.street === street && matches(words, p)).map(address);
        return faults.has("limit ignored") ? inside : inside.slice(0, Math.min(limit, 50));
      }
      if (country_code !== "US" && !faults.has("ignores country_code")) return [];
      const found = PLACES.filter((p) => matches(words, p));
      if (found.length === 0 && faults.has("nothing is an error")) {
        throw field("invalid_query", "nothing found", "query");
      }
      const answer: AddressSuggestion[] = [];
      for (const p of found) {
        const siblings = found.filter((o) => o.street === p.street);
        if (!/\d/.test(trimmed) && siblings.length > 1) {
          const id = `${prefix}c:${p.street}`;
          if (!answer.some((s) => s.id === id)) {
            answer.push({
              id,
              text: `${p.street}, ${p.city}`,
              type: "Container",
              description: `${siblings.length} addresses`,
            });
          }
        } else answer.push(address(p));
      }
      if (faults.has("repeated ids") && answer[0]) answer.push(answer[0]);
      return faults.has("limit ignored") ? answer : answer.slice(0, Math.min(limit, 50));
    },
    async retrieve(id): Promise<StructuredAddress | undefined> {
      if (faults.has("retrieve throws on strangers") && !id.includes("|")) throw new TypeError("not an id");
      if (faults.has("retrieve answers containers") && id.startsWith(`${prefix}c:`)) {
        return { id, line1: id, city: "X", state: "NY", zip: "00000", countryCode: "US", text: id };
      }
      const p = PLACES.find((o) => `${prefix}${o.key}` === id);
      if (!p) return undefined;
      return {
        id: faults.has("retrieve renames") ? p.key.toUpperCase() : id,
        line1: `${p.number} ${p.street}`,
        ...(p.unit ? { line2: p.unit } : {}),
        city: p.city,
        state: p.state,
        zip: p.zip,
        countryCode: "US",
        text: text(p),
      };
    },
  };
}

/** The same provider as if its service were down: it throws, or with a fault answers nothing. */
function unreachable(faults: ReadonlySet<Fault>): AddressProvider {
  return {
    name: "reference (down)",
    async search() {
      if (faults.has("unavailable answers nothing")) return [];
      throw new AddressError("provider_unavailable", "the address service does not answer");
    },
    async retrieve() {
      throw new AddressError("provider_unavailable", "the address service does not answer");
    },
  };
}

function options(faults: ReadonlySet<Fault>, more: Partial<AddressProviderContractOptions> = {}) {
  return {
    knownQuery: "350 Fifth",
    containerQuery: "fifth avenue new",
    async create() {
      return { provider: referenceProvider(faults) };
    },
    unreachable: async () => unreachable(faults),
    ...more,
  } satisfies AddressProviderContractOptions;
}

async function failuresWith(faults: Fault[], more?: Partial<AddressProviderContractOptions>) {
  const report = await runSuite(addressProviderContract(options(new Set(faults), more)));
  return new Map(report.outcomes.filter((o) => o.status === "failed").map((o) => [o.name, o.reason ?? ""]));
}

describe("addressProviderContract", () => {
  it("has one test per name, in the order of ADDRESS_PROVIDER_CONTRACT_NAMES", () => {
    const suite = addressProviderContract(options(new Set()));
    expect(suite.tests.map((t) => t.name)).toEqual([...ADDRESS_PROVIDER_CONTRACT_NAMES]);
    expect(new Set(ADDRESS_PROVIDER_CONTRACT_NAMES).size).toBe(ADDRESS_PROVIDER_CONTRACT_NAMES.length);
    expect(suite.name).toBe("address provider contract");
  });

  it("passes a correct provider, with an unreachable variant and without", async () => {
    expect(await failuresWith([])).toEqual(new Map());
    expect(await failuresWith([], { unreachable: undefined })).toEqual(new Map());
  });

  it("answers not applicable, saying why, for the unreachable test without unreachable, and runs it with it", async () => {
    const notApplicable = async (more: Partial<AddressProviderContractOptions>) => {
      const report = await runSuite(addressProviderContract(options(new Set(), more)));
      return report.outcomes.filter((o) => o.status === "not_applicable").map((o) => [o.name, o.reason]);
    };
    expect(await notApplicable({})).toEqual([]);
    expect(await notApplicable({ unreachable: undefined })).toEqual([
      [ADDRESS_PROVIDER_CONTRACT_NAMES[8], "no unreachable factory given (options.unreachable)"],
    ]);
  });

  const caught: Array<[Fault, AddressProviderContractName]> = [
    ["short queries pass", ADDRESS_PROVIDER_CONTRACT_NAMES[0]],
    ["lower-case countries pass", ADDRESS_PROVIDER_CONTRACT_NAMES[0]],
    ["nothing is an error", ADDRESS_PROVIDER_CONTRACT_NAMES[1]],
    ["limit ignored", ADDRESS_PROVIDER_CONTRACT_NAMES[2]],
    ["repeated ids", ADDRESS_PROVIDER_CONTRACT_NAMES[2]],
    ["no country prefix", ADDRESS_PROVIDER_CONTRACT_NAMES[3]],
    ["ignores country_code", ADDRESS_PROVIDER_CONTRACT_NAMES[3]],
    ["empty containers", ADDRESS_PROVIDER_CONTRACT_NAMES[4]],
    ["unknown container answers nothing", ADDRESS_PROVIDER_CONTRACT_NAMES[4]],
    ["retrieve renames", ADDRESS_PROVIDER_CONTRACT_NAMES[5]],
    ["retrieve answers containers", ADDRESS_PROVIDER_CONTRACT_NAMES[6]],
    ["retrieve throws on strangers", ADDRESS_PROVIDER_CONTRACT_NAMES[6]],
    ["case matters", ADDRESS_PROVIDER_CONTRACT_NAMES[7]],
    ["unavailable answers nothing", ADDRESS_PROVIDER_CONTRACT_NAMES[8]],
  ];
  for (const [fault, test] of caught) {
    it(`catches a provider with the fault "${fault}" in "${test}"`, async () => {
      const failures = await failuresWith([fault]);
      expect([...failures.keys()]).toContain(test);
    });
  }

  it("covers every contract test with a fault", () => {
    expect(new Set(caught.map(([, test]) => test))).toEqual(new Set(ADDRESS_PROVIDER_CONTRACT_NAMES));
  });
});

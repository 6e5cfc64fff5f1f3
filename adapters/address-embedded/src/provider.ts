import {
  ADDRESS_SEARCH_LIMITS,
  type AddressProvider,
  type AddressSearch,
  type AddressSuggestion,
  addressIdCountry,
  type StructuredAddress,
} from "@mailpiece/ports";
import { addressError } from "./address-error.ts";
import type { AddressIndex, ContainerRange } from "./address-index.ts";
import { type SearchHit, searchIndex } from "./search.ts";

export interface EmbeddedAddressProviderOptions {
  /** Shown in logs. Default "embedded". */
  name?: string;
}

/**
 * The AddressProvider over in-memory indexes, one per country. A search in a country without an index answers an
 * empty list; nothing here waits on a network, so it never throws `provider_unavailable`.
 */
export function createEmbeddedAddressProvider(
  indexes: AddressIndex | readonly AddressIndex[],
  options: EmbeddedAddressProviderOptions = {},
): AddressProvider {
  const byCountry = new Map<string, AddressIndex>();
  for (const index of Array.isArray(indexes) ? indexes : [indexes as AddressIndex]) {
    if (byCountry.has(index.country)) throw new TypeError(`two address indexes for ${index.country}`);
    byCountry.set(index.country, index);
  }

  return {
    name: options.name ?? "embedded",
    async search(input: AddressSearch): Promise<AddressSuggestion[]> {
      const { query, country, limit } = checkSearch(input);
      const index = byCountry.get(country);
      let within: ContainerRange | undefined;
      if (input.container !== undefined) {
        within = containerOf(index, input.container, country);
        if (!within) {
          throw addressError(
            "unknown_container",
            `no container ${show(input.container)} in ${country}`,
            "container",
          );
        }
      }
      if (!index) return [];
      return searchIndex(index, query, limit, within).map((hit) => suggestion(index, hit));
    },
    async retrieve(id: string): Promise<StructuredAddress | undefined> {
      if (typeof id !== "string") return undefined;
      const country = addressIdCountry(id);
      const index = country === undefined ? undefined : byCountry.get(country);
      if (!index) return undefined;
      const record = index.findRecord(id.slice(country!.length + 1));
      return record === undefined ? undefined : index.structured(record);
    },
  };
}

function checkSearch(input: AddressSearch): { query: string; country: string; limit: number } {
  const query = typeof input?.query === "string" ? input.query.trim() : undefined;
  const { min_query_chars: min, max_query_chars: max } = ADDRESS_SEARCH_LIMITS;
  if (query === undefined || query.length < min || query.length > max) {
    throw addressError("invalid_query", `query must be ${min} to ${max} characters`, "query");
  }
  const country = input.country_code;
  if (typeof country !== "string" || !/^[A-Z]{2}$/.test(country)) {
    throw addressError("invalid_query", "country_code must be two upper-case letters", "country_code");
  }
  const limit = input.limit ?? ADDRESS_SEARCH_LIMITS.default_limit;
  if (!Number.isInteger(limit) || limit < 1) {
    throw addressError("invalid_query", `limit must be a whole number from 1 to ${max}`, "limit");
  }
  return { query, country, limit: Math.min(limit, ADDRESS_SEARCH_LIMITS.max_limit) };
}

function containerOf(
  index: AddressIndex | undefined,
  id: unknown,
  country: string,
): ContainerRange | undefined {
  if (!index || typeof id !== "string" || !id.startsWith(`${country}|`)) return undefined;
  return index.findContainer(id.slice(country.length + 1));
}

function suggestion(index: AddressIndex, hit: SearchHit): AddressSuggestion {
  const country = index.country;
  if (hit.kind === "address") {
    return {
      id: `${country}|${index.recordKey(hit.at)}`,
      text: index.addressText(hit.at),
      type: "Address",
      description: index.locality(hit.at),
    };
  }
  if (hit.kind === "building") {
    return {
      id: `${country}|${index.containerKey(index.recordGroup[hit.at]!, hit.at)}`,
      text: index.buildingText(hit.at),
      type: "Container",
      description: addresses(index.runEnd(hit.at) - hit.at),
    };
  }
  const { start, end } = index.groupRange(hit.at);
  return {
    id: `${country}|${index.containerKey(hit.at)}`,
    text: index.streetText(hit.at),
    type: "Container",
    description: addresses(end - start),
  };
}

const addresses = (count: number) => (count === 1 ? "1 address" : `${count} addresses`);

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

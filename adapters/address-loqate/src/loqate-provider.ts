import {
  ADDRESS_SEARCH_LIMITS,
  AddressError,
  type AddressErrorCode,
  type AddressProvider,
  type AddressSearch,
  type AddressSuggestion,
  type StructuredAddress,
} from "@mailpiece/ports";
import {
  createLoqateClient,
  isServiceError,
  LOQATE_DEFAULT_BASE_URL,
  type LoqateClient,
  refused,
} from "./loqate-client.ts";
import { findSuggestions, loqateIdOf, structuredAddress } from "./mapping.ts";

export interface LoqateAddressProviderOptions {
  /** The Loqate API key (`AA11-AA11-AA11-AA11`). It is sent only as the `Key` query parameter to `baseUrl`. */
  apiKey: string;
  /** Where Loqate's web services are. Default `https://api.addressy.com`; https only, http for 127.0.0.1 and localhost. */
  baseUrl?: string;
  /** The fetch to call Loqate with. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** How long one request may take, body included, in milliseconds. Default 3000. */
  timeoutMs?: number;
  /** The largest answer read, in bytes. Default 1 000 000. */
  maxResponseBytes?: number;
}

export const LOQATE_DEFAULT_TIMEOUT_MS = 3000;
export const LOQATE_DEFAULT_MAX_RESPONSE_BYTES = 1_000_000;
/** The longest timer Node runs (2^31 - 1 ms). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The AddressProvider on Loqate Capture Interactive Find and Retrieve. Our ids are `CC|<Loqate Id>`; a Loqate
 * suggestion of Type `Address` is an `Address` and any other Type a `Container`, whose Id goes back to Find as its
 * `Container` parameter.
 *
 * Loqate's errors common to every service (an unknown or expired key, no credit, a daily limit, the surge protector,
 * an unknown error) throw `provider_unavailable`, as does every network or answer failure. Errors of one service
 * (numbered from 1001) mean that Loqate refused these arguments: a search in a container answers
 * `unknown_container`, a search without one answers no suggestions, a retrieve answers undefined.
 */
export function createLoqateAddressProvider(options: LoqateAddressProviderOptions): AddressProvider {
  const client = createLoqateClient(checkOptions(options));
  return {
    name: "loqate",
    search: (input) => search(client, input),
    retrieve: (id) => retrieve(client, id),
  };
}

async function search(client: LoqateClient, input: AddressSearch): Promise<AddressSuggestion[]> {
  const { query, country, limit } = checkSearch(input);
  let container: string | undefined;
  if (input.container !== undefined) {
    container = loqateIdOf(input.container, country);
    if (container === undefined) throw unknownContainer(input.container, country);
  }
  const params: Record<string, string> = {
    Text: query,
    Countries: country,
    Limit: String(limit),
    IsMiddleware: "true",
  };
  if (container !== undefined) params.Container = container;

  const answer = await client.call("Find", params);
  if ("error" in answer) {
    if (!isServiceError(answer.error.code)) throw refused("Find", answer.error.code);
    if (container !== undefined) throw unknownContainer(input.container, country);
    return [];
  }
  const suggestions = findSuggestions(answer.items, country, limit, input.container);
  if (container !== undefined && suggestions.length === 0) throw unknownContainer(input.container, country);
  return suggestions;
}

async function retrieve(client: LoqateClient, id: string): Promise<StructuredAddress | undefined> {
  if (typeof id !== "string") return undefined;
  const country = /^([A-Z]{2})\|/.exec(id)?.[1];
  if (country === undefined) return undefined;
  const loqateId = loqateIdOf(id, country);
  if (loqateId === undefined) return undefined;

  const answer = await client.call("Retrieve", { Id: loqateId });
  if ("error" in answer) {
    if (!isServiceError(answer.error.code)) throw refused("Retrieve", answer.error.code);
    return undefined;
  }
  const item = answer.items[0];
  return item === undefined ? undefined : structuredAddress(item, id, country);
}

function checkSearch(input: AddressSearch): { query: string; country: string; limit: number } {
  const query = typeof input?.query === "string" ? input.query.trim() : undefined;
  const { min_query_chars: min, max_query_chars: max, default_limit, max_limit } = ADDRESS_SEARCH_LIMITS;
  if (query === undefined || query.length < min || query.length > max) {
    throw addressError("invalid_query", `query must be ${min} to ${max} characters`, "query");
  }
  const country = input.country_code;
  if (typeof country !== "string" || !/^[A-Z]{2}$/.test(country)) {
    throw addressError("invalid_query", "country_code must be two upper-case letters", "country_code");
  }
  const limit = input.limit ?? default_limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > max_limit) {
    throw addressError("invalid_query", `limit must be a whole number from 1 to ${max_limit}`, "limit");
  }
  return { query, country, limit };
}

function unknownContainer(container: unknown, country: string): AddressError {
  return addressError("unknown_container", `no container ${show(container)} in ${country}`, "container");
}

/**
 * An AddressError naming the argument at fault: as `field` (the port's contract) and as the path of its one issue,
 * so that an HTTP layer that reports issues reports it too.
 */
function addressError(code: AddressErrorCode, message: string, field: string): AddressError {
  return new AddressError(code, message, { field, issues: [{ path: field, code, message }] });
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function checkOptions(options: LoqateAddressProviderOptions) {
  const apiKey = options?.apiKey;
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new TypeError("createLoqateAddressProvider needs a Loqate API key (apiKey)");
  }
  const fetch = options.fetch ?? globalThis.fetch;
  if (typeof fetch !== "function") throw new TypeError("fetch must be a function");
  const timeoutMs = options.timeoutMs ?? LOQATE_DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new TypeError(`timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  const maxResponseBytes = options.maxResponseBytes ?? LOQATE_DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
    throw new TypeError("maxResponseBytes must be a whole number of bytes, at least 1");
  }
  return {
    apiKey,
    baseUrl: checkBaseUrl(options.baseUrl ?? LOQATE_DEFAULT_BASE_URL),
    fetch,
    timeoutMs,
    maxResponseBytes,
  };
}

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * The base URL as an origin and path without a trailing slash. It must be https, or http to a local address (for
 * tests), and carry no credentials, query or fragment. Messages never repeat the URL given.
 */
export function checkBaseUrl(raw: unknown): string {
  let url: URL;
  try {
    url = new URL(String(raw));
  } catch {
    throw new TypeError("baseUrl must be an absolute URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname))) {
    throw new TypeError("baseUrl must use https (http only for 127.0.0.1 or localhost)");
  }
  if (url.username !== "" || url.password !== "") throw new TypeError("baseUrl must not carry credentials");
  if (url.search !== "" || url.hash !== "" || String(raw).includes("?") || String(raw).includes("#")) {
    throw new TypeError("baseUrl must not carry a query or a fragment");
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

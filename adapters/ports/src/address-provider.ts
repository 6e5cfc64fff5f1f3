import { defineError, type ErrorOptions } from "@mailpiece/errors";

/**
 * The AddressProvider port: address search for people and agents who type part of an address (spec 1,
 * `svc.search_addresses`), and the structured address behind a chosen suggestion. It follows the Find / Retrieve
 * model of address services such as Loqate: a search answers suggestions; a suggestion of type `Container` (a
 * street, a building with units, a locality) is searched again inside it; only a suggestion of type `Address` names
 * one deliverable address, and only its id is valid in an order.
 *
 * Contracts. An adapter MUST satisfy every sentence below; each has a named test in the conformance kit.
 * - `search` MUST refuse a query shorter than 3 characters (after trimming) or longer than 200 with
 *   `AddressError("invalid_query", field "query")`, and a country code that is not two upper-case letters with
 *   `invalid_query` (field "country_code"). A well-formed query that matches nothing answers an empty list.
 * - `search` MUST answer at most `limit` suggestions (default 10, at most 50), each with a non-empty `id`, `text` and
 *   `description`, and `type` `Address` or `Container`; ids are unique within one answer.
 * - Every id MUST start with the country code of the address (or of the container) in upper case followed by a
 *   vertical bar (`US|...`), and `search` MUST answer only suggestions in `country_code`.
 * - A `Container` suggestion's id, passed back as `container`, MUST answer the suggestions inside it (at least one);
 *   an unknown container id MUST be refused with `unknown_container` (field "container").
 * - `retrieve(id)` MUST answer the structured address of every `Address` id that `search` answered, with the same
 *   id and country, and MUST answer undefined for an id it does not know, for a `Container` id, and for a string that
 *   is not an id at all. It MUST NOT throw for a well-typed string.
 * - Results MUST NOT depend on letter case or on spaces around the query; a query MAY be matched by prefix and with
 *   small typing errors.
 * - A provider that cannot answer (a network service that is down) MUST throw `provider_unavailable`, never answer
 *   an empty list for it.
 */
export interface AddressProvider {
  /** A short name for logs ("embedded", "loqate"). */
  readonly name: string;
  search(input: AddressSearch): Promise<AddressSuggestion[]>;
  retrieve(id: string): Promise<StructuredAddress | undefined>;
}

export interface AddressSearch {
  /** What the person typed: 3 to 200 characters. */
  query: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country_code: string;
  /** A `Container` suggestion's id, to search inside it. */
  container?: string;
  /** Suggestions at most: 1 to 50, default 10. */
  limit?: number;
}

export interface AddressSuggestion {
  /** `CC|...`: the country code, a vertical bar, then the provider's own key. */
  id: string;
  /** The address or container as one line, e.g. "350 Fifth Avenue, New York, NY 10118". */
  text: string;
  type: "Address" | "Container";
  /** What else a person needs to choose: the locality for an address, "12 addresses" for a container. */
  description: string;
}

/** One deliverable address, in the fields of a manual address (spec 1) so that it prints as one would. */
export interface StructuredAddress {
  id: string;
  line1: string;
  line2?: string;
  city: string;
  /** State, province or region where the country uses one (required for US and CA). */
  state?: string;
  zip: string;
  /** ISO 3166-1 alpha-2, upper case. */
  countryCode: string;
  /** The address as one line, as a suggestion shows it. */
  text: string;
}

export type AddressErrorCode = "invalid_query" | "unknown_container" | "provider_unavailable";

const AddressErrorBase = defineError<AddressErrorCode>("AddressError");

/** The error of the address port. `code` is a stable wire contract; `field` names the argument at fault. */
export class AddressError extends AddressErrorBase {
  /** The argument at fault: `query`, `country_code`, `container` or `limit`. */
  readonly field: string | undefined;

  constructor(code: AddressErrorCode, message: string, options?: ErrorOptions & { field?: string }) {
    super(code, message, options);
    this.field = options?.field;
  }

  /** True for any AddressError, also one created by another copy of this package. */
  static override isInstance(value: unknown): value is AddressError {
    return AddressErrorBase.isInstance(value);
  }
}

/** Limits every provider shares. */
export const ADDRESS_SEARCH_LIMITS = Object.freeze({
  min_query_chars: 3,
  max_query_chars: 200,
  default_limit: 10,
  max_limit: 50,
});

/** The country code an address id starts with (`US|...` → "US"), or undefined for a string that is not an id. */
export function addressIdCountry(id: string): string | undefined {
  return /^([A-Z]{2,4})\|./.exec(id)?.[1];
}

import { portRequirement, type Requirement } from "../kit.ts";
import type { AddressProviderContractName } from "./address-provider-contract.ts";

const port = (sentence: string) => portRequirement("AddressProvider", "Contracts", sentence);

const REFUSE = port(
  '`search` MUST refuse a query shorter than 3 characters (after trimming) or longer than 200 with `AddressError("invalid_query", field "query")`, and a country code that is not two upper-case letters with `invalid_query` (field "country_code"). A well-formed query that matches nothing answers an empty list.',
);

/** The MUST sentence of the AddressProvider port (adapters/ports/src/address-provider.ts) that each test checks. */
export const ADDRESS_PROVIDER_REQUIREMENTS: Readonly<Record<AddressProviderContractName, Requirement>> = {
  "search refuses a query under 3 or over 200 characters and a malformed country_code with invalid_query naming the field":
    REFUSE,
  "a well-formed query that matches nothing answers an empty list": REFUSE,
  "search answers at most limit suggestions (default 10, at most 50), well-formed, with distinct ids": port(
    "`search` MUST answer at most `limit` suggestions (default 10, at most 50), each with a non-empty `id`, `text` and `description`, and `type` `Address` or `Container`; ids are unique within one answer.",
  ),
  "every id starts with the upper-case country code and a vertical bar, and search answers only country_code":
    port(
      "Every id MUST start with the country code of the address (or of the container) in upper case followed by a vertical bar (`US|...`), and `search` MUST answer only suggestions in `country_code`.",
    ),
  "a Container id passed back as container answers the suggestions inside it; an unknown one is refused with unknown_container":
    port(
      'A `Container` suggestion\'s id, passed back as `container`, MUST answer the suggestions inside it (at least one); an unknown container id MUST be refused with `unknown_container` (field "container").',
    ),
  "retrieve answers the structured address of every Address id search answered, with the same id and country":
    port(
      "`retrieve(id)` MUST answer the structured address of every `Address` id that `search` answered, with the same id and country",
    ),
  "retrieve answers undefined, never throwing, for an unknown id, a Container id and a string that is no id":
    port(
      "and MUST answer undefined for an id it does not know, for a `Container` id, and for a string that is not an id at all. It MUST NOT throw for a well-typed string.",
    ),
  "results do not depend on letter case or on spaces around the query": port(
    "Results MUST NOT depend on letter case or on spaces around the query",
  ),
  "a provider that cannot answer throws provider_unavailable, never an empty list": port(
    "A provider that cannot answer (a network service that is down) MUST throw `provider_unavailable`, never answer an empty list for it.",
  ),
};

import type { CountryCode } from "./countries.ts";
import { resolveCountry } from "./countries.ts";
import type { Issue } from "./issues.ts";
import { IssueList } from "./issues.ts";
import { isJsonObject, present, stringField } from "./json-access.ts";
import type { Party, PartyRole, ResolvedAddress } from "./party.ts";
import { readParty } from "./party.ts";
import { describeCharacters, unprintableCharacters } from "./printable-text.ts";
import type { NormalizedOrder } from "./validate-order-request.ts";

/**
 * Codes of the issues raised when the address search ids of an order are looked up with the deployment's address
 * provider. validateOrderRequest reads no provider, so it never raises them; the layer that holds the provider does
 * (see addressReferences and checkResolvedAddress). Stable wire codes, like ISSUE_CODES.
 * - `address_not_found`: the provider does not know the id (not an id of a suggestion of type Address).
 * - `address_country_mismatch`: the address found is in another country than the one the id starts with.
 * - `address_mode_unavailable`: the deployment has no address provider, so an address cannot be given by id.
 */
export const ADDRESS_LOOKUP_CODES = [
  "address_not_found",
  "address_country_mismatch",
  "address_mode_unavailable",
] as const;

export type AddressLookupCode = (typeof ADDRESS_LOOKUP_CODES)[number];

/** The address search id a request gives for one party (Address mode), to be looked up with the address provider. */
export interface AddressReference {
  role: PartyRole;
  /** The request field holding the id: `sender_address_id` or `recipient_address_id`. */
  path: string;
  id: string;
  /** The allowed country the id starts with (alpha-2). */
  country: CountryCode;
}

/**
 * The address search ids of a request's Address-mode parties that are well-formed and start with an allowed
 * country: the sender's, and the recipient's unless the request is a bulk campaign (its rows are manual addresses).
 * They are read from the request as sent, also when other fields have problems, so that an unknown id can be
 * reported together with every other issue. An id at a path that already has one of `issues` is left out: that
 * issue explains it.
 */
export function addressReferences(body: unknown, issues: readonly Issue[] = []): AddressReference[] {
  if (!isJsonObject(body)) return [];
  const roles: PartyRole[] = present(body, "bulk") ? ["sender"] : ["sender", "recipient"];
  const references: AddressReference[] = [];
  for (const role of roles) {
    const path = `${role}_address_id`;
    const draft = readParty(body, role, new IssueList());
    const id = stringField(body, path);
    if (draft.mode !== "Address" || id === undefined || draft.statedCountry === undefined) continue;
    if (issues.some((issue) => issue.path === path)) continue;
    references.push({ role, path, id, country: draft.statedCountry });
  }
  return references;
}

export type ResolvedAddressCheck = { ok: true; address: ResolvedAddress } | { ok: false; issue: Issue };

/**
 * What the address provider answered for one reference, checked: no answer is `address_not_found`; an address in
 * another country than the id's is `address_country_mismatch`; one holding characters that cannot be printed is
 * `character_unsupported`; each at the id's path. Otherwise the address with its fields trimmed (an empty line2 or
 * state left out) and its country as an upper-case alpha-2 code.
 */
export function checkResolvedAddress(
  reference: AddressReference,
  found: ResolvedAddress | undefined,
): ResolvedAddressCheck {
  const { path, role } = reference;
  if (found === undefined) {
    return {
      ok: false,
      issue: {
        path,
        code: "address_not_found",
        message: `${path} is not an address this deployment knows. Search again with svc.search_addresses and use the id of a suggestion of type Address (with its text as ${role}_address_text), or send ${role}_address_manual instead.`,
      },
    };
  }
  const country = resolveCountry(found.countryCode);
  if (country !== reference.country) {
    return {
      ok: false,
      issue: {
        path,
        code: "address_country_mismatch",
        message: `${path} starts with ${reference.country}, but the address it names is in ${found.countryCode}. Use the id exactly as address search returned it.`,
      },
    };
  }
  const line2 = found.line2?.trim();
  const state = found.state?.trim();
  const address: ResolvedAddress = {
    line1: found.line1.trim(),
    ...(line2 ? { line2 } : {}),
    city: found.city.trim(),
    ...(state ? { state } : {}),
    zip: found.zip.trim(),
    countryCode: country,
  };
  const unprintable = unprintableCharacters(
    [address.line1, address.line2, address.city, address.state, address.zip].join("\n"),
  );
  if (unprintable.length > 0) {
    return {
      ok: false,
      issue: {
        path,
        code: "character_unsupported",
        message: `The address found for ${path} holds characters that cannot be printed on a mailpiece: ${describeCharacters(unprintable)}. Send ${role}_address_manual instead.`,
      },
    };
  }
  return { ok: true, address };
}

/** The refusal of an address given by id where the deployment has no address provider to look it up. */
export function addressModeUnavailable(reference: AddressReference): Issue {
  const { path, role } = reference;
  return {
    path,
    code: "address_mode_unavailable",
    message: `This deployment offers no address search, so ${path} cannot be looked up. Send ${role}_address_manual with ${role}_address_type Manual instead.`,
  };
}

/** The party with the structured address its id was resolved to; a manual party is returned as it is. */
export function withResolvedAddress(party: Party, address: ResolvedAddress): Party {
  if (party.address.type !== "Address") return party;
  return { ...party, address: { ...party.address, resolved: { ...address } } };
}

/** The order with each Address-mode party's structured address, by role (a role not given is left as it is). */
export function withResolvedAddresses(
  order: NormalizedOrder,
  addresses: Partial<Record<PartyRole, ResolvedAddress>>,
): NormalizedOrder {
  const sender = addresses.sender ? withResolvedAddress(order.sender, addresses.sender) : order.sender;
  const recipient =
    order.recipient && addresses.recipient
      ? withResolvedAddress(order.recipient, addresses.recipient)
      : order.recipient;
  return { ...order, sender, ...(recipient ? { recipient } : {}) };
}

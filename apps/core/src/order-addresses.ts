import type { Issue, PartyRole, ResolvedAddress } from "@mailpiece/orders";
import { addressModeUnavailable, addressReferences, checkResolvedAddress } from "@mailpiece/orders";
import type { AddressProvider } from "@mailpiece/ports";
import { AddressError } from "@mailpiece/ports";
import { addressSearchUnavailable } from "./addresses.ts";

export type OrderAddressLookup =
  | { ok: true; addresses: Partial<Record<PartyRole, ResolvedAddress>> }
  | { ok: false; issues: Issue[] };

/**
 * Looks up the address search id of every Address-mode party of an order request (the sender, and the recipient of
 * a single order) with the deployment's address provider, so that the structured address it names is what prints
 * and what the order is priced by. Ids at a path that already has one of `issues` are not looked up. Every refusal
 * is collected: an unknown id is `address_not_found`, an address in another country than the id's
 * `address_country_mismatch`, each at its `*_address_id`; without a provider, Address mode is refused with
 * `address_mode_unavailable` at each id. A provider that cannot answer throws CoreError `address_search_unavailable`.
 */
export async function lookUpOrderAddresses(
  body: unknown,
  issues: readonly Issue[],
  provider: AddressProvider | undefined,
): Promise<OrderAddressLookup> {
  const references = addressReferences(body, issues);
  if (references.length === 0) return { ok: true, addresses: {} };
  if (!provider) return { ok: false, issues: references.map(addressModeUnavailable) };
  const found = await Promise.all(references.map((reference) => retrieve(provider, reference.id)));
  const addresses: Partial<Record<PartyRole, ResolvedAddress>> = {};
  const refused: Issue[] = [];
  references.forEach((reference, i) => {
    const check = checkResolvedAddress(reference, found[i]);
    if (check.ok) addresses[reference.role] = check.address;
    else refused.push(check.issue);
  });
  return refused.length > 0 ? { ok: false, issues: refused } : { ok: true, addresses };
}

async function retrieve(provider: AddressProvider, id: string): Promise<ResolvedAddress | undefined> {
  try {
    return await provider.retrieve(id);
  } catch (error) {
    if (AddressError.isInstance(error) && error.code === "provider_unavailable") {
      throw addressSearchUnavailable(error);
    }
    throw error;
  }
}

import type { AddressProvider } from "@mailpiece/ports";

/**
 * The embedded address search: the index file made by `mailpiece-addresses import` when one is configured, the
 * small US sample that ships with @mailpiece/address-embedded otherwise. The index loads with the first search, so
 * a process that never searches does not hold it; a load that fails is tried again by the next search.
 */
export function embeddedAddresses(indexFile?: string): AddressProvider {
  let provider: Promise<AddressProvider> | undefined;
  const load = () => {
    provider ??= (async () => {
      const embedded = await import("@mailpiece/address-embedded");
      const index = indexFile ? await embedded.openIndexFile(indexFile) : await embedded.loadSample();
      return embedded.createEmbeddedAddressProvider(index);
    })();
    provider.catch(() => {
      provider = undefined;
    });
    return provider;
  };
  return {
    name: "embedded",
    search: async (input) => (await load()).search(input),
    retrieve: async (id) => (await load()).retrieve(id),
  };
}

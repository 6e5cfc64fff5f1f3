import type { AddressProvider } from "@mailpiece/ports";
import { lazily } from "./lazy.ts";

/** A provider whose adapter (and data) load with the first search or retrieve. */
function loadedOnUse(name: string, load: () => Promise<AddressProvider>): AddressProvider {
  const provider = lazily(load);
  return {
    name,
    search: async (input) => (await provider()).search(input),
    retrieve: async (id) => (await provider()).retrieve(id),
  };
}

/**
 * The embedded address search: the index file made by `mailpiece-addresses import` when one is configured, the
 * small US sample that ships with @mailpiece/address-embedded otherwise. The index loads with the first search, so
 * a process that never searches does not hold it; a load that fails is tried again by the next search.
 */
export function embeddedAddresses(indexFile?: string): AddressProvider {
  return loadedOnUse("embedded", async () => {
    const embedded = await import("@mailpiece/address-embedded");
    const index = indexFile ? await embedded.openIndexFile(indexFile) : await embedded.loadSample();
    return embedded.createEmbeddedAddressProvider(index);
  });
}

/** Address search through Loqate's Find and Retrieve services; the adapter loads with the first search. */
export function loqateAddresses(apiKey: string): AddressProvider {
  return loadedOnUse("loqate", async () =>
    (await import("@mailpiece/address-loqate")).createLoqateAddressProvider({ apiKey }),
  );
}

import { type AddressProviderContractName, addressProviderContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { buildAddressIndex } from "./builder.ts";
import { createEmbeddedAddressProvider } from "./provider.ts";
import { loadSample } from "./sample.ts";
import { generateSyntheticAddresses } from "./synthetic.fixture.ts";

/** An embedded provider is always reachable: the test of an unreachable one does not apply. */
const notApplicable: AddressProviderContractName[] = [
  "a provider that cannot answer throws provider_unavailable, never an empty list",
];

registerSuite(
  addressProviderContract({
    name: "embedded, shipped samples",
    knownQuery: "350 Fifth Avenue 3100",
    containerQuery: "Fifth Avenue New York",
    async create() {
      return { provider: createEmbeddedAddressProvider(await loadSample()) };
    },
  }),
  { notApplicable },
);

registerSuite(
  addressProviderContract({
    name: "embedded, shipped samples, in Canada",
    country: "CA",
    knownQuery: "111 Wellington St",
    containerQuery: "Wellington St Ottawa",
    async create() {
      return { provider: createEmbeddedAddressProvider(await loadSample()) };
    },
  }),
  { notApplicable },
);

registerSuite(
  addressProviderContract({
    name: "embedded, US sample and synthetic data in two countries",
    knownQuery: "245 E 93rd St 4b",
    containerQuery: "e 93rd st",
    async create() {
      const us = (await loadSample()).filter((index) => index.country === "US");
      const canada = buildAddressIndex(
        generateSyntheticAddresses(2_000, 3).map((row) => ({ ...row, region: "ON" })),
        { country: "CA" },
      );
      return { provider: createEmbeddedAddressProvider([...us, canada]) };
    },
  }),
  { notApplicable },
);

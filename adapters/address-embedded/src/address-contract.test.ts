import { addressProviderContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { buildAddressIndex } from "./builder.ts";
import { createEmbeddedAddressProvider } from "./provider.ts";
import { loadSample } from "./sample.ts";
import { generateSyntheticAddresses } from "./synthetic.fixture.ts";

registerSuite(
  addressProviderContract({
    name: "embedded, shipped sample",
    knownQuery: "350 Fifth Avenue 3100",
    containerQuery: "Fifth Avenue New York",
    async create() {
      return { provider: createEmbeddedAddressProvider(await loadSample()) };
    },
  }),
);

registerSuite(
  addressProviderContract({
    name: "embedded, sample and synthetic data in two countries",
    knownQuery: "245 E 93rd St 4b",
    containerQuery: "e 93rd st",
    async create() {
      const canada = buildAddressIndex(
        generateSyntheticAddresses(2_000, 3).map((row) => ({ ...row, region: "ON" })),
        { country: "CA" },
      );
      return { provider: createEmbeddedAddressProvider([await loadSample(), canada]) };
    },
  }),
);

import { strict as assert } from "node:assert";
import { describe, it } from "vitest";
import { BASE, BASE_SEPOLIA, centsToUsdcUnits, parseEvmNetwork, resolveUsdc } from "./usdc.ts";

describe("resolveUsdc", () => {
  it("knows Circle's USDC on Base Sepolia and Base, each with its own EIP-712 domain", () => {
    assert.deepEqual(resolveUsdc(BASE_SEPOLIA), {
      network: "eip155:84532",
      chainId: 84532,
      address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
      name: "USDC",
      version: "2",
      decimals: 6,
    });
    assert.deepEqual(resolveUsdc(BASE), {
      network: "eip155:8453",
      chainId: 8453,
      address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      name: "USD Coin",
      version: "2",
      decimals: 6,
    });
  });

  it("accepts the listed address in any case and refuses other tokens and networks", () => {
    assert.equal(resolveUsdc(BASE, "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913").name, "USD Coin");
    assert.throws(() => resolveUsdc(BASE, "0x0000000000000000000000000000000000000001"), /not the USDC/);
    assert.throws(() => resolveUsdc(BASE, "USDC"), /20-byte address/);
    assert.throws(() => resolveUsdc("eip155:4326"), /no USDC/);
    assert.throws(() => parseEvmNetwork("solana:mainnet"), TypeError);
    assert.throws(() => parseEvmNetwork("eip155:0"), TypeError);
  });
});

describe("centsToUsdcUnits", () => {
  it("turns integer cents into 6-decimal atomic units", () => {
    assert.equal(centsToUsdcUnits(340), "3400000");
    assert.equal(centsToUsdcUnits(1), "10000");
    assert.equal(centsToUsdcUnits(25_000), "250000000");
  });

  it("refuses amounts that are not positive integers", () => {
    for (const cents of [0, -1, 3.4, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      assert.throws(() => centsToUsdcUnits(cents), RangeError);
    }
  });
});

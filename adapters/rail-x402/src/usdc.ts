import { findDefaultAsset, getDefaultAsset } from "@x402/evm";
import { getAddress } from "viem";

/** An EVM network as a CAIP-2 id, e.g. `eip155:84532` (Base Sepolia) or `eip155:8453` (Base). */
export type EvmNetwork = `eip155:${string}`;

/** USDC on one network: its address and the EIP-712 domain its `transferWithAuthorization` signatures use. */
export interface UsdcToken {
  network: EvmNetwork;
  chainId: number;
  address: `0x${string}`;
  /** EIP-712 domain name: "USDC" on Base Sepolia, "USD Coin" on Base and most mainnets. */
  name: string;
  version: string;
  decimals: 6;
}

export const BASE_SEPOLIA: EvmNetwork = "eip155:84532";
export const BASE: EvmNetwork = "eip155:8453";

const NETWORK_PATTERN = /^eip155:([1-9][0-9]{0,15})$/;

/** Checks a CAIP-2 EVM network id and returns it typed, with its chain id. */
export function parseEvmNetwork(network: string): { network: EvmNetwork; chainId: number } {
  const match = NETWORK_PATTERN.exec(network);
  const chainId = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(chainId)) {
    throw new TypeError(
      `network must be a CAIP-2 EVM network id such as "eip155:84532", got ${JSON.stringify(network)}`,
    );
  }
  return { network: network as EvmNetwork, chainId };
}

/**
 * USDC on `network`, as the x402 reference packages know it: the default asset table of @x402/evm gives the
 * address and the EIP-712 domain, and the reference clients only pay default assets unless told otherwise.
 * `asset` picks a listed token explicitly; it must be USDC with 6 decimals that supports EIP-3009.
 */
export function resolveUsdc(network: string, asset?: string): UsdcToken {
  const parsed = parseEvmNetwork(network);
  let entry: ReturnType<typeof findDefaultAsset>;
  if (asset === undefined) {
    try {
      entry = getDefaultAsset(parsed.network, "USDC");
    } catch {
      entry = undefined;
    }
    if (!entry) {
      throw new TypeError(
        `no USDC is known on ${network}; use eip155:84532 (Base Sepolia) or eip155:8453 (Base)`,
      );
    }
  } else {
    if (!/^0x[0-9a-fA-F]{40}$/.test(asset)) {
      throw new TypeError(`asset must be a 0x-prefixed 20-byte address, got ${JSON.stringify(asset)}`);
    }
    entry = findDefaultAsset(asset, parsed.network);
    if (!entry) {
      throw new TypeError(`asset ${asset} is not the USDC the x402 reference clients know on ${network}`);
    }
  }
  if (entry.symbol !== "USDC" || entry.decimals !== 6 || entry.assetTransferMethod !== undefined) {
    throw new TypeError(`asset ${entry.asset} on ${network} is not a 6-decimal USDC with EIP-3009 transfers`);
  }
  return {
    network: parsed.network,
    chainId: parsed.chainId,
    address: getAddress(entry.asset),
    name: entry.name,
    version: entry.version,
    decimals: 6,
  };
}

/** Integer US cents to USDC atomic units (6 decimals): 340 cents -> "3400000". */
export function centsToUsdcUnits(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    throw new RangeError(`amount_cents must be a positive integer, got ${cents}`);
  }
  return (BigInt(cents) * 10_000n).toString();
}

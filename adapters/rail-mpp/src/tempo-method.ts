import type { Store } from "mppx";
import { tempo } from "mppx/server";
import type { MppMethodConfig } from "./method-config.ts";
import { centsToDecimal } from "./method-config.ts";

export interface TempoMethodOptions {
  /** The address that receives the payment. */
  recipient: `0x${string}`;
  /** The TIP-20 token to be paid in. Default: USDC on mainnet, pathUSD on testnet. */
  currency?: `0x${string}`;
  /** The token's decimals. Default 6 (every TIP-20 stablecoin). */
  decimals?: number;
  /** Use the Tempo testnet (Moderato) instead of mainnet. */
  testnet?: boolean;
  /**
   * Where mppx records used transaction hashes, so one transfer cannot pay two challenges. Default in memory;
   * give every server process the same store.
   */
  store?: Store.AtomicStore;
}

/**
 * The Tempo charge method (TIP-20 stablecoin transfers) from mppx, priced in the token's units: one US cent is
 * 0.01 of a USD stablecoin. The order reference travels as the request's `externalId`. Settling needs the
 * Tempo RPC.
 */
export function tempoMethod(options: TempoMethodOptions): MppMethodConfig {
  const server = tempo.charge({
    recipient: options.recipient,
    decimals: options.decimals ?? 6,
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
    ...(options.testnet !== undefined ? { testnet: options.testnet } : {}),
    ...(options.store !== undefined ? { store: options.store } : {}),
  });
  return {
    server,
    simulated: false,
    request: (charge) => ({ amount: centsToDecimal(charge.amount_cents), externalId: charge.order_ref }),
  };
}

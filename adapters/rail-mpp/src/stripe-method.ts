import { stripe } from "mppx/server";
import type { MppMethodConfig } from "./method-config.ts";
import { centsToDecimal } from "./method-config.ts";

export interface StripeMethodOptions {
  /** The Stripe secret key (`sk_...` or a restricted `rk_...`) that creates the PaymentIntents. */
  secretKey: string;
  /** The Stripe business network profile id that shared payment tokens are issued for. */
  networkId: string;
  /** Payment method types offered. Default `["card"]`. */
  paymentMethodTypes?: string[];
}

/**
 * The Stripe charge method from mppx: the agent pays with a shared payment token (`spt_...`) and the server
 * confirms a PaymentIntent in US dollars. The amount is in cents on the wire; the order reference travels as
 * the request's `externalId`, which the credential must echo. Settling needs the Stripe API.
 */
export function stripeMethod(options: StripeMethodOptions): MppMethodConfig {
  if (options.secretKey.length === 0) throw new TypeError("stripeMethod needs a Stripe secret key");
  if (options.networkId.length === 0) throw new TypeError("stripeMethod needs a Stripe network id");
  const server = stripe.spt({
    secretKey: options.secretKey,
    networkId: options.networkId,
    paymentMethodTypes: options.paymentMethodTypes ?? ["card"],
    currency: "usd",
    decimals: 2,
  });
  return {
    server,
    simulated: false,
    request: (charge) => ({ amount: centsToDecimal(charge.amount_cents), externalId: charge.order_ref }),
  };
}

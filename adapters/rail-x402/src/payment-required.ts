import type { Charge } from "@mailpiece/ports";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { centsToUsdcUnits, type UsdcToken } from "./usdc.ts";

/** What a rail fixes once: where and how it is paid. */
export interface RequirementTerms {
  token: UsdcToken;
  payTo: `0x${string}`;
  maxTimeoutSeconds: number;
}

/**
 * The one `exact` requirement for a charge. A pure function of the charge and the terms, so the paid retry's
 * `accepted` can be compared with it field by field. `extra` carries the token's EIP-712 domain (`name`,
 * `version`, all the exact-EVM client signs with) and the order the challenge is for (`order_id`, the charge's
 * `order_ref`), so a payment answering one order's challenge names that order.
 */
export function requirementsFor(charge: Charge, terms: RequirementTerms): PaymentRequirements {
  if (charge.currency !== "usd") {
    throw new RangeError(`x402 charges are priced in usd, got ${JSON.stringify(charge.currency)}`);
  }
  if (typeof charge.order_ref !== "string" || charge.order_ref === "") {
    throw new RangeError(`x402 charges need an order_ref, got ${JSON.stringify(charge.order_ref)}`);
  }
  return {
    scheme: "exact",
    network: terms.token.network,
    amount: centsToUsdcUnits(charge.amount_cents),
    asset: terms.token.address,
    payTo: terms.payTo,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    extra: { name: terms.token.name, version: terms.token.version, order_id: charge.order_ref },
  };
}

/** The x402 v2 PaymentRequired object for a charge (the PAYMENT-REQUIRED header, decoded). */
export function paymentRequiredFor(charge: Charge, terms: RequirementTerms): PaymentRequired {
  return {
    x402Version: 2,
    error: "Payment required",
    resource: { url: charge.resource_url, description: charge.description, mimeType: "application/json" },
    accepts: [requirementsFor(charge, terms)],
    extensions: {},
  };
}

/** Dollars for people: 340 -> "3.40". */
export function formatUsd(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

/**
 * The human part of the 402 body. The x402 reference clients (2.x) refuse any payment above $1 unless the
 * agent raises `spendControls.maxAmountPerPayment`, and Mailpiece orders start at $3.40.
 */
export function spendCapMessage(charge: Charge, token: UsdcToken): string {
  return [
    `Pay $${formatUsd(charge.amount_cents)} in USDC on ${token.network} with x402 v2: sign the "exact" requirement`,
    `from the PAYMENT-REQUIRED header and send this request again with a PAYMENT-SIGNATURE header.`,
    `The x402 reference clients refuse payments above $1 by default; raise the cap first, e.g.`,
    `x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } })`,
    `then registerExactEvmScheme(client, { signer }). Ask the owner for approval and a spending limit before paying.`,
  ].join(" ");
}

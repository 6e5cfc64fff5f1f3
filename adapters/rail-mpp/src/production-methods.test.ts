import type { Charge } from "@mailpiece/ports";
import { PaymentError } from "@mailpiece/ports";
import { Challenge, Credential } from "mppx";
import { describe, expect, it } from "vitest";
import { createMppRail } from "./mpp-rail.ts";
import { stripeMethod } from "./stripe-method.ts";
import { tempoMethod } from "./tempo-method.ts";

const SECRET = "mailpiece-production-methods-secret-32b";
const RECIPIENT = "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00";

const CHARGE: Charge = {
  amount_cents: 1234,
  currency: "usd",
  resource_url: "https://mail.example/api/machine/mpp/orders",
  description: "One letter",
  order_ref: "5b0c7c0e-2f4e-4a4b-9a51-0e1f5d3c2a10",
};

async function onlyChallenge(methods: Parameters<typeof createMppRail>[0]["methods"]) {
  const rail = createMppRail({ realm: "mail.example", secretKey: SECRET, methods });
  const answer = await rail.challenge(CHARGE);
  const headers = answer.headers["WWW-Authenticate"];
  const list = Array.isArray(headers) ? headers : [headers ?? ""];
  expect(list).toHaveLength(1);
  return { rail, challenge: Challenge.deserialize(list[0] as string) };
}

describe("tempoMethod", () => {
  it("offers the charge in USDC base units on Tempo mainnet, with the order as externalId", async () => {
    const { rail, challenge } = await onlyChallenge([tempoMethod({ recipient: RECIPIENT })]);
    expect(rail.simulated).toBe(false);
    expect(challenge.method).toBe("tempo");
    expect(challenge.intent).toBe("charge");
    expect(challenge.request).toEqual({
      amount: "12340000",
      currency: "0x20C000000000000000000000b9537d11c60E8b50",
      recipient: RECIPIENT,
      externalId: CHARGE.order_ref,
      methodDetails: { chainId: 4217 },
    });
  });

  it("accepts a token, its decimals and the testnet", async () => {
    const token = "0x20c0000000000000000000000000000000000001";
    const { challenge } = await onlyChallenge([
      tempoMethod({ recipient: RECIPIENT, currency: token, decimals: 2, testnet: true }),
    ]);
    expect(challenge.request).toMatchObject({
      amount: "1234",
      currency: token,
      methodDetails: { chainId: 42431 },
    });
  });
});

describe("stripeMethod", () => {
  it("offers the charge in US cents with the network profile and payment method types", async () => {
    const { rail, challenge } = await onlyChallenge([
      stripeMethod({ secretKey: "sk_test_mailpiece", networkId: "profile_mailpiece" }),
    ]);
    expect(rail.simulated).toBe(false);
    expect(challenge.method).toBe("stripe");
    expect(challenge.request).toEqual({
      amount: "1234",
      currency: "usd",
      externalId: CHARGE.order_ref,
      methodDetails: { networkId: "profile_mailpiece", paymentMethodTypes: ["card"] },
    });
  });

  it("checks a shared payment token credential without calling Stripe; Stripe itself is asked only on settle", async () => {
    const { rail, challenge } = await onlyChallenge([
      stripeMethod({
        secretKey: "sk_test_mailpiece",
        networkId: "profile_mailpiece",
        paymentMethodTypes: ["card"],
      }),
    ]);
    const good = Credential.serialize({
      challenge,
      payload: { spt: "spt_123", externalId: CHARGE.order_ref },
    });
    const goodCredential = await rail.readCredential(new Headers({ authorization: good }));
    if (goodCredential === undefined) throw new Error("no credential read");
    await expect(rail.verify(goodCredential, CHARGE)).resolves.toMatchObject({
      replayKey: `mpp:${challenge.id}`,
    });

    const bad = Credential.serialize({ challenge, payload: { token: "tok_test_visa" } });
    const badCredential = await rail.readCredential(new Headers({ authorization: bad }));
    if (badCredential === undefined) throw new Error("no credential read");
    const error = await rail.verify(badCredential, CHARGE).catch((e: unknown) => e);
    expect(PaymentError.isInstance(error) && error.code).toBe("malformed_credential");
  });

  it("needs a secret key and a network id", () => {
    expect(() => stripeMethod({ secretKey: "", networkId: "profile" })).toThrow(/secret key/);
    expect(() => stripeMethod({ secretKey: "sk_test_x", networkId: "" })).toThrow(/network id/);
  });
});

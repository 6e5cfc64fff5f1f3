import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { codeOf } from "./code-of.fixture.ts";
import { WebhookError } from "./errors.ts";
import { generateSigningSecret } from "./secrets.ts";
import { parseServiceSignature, signServiceSignature, verifyServiceSignature } from "./service-signature.ts";

const stripe = new Stripe("sk_test_unused_for_signature_checks");
const body = JSON.stringify({
  id: "evt_1",
  type: "service.letter.delivered",
  data: { object: { id: "o1" } },
});
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("Service-Signature", () => {
  it("is t=<seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>'> keyed with the whole secret string", () => {
    const secret = generateSigningSecret();
    const header = signServiceSignature({ body, timestamp: 1_767_225_600, secrets: [secret] });
    const expected = createHmac("sha256", secret).update(`1767225600.${body}`).digest("hex");
    expect(header).toBe(`t=1767225600,v1=${expected}`);
  });

  it("is verified by the stripe package's webhooks.constructEvent, unmodified", () => {
    const secret = generateSigningSecret();
    const header = signServiceSignature({ body, timestamp: nowSeconds(), secrets: [secret] });
    const event = stripe.webhooks.constructEvent(body, header, secret) as unknown as { id: string };
    expect(event.id).toBe("evt_1");
    expect(stripe.webhooks.constructEvent(Buffer.from(body), header, secret)).toBeTruthy();
  });

  it("is refused by stripe for a tampered body, an old timestamp and a wrong secret", () => {
    const secret = generateSigningSecret();
    const header = signServiceSignature({ body, timestamp: nowSeconds(), secrets: [secret] });
    expect(() => stripe.webhooks.constructEvent(body.replace("o1", "o2"), header, secret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => stripe.webhooks.constructEvent(body, header, generateSigningSecret())).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    const old = signServiceSignature({ body, timestamp: nowSeconds() - 301, secrets: [secret] });
    expect(() => stripe.webhooks.constructEvent(body, old, secret)).toThrow(/tolerance/);
  });

  it("carries one v1 per secret during a rotation, and stripe accepts either secret", () => {
    const [older, newer] = [generateSigningSecret(), generateSigningSecret()];
    const header = signServiceSignature({ body, timestamp: nowSeconds(), secrets: [newer, older] });
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(stripe.webhooks.constructEvent(body, header, older)).toBeTruthy();
    expect(stripe.webhooks.constructEvent(body, header, newer)).toBeTruthy();
    const onlyNewer = signServiceSignature({ body, timestamp: nowSeconds(), secrets: [newer] });
    expect(() => stripe.webhooks.constructEvent(body, onlyNewer, older)).toThrow();
  });

  it("verifies its own signatures in constant time, within 300 s either way", () => {
    const secret = generateSigningSecret();
    const t = 1_767_225_600;
    const header = signServiceSignature({ body, timestamp: t, secrets: [generateSigningSecret(), secret] });
    expect(verifyServiceSignature({ body, header, secret, now: t + 300 })).toEqual({ timestamp: t });
    expect(verifyServiceSignature({ body, header, secret, now: t - 300 })).toEqual({ timestamp: t });
    expect(codeOf(() => verifyServiceSignature({ body, header, secret, now: t + 301 }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(codeOf(() => verifyServiceSignature({ body, header, secret, now: t - 301 }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(codeOf(() => verifyServiceSignature({ body: `${body} `, header, secret, now: t }))).toBe(
      "signature_mismatch",
    );
    expect(
      codeOf(() => verifyServiceSignature({ body, header, secret: generateSigningSecret(), now: t })),
    ).toBe("signature_mismatch");
    expect(
      verifyServiceSignature({
        body,
        header,
        secret: [generateSigningSecret(), secret],
        now: t,
        toleranceSeconds: 5,
      }),
    ).toEqual({ timestamp: t });
  });

  it("refuses headers it cannot read, and never puts a secret in a message", () => {
    const secret = generateSigningSecret();
    for (const header of [undefined, "", "v1=abc", "t=abc,v1=abc", "t=1,t=2,v1=abc", "t=1", "t=1,v0=abc"]) {
      expect(
        codeOf(() => verifyServiceSignature({ body, header, secret, now: 1 })),
        String(header),
      ).toBe("signature_header_invalid");
    }
    expect(parseServiceSignature("t=5,v0=zz,v1=aa, v1=bb")).toEqual({
      timestamp: 5,
      signatures: ["aa", "bb"],
    });
    const messages: string[] = [];
    for (const bad of [`${secret}x`, "whsec_short", secret.slice(6)]) {
      try {
        signServiceSignature({ body, timestamp: 1, secrets: [bad] });
      } catch (error) {
        expect(WebhookError.isInstance(error) && error.code).toBe("invalid_secret");
        messages.push((error as Error).message);
      }
    }
    expect(messages).toHaveLength(3);
    for (const message of messages) expect(message).not.toContain(secret.slice(6, 20));
    expect(codeOf(() => signServiceSignature({ body, timestamp: 1.5, secrets: [secret] }))).toBe(
      "invalid_message",
    );
    expect(codeOf(() => signServiceSignature({ body, timestamp: 1, secrets: [] }))).toBe("invalid_message");
  });
});

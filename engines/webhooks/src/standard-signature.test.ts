import { Webhook, WebhookVerificationError } from "standardwebhooks";
import nacl from "tweetnacl";
import { describe, expect, it } from "vitest";
import { codeOf } from "./code-of.fixture.ts";
import { generateSigningKeyPair, generateSigningSecret, publicKeyOf } from "./secrets.ts";
import { standardWebhookHeaders, verifyStandardWebhook } from "./standard-signature.ts";

const body = JSON.stringify({ id: "evt_2", type: "service.postcard.in_transit", data: { object: {} } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("Standard Webhooks headers", () => {
  it("are verified by the standardwebhooks package's Webhook(secret).verify, unmodified", () => {
    const secret = generateSigningSecret();
    const headers = standardWebhookHeaders({ id: "evt_2", timestamp: nowSeconds(), body, secrets: [secret] });
    expect(headers["webhook-id"]).toBe("evt_2");
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it("are refused by standardwebhooks for a tampered body, an old timestamp and a wrong secret", () => {
    const secret = generateSigningSecret();
    const headers = {
      ...standardWebhookHeaders({ id: "evt_2", timestamp: nowSeconds(), body, secrets: [secret] }),
    };
    const webhook = new Webhook(secret);
    expect(() => webhook.verify(body.replace("evt_2", "evt_3"), headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow(
      WebhookVerificationError,
    );
    expect(() => webhook.verify(body, { ...headers, "webhook-id": "evt_9" })).toThrow(
      WebhookVerificationError,
    );
    const old = standardWebhookHeaders({
      id: "evt_2",
      timestamp: nowSeconds() - 301,
      body,
      secrets: [secret],
    });
    expect(() => webhook.verify(body, { ...old })).toThrow(/too old/);
  });

  it("sign with every secret of a rotation, space-separated, so either secret verifies", () => {
    const [older, newer] = [generateSigningSecret(), generateSigningSecret()];
    const headers = {
      ...standardWebhookHeaders({ id: "evt_2", timestamp: nowSeconds(), body, secrets: [newer, older] }),
    };
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(older).verify(body, headers)).toBeTruthy();
    expect(new Webhook(newer).verify(body, headers)).toBeTruthy();
  });

  it("add a v1a ed25519 entry (whsk_ seed, whpk_ public key) that tweetnacl and the engine verify", () => {
    const secret = generateSigningSecret();
    const pair = generateSigningKeyPair();
    expect(pair.signing_key).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(pair.public_key).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(publicKeyOf(pair.signing_key)).toBe(pair.public_key);
    const t = nowSeconds();
    const headers = standardWebhookHeaders({
      id: "evt_2",
      timestamp: t,
      body,
      secrets: [secret],
      signingKeys: [pair.signing_key],
    });
    const entries = headers["webhook-signature"].split(" ");
    expect(entries.map((entry) => entry.split(",")[0])).toEqual(["v1", "v1a"]);
    // The symmetric verifier skips the v1a entry and still accepts the v1 one.
    expect(new Webhook(secret).verify(body, { ...headers })).toBeTruthy();
    const signature = Buffer.from(entries[1]!.slice(4), "base64");
    const publicKey = Buffer.from(pair.public_key.slice(5), "base64");
    const signed = Buffer.from(`evt_2.${t}.${body}`);
    expect(nacl.sign.detached.verify(signed, signature, publicKey)).toBe(true);
    expect(nacl.sign.detached.verify(Buffer.from(`evt_2.${t}.${body} `), signature, publicKey)).toBe(false);
    expect(verifyStandardWebhook({ body, headers, publicKey: pair.public_key, now: t })).toEqual({
      id: "evt_2",
      timestamp: t,
    });
    expect(
      codeOf(() =>
        verifyStandardWebhook({ body, headers, publicKey: generateSigningKeyPair().public_key, now: t }),
      ),
    ).toBe("signature_mismatch");
  });

  it("are checked by the engine's own verifier: tampering, wrong secret, tolerance and missing headers", () => {
    const secret = generateSigningSecret();
    const t = 1_767_225_600;
    const headers = standardWebhookHeaders({ id: "evt_2", timestamp: t, body, secrets: [secret] });
    const upper = {
      "Webhook-Id": headers["webhook-id"],
      "Webhook-Timestamp": headers["webhook-timestamp"],
      "Webhook-Signature": headers["webhook-signature"],
    };
    expect(verifyStandardWebhook({ body, headers: upper, secret, now: t + 300 })).toEqual({
      id: "evt_2",
      timestamp: t,
    });
    expect(codeOf(() => verifyStandardWebhook({ body: `${body}\n`, headers, secret, now: t }))).toBe(
      "signature_mismatch",
    );
    expect(
      codeOf(() => verifyStandardWebhook({ body, headers, secret: generateSigningSecret(), now: t })),
    ).toBe("signature_mismatch");
    expect(codeOf(() => verifyStandardWebhook({ body, headers, secret, now: t + 301 }))).toBe(
      "timestamp_out_of_tolerance",
    );
    expect(
      codeOf(() =>
        verifyStandardWebhook({ body, headers: { ...headers, "webhook-id": "" }, secret, now: t }),
      ),
    ).toBe("signature_header_invalid");
    expect(codeOf(() => verifyStandardWebhook({ body, headers, now: t }))).toBe("invalid_message");
  });

  it("refuse a message id that could shift the signed parts, and malformed keys", () => {
    const secret = generateSigningSecret();
    expect(codeOf(() => standardWebhookHeaders({ id: "evt.2", timestamp: 1, body, secrets: [secret] }))).toBe(
      "invalid_message",
    );
    expect(
      codeOf(() =>
        standardWebhookHeaders({
          id: "evt_2",
          timestamp: 1,
          body,
          secrets: [secret],
          signingKeys: ["whsk_abc"],
        }),
      ),
    ).toBe("invalid_key");
    expect(codeOf(() => publicKeyOf("whpk_AAAA"))).toBe("invalid_key");
  });
});

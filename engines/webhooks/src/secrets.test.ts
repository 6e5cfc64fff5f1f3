import { describe, expect, it } from "vitest";
import { WebhookError } from "./errors.ts";
import {
  generateSigningKeyPair,
  generateSigningSecret,
  isSigningSecret,
  signingSecretKey,
} from "./secrets.ts";

describe("signing secrets", () => {
  it("are whsec_ and the padded base64 of 32 random bytes from the injected source", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => i);
    const secret = generateSigningSecret((size) => bytes.slice(0, size));
    expect(secret).toBe(`whsec_${Buffer.from(bytes).toString("base64")}`);
    expect(signingSecretKey(secret)).toEqual(bytes);
    expect(isSigningSecret(secret)).toBe(true);
  });

  it("differ each time from the system source", () => {
    const secrets = new Set(Array.from({ length: 20 }, () => generateSigningSecret()));
    expect(secrets.size).toBe(20);
    for (const secret of secrets) expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it("accept 24 to 64 bytes and nothing else", () => {
    const of = (size: number) => `whsec_${Buffer.alloc(size, 1).toString("base64")}`;
    expect([23, 24, 64, 65].map((size) => isSigningSecret(of(size)))).toEqual([false, true, true, false]);
    expect(isSigningSecret(of(32).replace("whsec_", "whsk_"))).toBe(false);
    expect(isSigningSecret(`${of(32)}\n`)).toBe(false);
    expect(() => signingSecretKey("whsec_!!")).toThrow(WebhookError);
  });

  it("refuse a random source that gives the wrong number of bytes", () => {
    expect(() => generateSigningSecret(() => new Uint8Array(8))).toThrow(/32 bytes/);
    expect(() => generateSigningKeyPair(() => new Uint8Array(8))).toThrow(/32 bytes/);
  });

  it("give ed25519 key pairs that are deterministic for a seed", () => {
    const seed = new Uint8Array(32).fill(7);
    expect(generateSigningKeyPair(() => seed)).toEqual(generateSigningKeyPair(() => seed));
    expect(generateSigningKeyPair().public_key).not.toBe(generateSigningKeyPair().public_key);
  });
});

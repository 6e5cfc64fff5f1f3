import nacl from "tweetnacl";
import { fromBase64, toBase64 } from "./base64.ts";
import { WebhookError } from "./errors.ts";
import { type RandomBytes, systemRandom } from "./random.ts";

/** The prefix of a signing secret (Standard Webhooks' symmetric secret serialisation). */
export const SECRET_PREFIX = "whsec_";
/** The prefix of an ed25519 secret key (the 32-byte seed), and of its public key. */
export const SIGNING_KEY_PREFIX = "whsk_";
export const PUBLIC_KEY_PREFIX = "whpk_";
/** Random bytes in a new signing secret. */
export const SECRET_BYTES = 32;
/** The shortest and longest secret Standard Webhooks accepts, in bytes. */
export const MIN_SECRET_BYTES = 24;
export const MAX_SECRET_BYTES = 64;

/**
 * A new signing secret: `whsec_` and the standard base64 of 32 random bytes. The same string keys both schemes:
 * `Service-Signature` HMACs with the whole string, Standard Webhooks with the decoded bytes after the prefix.
 */
export function generateSigningSecret(random: RandomBytes = systemRandom): string {
  const bytes = random(SECRET_BYTES);
  if (!(bytes instanceof Uint8Array) || bytes.length !== SECRET_BYTES) {
    throw new WebhookError("invalid_secret", `the random source must give ${SECRET_BYTES} bytes`);
  }
  return `${SECRET_PREFIX}${toBase64(bytes)}`;
}

/** True for `whsec_` and the standard base64 of 24 to 64 bytes. */
export function isSigningSecret(value: unknown): value is string {
  return typeof value === "string" && secretBytesOf(value) !== undefined;
}

/**
 * The key Standard Webhooks HMACs with: the decoded bytes after `whsec_`. Throws `invalid_secret` (the message never
 * repeats the secret).
 */
export function signingSecretKey(secret: string): Uint8Array {
  const bytes = secretBytesOf(secret);
  if (!bytes) {
    throw new WebhookError(
      "invalid_secret",
      `a signing secret is ${SECRET_PREFIX} followed by the base64 of ${MIN_SECRET_BYTES} to ${MAX_SECRET_BYTES} bytes`,
    );
  }
  return bytes;
}

function secretBytesOf(secret: unknown): Uint8Array | undefined {
  if (typeof secret !== "string" || !secret.startsWith(SECRET_PREFIX)) return undefined;
  const bytes = fromBase64(secret.slice(SECRET_PREFIX.length));
  return bytes && bytes.length >= MIN_SECRET_BYTES && bytes.length <= MAX_SECRET_BYTES ? bytes : undefined;
}

/** An ed25519 key pair in Standard Webhooks' form: `whsk_` + base64 of the 32-byte seed, `whpk_` + base64 of the public key. */
export interface SigningKeyPair {
  signing_key: string;
  public_key: string;
}

/** A new ed25519 key pair (tweetnacl) from 32 random bytes. */
export function generateSigningKeyPair(random: RandomBytes = systemRandom): SigningKeyPair {
  const seed = random(nacl.sign.seedLength);
  if (!(seed instanceof Uint8Array) || seed.length !== nacl.sign.seedLength) {
    throw new WebhookError("invalid_key", `the random source must give ${nacl.sign.seedLength} bytes`);
  }
  const pair = nacl.sign.keyPair.fromSeed(seed);
  return {
    signing_key: `${SIGNING_KEY_PREFIX}${toBase64(seed)}`,
    public_key: `${PUBLIC_KEY_PREFIX}${toBase64(pair.publicKey)}`,
  };
}

/** The `whpk_` public key of a `whsk_` secret key. Throws `invalid_key`. */
export function publicKeyOf(signingKey: string): string {
  return `${PUBLIC_KEY_PREFIX}${toBase64(signingKeyPair(signingKey).publicKey)}`;
}

/** The tweetnacl key pair of a `whsk_` secret key. Throws `invalid_key`. */
export function signingKeyPair(signingKey: string): nacl.SignKeyPair {
  return nacl.sign.keyPair.fromSeed(keyBytes(signingKey, SIGNING_KEY_PREFIX, nacl.sign.seedLength));
}

/** The 32 bytes of a `whpk_` public key. Throws `invalid_key`. */
export function publicKeyBytes(publicKey: string): Uint8Array {
  return keyBytes(publicKey, PUBLIC_KEY_PREFIX, nacl.sign.publicKeyLength);
}

function keyBytes(key: unknown, prefix: string, length: number): Uint8Array {
  const bytes =
    typeof key === "string" && key.startsWith(prefix) ? fromBase64(key.slice(prefix.length)) : undefined;
  if (!bytes || bytes.length !== length) {
    throw new WebhookError(
      "invalid_key",
      `an ed25519 key here is ${prefix} followed by the base64 of ${length} bytes`,
    );
  }
  return bytes;
}

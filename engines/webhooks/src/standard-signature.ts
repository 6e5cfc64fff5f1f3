import { createHmac } from "node:crypto";
import nacl from "tweetnacl";
import { fromBase64, toBase64 } from "./base64.ts";
import { sameText } from "./compare.ts";
import { WebhookError } from "./errors.ts";
import {
  atLeastOne,
  bodyBytes,
  checkTimestamp,
  checkTolerance,
  DEFAULT_TOLERANCE_SECONDS,
  type WebhookBody,
} from "./message.ts";
import { publicKeyBytes, signingKeyPair, signingSecretKey } from "./secrets.ts";

/** The three headers of Standard Webhooks, lower case as HTTP/2 and Node give them. */
export type StandardWebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  /** Space-separated `v1,<base64 HMAC>` and `v1a,<base64 ed25519 signature>` entries. */
  "webhook-signature": string;
};

/** A message id: letters, digits, `_` and `-` (never a `.`, which separates the signed parts), 1 to 128 characters. */
const MESSAGE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * The Standard Webhooks headers for a body: `webhook-id` (the event id, the same on every retry and replay),
 * `webhook-timestamp`, and `webhook-signature` with one `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">` per secret,
 * keyed with the bytes after `whsec_` (what the `standardwebhooks` package's `Webhook(secret).verify` checks), then
 * one `v1a,<base64 ed25519 signature>` of the same text per `whsk_` signing key (tweetnacl).
 */
export function standardWebhookHeaders(input: {
  id: string;
  /** Whole seconds since the epoch. */
  timestamp: number;
  body: WebhookBody;
  secrets: readonly string[];
  signingKeys?: readonly string[];
}): StandardWebhookHeaders {
  const id = checkMessageId(input.id);
  const timestamp = checkTimestamp(input.timestamp);
  const signed = signedContent(id, timestamp, bodyBytes(input.body));
  const symmetric = atLeastOne(input.secrets, "secret").map(
    (secret) => `v1,${standardDigest(signingSecretKey(secret), signed)}`,
  );
  const asymmetric = (input.signingKeys ?? []).map(
    (key) => `v1a,${toBase64(nacl.sign.detached(signed, signingKeyPair(key).secretKey))}`,
  );
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": [...symmetric, ...asymmetric].join(" "),
  };
}

/**
 * Checks Standard Webhooks headers against the raw body: with `secret` (a `whsec_` secret, or several) some `v1`
 * entry must match in constant time; with `publicKey` (`whpk_`, or several) some `v1a` entry must be a valid ed25519
 * signature. Give one of the two. Throws `signature_header_invalid` (a header missing or unreadable),
 * `signature_mismatch`, or `timestamp_out_of_tolerance` (more than `toleranceSeconds`, default 300, from `now`).
 * Header names are matched case-insensitively. Returns the message id and timestamp.
 */
export function verifyStandardWebhook(input: {
  body: WebhookBody;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  secret?: string | readonly string[];
  publicKey?: string | readonly string[];
  /** The receiver's time, in seconds since the epoch. */
  now: number;
  toleranceSeconds?: number;
}): { id: string; timestamp: number } {
  const header = (name: string) => {
    const found = Object.entries(input.headers).find(([key]) => key.toLowerCase() === name)?.[1];
    const value = Array.isArray(found) ? found[0] : found;
    if (typeof value !== "string" || value === "") {
      throw new WebhookError("signature_header_invalid", `the ${name} header is missing`);
    }
    return value;
  };
  const id = header("webhook-id");
  const timestampText = header("webhook-timestamp");
  const signatures = header("webhook-signature").split(" ");
  if (!MESSAGE_ID.test(id) || !/^[0-9]{1,15}$/.test(timestampText)) {
    throw new WebhookError("signature_header_invalid", "webhook-id or webhook-timestamp cannot be read");
  }
  const timestamp = Number(timestampText);
  const signed = signedContent(id, timestamp, bodyBytes(input.body));
  const entries = (version: string) =>
    signatures.flatMap((entry) => {
      const comma = entry.indexOf(",");
      return comma > 0 && entry.slice(0, comma) === version ? [entry.slice(comma + 1)] : [];
    });
  if ((input.secret === undefined) === (input.publicKey === undefined)) {
    throw new WebhookError("invalid_message", "give a secret or a public key to verify with, not both");
  }
  let matched = false;
  if (input.secret !== undefined) {
    const secrets = typeof input.secret === "string" ? [input.secret] : input.secret;
    for (const secret of atLeastOne(secrets, "secret")) {
      const expected = standardDigest(signingSecretKey(secret), signed);
      for (const candidate of entries("v1")) if (sameText(candidate, expected)) matched = true;
    }
  } else {
    const keys = typeof input.publicKey === "string" ? [input.publicKey] : (input.publicKey ?? []);
    for (const key of atLeastOne(keys, "public key")) {
      const publicKey = publicKeyBytes(key);
      for (const candidate of entries("v1a")) {
        const signature = fromBase64(candidate);
        if (
          signature?.length === nacl.sign.signatureLength &&
          nacl.sign.detached.verify(signed, signature, publicKey)
        )
          matched = true;
      }
    }
  }
  if (!matched) throw new WebhookError("signature_mismatch", "no signature matches the body with this key");
  checkTolerance(timestamp, input.now, input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
  return { id, timestamp };
}

function checkMessageId(id: string): string {
  if (typeof id !== "string" || !MESSAGE_ID.test(id)) {
    throw new WebhookError(
      "invalid_message",
      "a message id is 1 to 128 letters, digits, _ or - (never a dot, which separates the signed parts)",
    );
  }
  return id;
}

function signedContent(id: string, timestamp: number, body: Buffer): Uint8Array {
  return new Uint8Array(Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), body]));
}

function standardDigest(key: Uint8Array, signed: Uint8Array): string {
  return createHmac("sha256", key).update(signed).digest("base64");
}

import { PaymentError } from "@mailpiece/ports";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

/** The EIP-3009 `transferWithAuthorization` a buyer signs for the x402 `exact` scheme on EVM. */
export interface Eip3009Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

/** A decoded PAYMENT-SIGNATURE header carrying an exact-EVM EIP-3009 payment. */
export interface ExactEvmPaymentPayload extends PaymentPayload {
  x402Version: 2;
  accepted: PaymentRequirements;
  payload: { signature: `0x${string}`; authorization: Eip3009Authorization };
}

/** Header values longer than this are refused before decoding (Node's default header limit is 16 KiB). */
const MAX_HEADER_LENGTH = 16_384;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;
const UINT = /^(?:0|[1-9][0-9]{0,77})$/;

function malformed(reason: string, cause?: unknown): PaymentError {
  return new PaymentError(
    "malformed_credential",
    `PAYMENT-SIGNATURE is not an x402 v2 exact-EVM payment: ${reason}`,
    {
      cause,
    },
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function requireString(record: Record<string, unknown>, key: string, pattern: RegExp, path: string): string {
  const value = record[key];
  if (typeof value !== "string" || !pattern.test(value))
    throw malformed(`${path}.${key} is missing or invalid`);
  return value;
}

/**
 * Checks the shape of a decoded payment payload and returns it typed. Refuses (`malformed_credential`) anything
 * that is not x402 v2 with an `accepted` requirement and an EIP-3009 authorization with its signature.
 */
export function parsePaymentPayload(decoded: unknown): ExactEvmPaymentPayload {
  if (!isRecord(decoded)) throw malformed("the JSON is not an object");
  if (decoded.x402Version !== 2) throw malformed("x402Version must be 2");
  const accepted = decoded.accepted;
  if (!isRecord(accepted)) throw malformed("accepted is missing");
  for (const key of ["scheme", "network", "amount", "asset", "payTo"]) {
    if (typeof accepted[key] !== "string") throw malformed(`accepted.${key} is missing`);
  }
  if (typeof accepted.maxTimeoutSeconds !== "number")
    throw malformed("accepted.maxTimeoutSeconds is missing");
  if (accepted.extra !== undefined && !isRecord(accepted.extra))
    throw malformed("accepted.extra is not an object");
  if (decoded.resource !== undefined && decoded.resource !== null) {
    if (!isRecord(decoded.resource) || typeof decoded.resource.url !== "string") {
      throw malformed("resource.url is missing");
    }
  }
  if (decoded.extensions !== undefined && decoded.extensions !== null && !isRecord(decoded.extensions)) {
    throw malformed("extensions is not an object");
  }
  const payload = decoded.payload;
  if (!isRecord(payload)) throw malformed("payload is missing");
  requireString(payload, "signature", HEX, "payload");
  const authorization = payload.authorization;
  if (!isRecord(authorization)) throw malformed("payload.authorization is missing");
  const path = "payload.authorization";
  requireString(authorization, "from", ADDRESS, path);
  requireString(authorization, "to", ADDRESS, path);
  requireString(authorization, "value", UINT, path);
  requireString(authorization, "validAfter", UINT, path);
  requireString(authorization, "validBefore", UINT, path);
  requireString(authorization, "nonce", BYTES32, path);
  return decoded as unknown as ExactEvmPaymentPayload;
}

/**
 * Reads and decodes a PAYMENT-SIGNATURE header value with the x402 codec (standard base64 of UTF-8 JSON). Refuses
 * (`malformed_credential`) an empty or oversized value before decoding, one that is not base64 of JSON, and one
 * whose JSON is not an exact-EVM payment.
 */
export function decodePaymentSignature(value: string): ExactEvmPaymentPayload {
  if (value.length === 0) throw malformed("the header is empty");
  if (value.length > MAX_HEADER_LENGTH) {
    throw malformed(`the header is longer than ${MAX_HEADER_LENGTH} characters`);
  }
  // The codec's own check admits an empty value; this one admits only non-empty standard base64.
  if (!BASE64.test(value)) throw malformed("the header is not standard base64");
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(value);
  } catch (error) {
    throw malformed("the header is not base64 of UTF-8 JSON", error);
  }
  return parsePaymentPayload(decoded);
}

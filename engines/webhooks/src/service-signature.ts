import { createHmac } from "node:crypto";
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
import { signingSecretKey } from "./secrets.ts";

/** The header that carries the HMAC signature: `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`. */
export const SERVICE_SIGNATURE_HEADER = "Service-Signature";

/**
 * The `Service-Signature` value for a body: `t=<timestamp>` then one `v1=<hex HMAC-SHA256 of "<t>.<body>">` per
 * secret, keyed with the whole secret string (`whsec_...`), in the order given. Several secrets sign during a
 * rotation's overlap; a receiver accepts the body when any `v1` matches its secret. This is the form Stripe's
 * `webhooks.constructEvent(body, header, secret)` verifies.
 */
export function signServiceSignature(input: {
  body: WebhookBody;
  /** Whole seconds since the epoch. */
  timestamp: number;
  secrets: readonly string[];
}): string {
  const timestamp = checkTimestamp(input.timestamp);
  const body = bodyBytes(input.body);
  const signatures = atLeastOne(input.secrets, "secret").map((secret) => {
    signingSecretKey(secret);
    return `v1=${serviceDigest(secret, timestamp, body)}`;
  });
  return [`t=${timestamp}`, ...signatures].join(",");
}

/**
 * Checks a `Service-Signature` header against the raw body and the receiver's secret (or any of several): the
 * header must hold one `t=` and at least one `v1=` (`signature_header_invalid`), some `v1` must equal the HMAC
 * computed with one of the secrets, compared in constant time (`signature_mismatch`), and the timestamp must be
 * within `toleranceSeconds` (default 300) of `now` either way (`timestamp_out_of_tolerance`). Returns the signed
 * timestamp.
 */
export function verifyServiceSignature(input: {
  body: WebhookBody;
  header: string | undefined;
  secret: string | readonly string[];
  /** The receiver's time, in seconds since the epoch. */
  now: number;
  toleranceSeconds?: number;
}): { timestamp: number } {
  const parsed = parseServiceSignature(input.header);
  const body = bodyBytes(input.body);
  const secrets = typeof input.secret === "string" ? [input.secret] : atLeastOne(input.secret, "secret");
  let matched = false;
  for (const secret of secrets) {
    signingSecretKey(secret);
    const expected = serviceDigest(secret, parsed.timestamp, body);
    // Every candidate is compared, so the time taken does not say which one matched.
    for (const candidate of parsed.signatures) if (sameText(candidate, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookError("signature_mismatch", "no v1 signature matches the body with this secret");
  }
  checkTolerance(parsed.timestamp, input.now, input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS);
  return { timestamp: parsed.timestamp };
}

/** The timestamp and the `v1` signatures of a header; other schemes are ignored. */
export function parseServiceSignature(header: string | undefined): {
  timestamp: number;
  signatures: string[];
} {
  const invalid = (why: string) =>
    new WebhookError("signature_header_invalid", `${SERVICE_SIGNATURE_HEADER} ${why}`);
  if (typeof header !== "string" || header.trim() === "") throw invalid("is missing");
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const item of header.split(",")) {
    const at = item.indexOf("=");
    const name = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (at <= 0) continue;
    if (name === "t") {
      if (timestamp !== undefined || !/^[0-9]{1,15}$/.test(value)) throw invalid("has an unreadable t=");
      timestamp = Number(value);
    } else if (name === "v1" && value !== "") {
      signatures.push(value);
    }
  }
  if (timestamp === undefined) throw invalid("has no t=");
  if (signatures.length === 0) throw invalid("has no v1=");
  return { timestamp, signatures };
}

function serviceDigest(secret: string, timestamp: number, body: Buffer): string {
  return createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(body).digest("hex");
}

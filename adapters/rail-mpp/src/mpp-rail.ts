import { isDeepStrictEqual } from "node:util";
import type {
  Charge,
  Clock,
  PaymentChallenge,
  PaymentConfirmation,
  PaymentCredential,
  PaymentRail,
  Settlement,
  VerifiedPayment,
} from "@mailpiece/ports";
import { PaymentError, systemClock } from "@mailpiece/ports";
import { Challenge, Credential, Errors, PaymentRequest, Receipt } from "mppx";
import { Mppx } from "mppx/server";
import type { MppMethodConfig } from "./method-config.ts";
import { centsToDecimal } from "./method-config.ts";
import { mppProblem, PROBLEM_CONTENT_TYPE, paymentRequiredProblem } from "./mpp-problem.ts";

export interface MppRailOptions {
  /** The protection space named in every challenge, usually the public host name. */
  realm: string;
  /** The HMAC key that binds challenge ids to their contents; at least 32 bytes. */
  secretKey: string;
  /**
   * Keys used before a rotation. Challenges they signed keep verifying until they expire; new challenges are
   * signed with `secretKey` only.
   */
  previousSecretKeys?: string[];
  /** The methods offered, one `WWW-Authenticate` challenge each, in this order. */
  methods: MppMethodConfig[];
  /** How long a challenge can be paid. Default 300 seconds. */
  challengeTtlSeconds?: number;
  clock?: Clock;
}

/** What `verify` hands to `settle` and `confirm`: plain JSON, so the core may store it between them. */
interface MppPaymentDetails {
  method: string;
  intent: string;
  credential: Credential.Credential;
}

/** What `settle` hands to `receiptHeaders`. */
interface MppSettlementDetails {
  receipt: Receipt.Receipt;
}

const MIN_SECRET_BYTES = 32;
const DEFAULT_TTL_SECONDS = 300;
const AUTHORIZATION = "authorization";
const PAYMENT_SCHEME = /^payment(?:\s+|$)/i;

type ChallengeFn = (options: Record<string, unknown>) => Promise<Challenge.Challenge>;

/**
 * A PaymentRail for MPP, the "Payment" HTTP authentication scheme, on mppx. Challenges are built by mppx, so
 * their ids carry the reference HMAC binding; credentials are checked against that binding, their expiry, the
 * charge (amount, currency, recipient, order) and the method's own non-mutating verification. The rail keeps
 * no state: the core claims the replay key (`mpp:<challenge id>`) before it settles.
 */
export function createMppRail(options: MppRailOptions): PaymentRail {
  const { realm, secretKey, methods } = options;
  const clock = options.clock ?? systemClock;
  const ttlSeconds = options.challengeTtlSeconds ?? DEFAULT_TTL_SECONDS;
  const previousKeys = options.previousSecretKeys ?? [];

  assertSecretKey(secretKey, "secretKey");
  for (const [index, key] of previousKeys.entries()) assertSecretKey(key, `previousSecretKeys[${index}]`);
  if (realm.length === 0 || /[\r\n"\\]/.test(realm)) {
    throw new TypeError("realm must be a non-empty string without quotes, backslashes or line breaks");
  }
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) {
    throw new RangeError(`challengeTtlSeconds must be a positive integer, got ${ttlSeconds}`);
  }
  if (methods.length === 0) throw new TypeError("createMppRail needs at least one payment method");
  const seen = new Set<string>();
  for (const config of methods) {
    const key = methodKey(config.server.name, config.server.intent);
    if (seen.has(key)) throw new TypeError(`payment method ${key} is configured twice`);
    seen.add(key);
  }

  /**
   * The credential in an Authorization value: undefined when no part of it uses the Payment scheme (several
   * schemes may be joined by commas; base64url never contains one), `malformed_credential` when the Payment part
   * does not decode.
   */
  async function parseCredential(value: string): Promise<PaymentCredential | undefined> {
    const payment = value
      .split(",")
      .map((part) => part.trim())
      .find((part) => PAYMENT_SCHEME.test(part));
    if (payment === undefined) return undefined;
    let decoded: Credential.Credential;
    try {
      decoded = Credential.deserialize(payment);
    } catch (error) {
      throw new PaymentError(
        "malformed_credential",
        "The Authorization: Payment credential is not base64url-encoded JSON with a challenge and a payload.",
        { cause: error },
      );
    }
    return { protocol: "mpp", raw: value, decoded };
  }

  // mppx builds and signs the challenges, so the id binding is the reference one.
  const mppx = Mppx.create({ methods: methods.map((config) => config.server), realm, secretKey });
  const generators = mppx.challenge as unknown as Record<string, Record<string, ChallengeFn> | undefined>;
  const verificationKeys = [secretKey, ...previousKeys];

  function findMethod(name: string, intent: string): MppMethodConfig | undefined {
    return methods.find((config) => config.server.name === name && config.server.intent === intent);
  }

  async function issue(
    config: MppMethodConfig,
    charge: Charge,
    expires: string,
  ): Promise<Challenge.Challenge> {
    const generate = generators[config.server.name]?.[config.server.intent];
    if (generate === undefined) {
      throw new Error(
        `mppx has no challenge generator for ${methodKey(config.server.name, config.server.intent)}`,
      );
    }
    return generate({
      ...config.request(charge),
      description: oneLine(charge.description),
      expires,
      meta: orderMeta(charge),
    });
  }

  return {
    protocol: "mpp",
    simulated: methods.every((config) => config.simulated),

    async challenge(charge, failure) {
      assertCharge(charge);
      const expires = rfc3339(Math.floor(clock.now() / 1000) * 1000 + ttlSeconds * 1000);
      const challenges = await Promise.all(methods.map((config) => issue(config, charge, expires)));
      const offered = challenges.map((challenge) => challenge.method).join(", ");
      const which =
        challenges.length === 1
          ? `the Payment challenge in the WWW-Authenticate header (method: ${offered})`
          : `one of the ${challenges.length} Payment challenges in the WWW-Authenticate headers (methods: ${offered})`;
      const detail =
        `Pay $${centsToDecimal(charge.amount_cents)} for ${oneLine(charge.description)}: pay ${which}, then ` +
        `send this request again unchanged with the header "Authorization: Payment <credential>". ` +
        `Unpaid challenges expire at ${expires}.`;
      const problem = failure ? mppProblem(failure) : undefined;
      const result: PaymentChallenge = {
        status: problem?.status ?? 402,
        headers: {
          "WWW-Authenticate": challenges.map((challenge) => Challenge.serialize(challenge)),
          "Cache-Control": "no-store",
          // The client may retry as soon as it has paid.
          "Retry-After": "0",
        },
        body: problem
          ? { ...problem.body, detail: `${problem.body.detail}. ${detail}` }
          : paymentRequiredProblem(detail),
        contentType: PROBLEM_CONTENT_TYPE,
      };
      return result;
    },

    credentialHeader: AUTHORIZATION,

    parseCredential,

    async readCredential(headers) {
      const value = headers.get(AUTHORIZATION);
      return value === null ? undefined : parseCredential(value);
    },

    async verify(credential, charge) {
      assertCharge(charge);
      const decoded = asCredential(credential);
      const { challenge } = decoded;

      if (!verificationKeys.some((key) => Challenge.verify(challenge, { secretKey: key }))) {
        throw new PaymentError(
          "invalid_challenge",
          `Challenge "${challenge.id}" was not issued by this server, or its contents were changed.`,
        );
      }
      if (challenge.realm !== realm) {
        throw new PaymentError("invalid_challenge", `Challenge "${challenge.id}" belongs to another realm.`);
      }
      const expiresAt = challenge.expires === undefined ? Number.NaN : Date.parse(challenge.expires);
      if (Number.isNaN(expiresAt)) {
        throw new PaymentError("invalid_challenge", `Challenge "${challenge.id}" has no valid expiry.`);
      }
      if (expiresAt <= clock.now()) {
        throw new PaymentError(
          "payment_expired",
          `Challenge "${challenge.id}" expired at ${challenge.expires}.`,
        );
      }

      const config = findMethod(challenge.method, challenge.intent);
      if (config === undefined) {
        throw new PaymentError(
          "method_unsupported",
          `Payment method ${methodKey(challenge.method, challenge.intent)} is not offered here.`,
        );
      }

      const expected = await issue(config, charge, challenge.expires ?? "");
      const mismatch = findMismatch(expected, challenge);
      if (mismatch !== undefined) {
        throw new PaymentError(
          "payment_mismatch",
          `Challenge "${challenge.id}" was issued for a different ${mismatch} than this order's charge.`,
        );
      }

      const payload = config.server.schema.credential.payload.safeParse(decoded.payload);
      if (!payload.success) {
        throw new PaymentError(
          "malformed_credential",
          `The credential payload does not fit the ${challenge.method} method: ${payload.error.message}`,
          { cause: payload.error },
        );
      }
      const parsed: Credential.Credential = { ...decoded, payload: payload.data };

      let source = parsed.source;
      if (config.server.validate !== undefined) {
        try {
          const validation = await config.server.validate({ credential: parsed, request: challenge.request });
          source ??= validation.source;
        } catch (error) {
          throw fromMethodError(error);
        }
      }

      const details: MppPaymentDetails = {
        method: challenge.method,
        intent: challenge.intent,
        credential: parsed,
      };
      const verified: VerifiedPayment = {
        protocol: "mpp",
        replayKey: `mpp:${challenge.id}`,
        amount_cents: charge.amount_cents,
        details,
        ...(source !== undefined ? { payer: source } : {}),
      };
      return verified;
    },

    async settle(payment, charge) {
      const details = asPaymentDetails(payment);
      if (payment.amount_cents !== charge.amount_cents) {
        throw new PaymentError(
          "payment_mismatch",
          "The verified payment is for a different amount than the charge.",
        );
      }
      const config = findMethod(details.method, details.intent);
      if (config === undefined) {
        throw new PaymentError(
          "method_unsupported",
          `Payment method ${methodKey(details.method, details.intent)} is not offered here.`,
        );
      }
      // For a charge, the method's terminal step moves the money and yields the receipt.
      const terminal = config.server.broadcast ?? config.server.verify;
      let receipt: Receipt.Receipt;
      try {
        receipt = await terminal({
          credential: details.credential,
          request: details.credential.challenge.request,
        });
      } catch (error) {
        if (error instanceof Errors.PaymentError) {
          throw new PaymentError("settlement_failed", error.message, { cause: error });
        }
        throw new PaymentError(
          "facilitator_unavailable",
          `The ${details.method} payment could not be completed and its outcome is unknown: ${messageOf(error)}`,
          { cause: error },
        );
      }
      const settlementDetails: MppSettlementDetails = { receipt };
      const settlement: Settlement = {
        protocol: "mpp",
        status: "settled",
        reference: receipt.reference,
        amount_cents: charge.amount_cents,
        settledAt: clock.now(),
        details: settlementDetails,
        ...(payment.payer !== undefined ? { payer: payment.payer } : {}),
      };
      return settlement;
    },

    async confirm(payment): Promise<PaymentConfirmation> {
      // A question without the verified details cannot name the charge.
      const details = asStoredDetails(payment.details);
      if (payment.replayKey !== `mpp:${details.credential.challenge.id}`) {
        throw new PaymentError(
          "payment_mismatch",
          "The replay key does not belong to this payment's challenge.",
        );
      }
      const config = findMethod(details.method, details.intent);
      if (config === undefined) {
        throw new PaymentError(
          "method_unsupported",
          `Payment method ${methodKey(details.method, details.intent)} is not offered here.`,
        );
      }
      // A method that cannot be asked (its provider has no read for a charge) leaves the payment pending.
      if (config.confirm === undefined) return { status: "pending" };
      const answer = await config.confirm({
        credential: details.credential,
        startedAt: payment.startedAt,
        ...(payment.reference !== undefined ? { reference: payment.reference } : {}),
      });
      if (answer.status === "pending") return { status: "pending" };
      if (answer.status === "failed") {
        return { status: "failed", code: "settlement_failed", message: answer.message };
      }
      const receipt = Receipt.Schema.parse(answer.receipt);
      const settledAt = Date.parse(receipt.timestamp);
      const source = details.credential.source;
      const settlementDetails: MppSettlementDetails = { receipt };
      const settlement: Settlement = {
        protocol: "mpp",
        status: "settled",
        reference: receipt.reference,
        amount_cents: payment.amount_cents,
        settledAt: Number.isNaN(settledAt) ? payment.startedAt : settledAt,
        details: settlementDetails,
        ...(typeof source === "string" ? { payer: source } : {}),
      };
      return settlement;
    },

    receiptHeaders(settlement) {
      const receipt = Receipt.Schema.safeParse(
        (settlement.details as Partial<MppSettlementDetails> | null)?.receipt,
      );
      if (settlement.protocol !== "mpp" || !receipt.success) {
        throw new TypeError("receiptHeaders needs a settlement returned by this rail's settle");
      }
      return { "Payment-Receipt": Receipt.serialize(receipt.data), "Cache-Control": "private" };
    },
  };
}

function assertSecretKey(key: string, name: string): void {
  const bytes = new TextEncoder().encode(key).byteLength;
  if (bytes < MIN_SECRET_BYTES) {
    throw new RangeError(
      `${name} must be at least ${MIN_SECRET_BYTES} bytes (got ${bytes}); generate one with \`openssl rand -base64 32\``,
    );
  }
}

function assertCharge(charge: Charge): void {
  if (!Number.isSafeInteger(charge.amount_cents) || charge.amount_cents < 0) {
    throw new RangeError(`amount_cents must be a non-negative integer, got ${charge.amount_cents}`);
  }
}

function methodKey(name: string, intent: string): string {
  return `${name}/${intent}`;
}

/** Server-defined correlation data, bound into the challenge id and echoed by the client as `opaque`. */
function orderMeta(charge: Charge): Record<string, string> {
  return { order_ref: charge.order_ref, resource: charge.resource_url };
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ").trim();
}

/** RFC 3339 in UTC, to the second. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function asCredential(credential: PaymentCredential): Credential.Credential {
  const decoded = credential.decoded as Partial<Credential.Credential> | null;
  if (credential.protocol !== "mpp" || typeof decoded?.challenge?.id !== "string") {
    throw new PaymentError("malformed_credential", "The credential was not read by the MPP rail.");
  }
  return decoded as Credential.Credential;
}

function asPaymentDetails(payment: VerifiedPayment): MppPaymentDetails {
  const details = payment.details as Partial<MppPaymentDetails> | null;
  if (
    payment.protocol !== "mpp" ||
    typeof details?.method !== "string" ||
    typeof details.intent !== "string" ||
    details.credential === undefined
  ) {
    throw new PaymentError("settlement_failed", "The payment was not verified by the MPP rail.");
  }
  return details as MppPaymentDetails;
}

/** The details `verify` returned, read back from the store. */
function asStoredDetails(value: unknown): MppPaymentDetails {
  const details = value as Partial<MppPaymentDetails> | null | undefined;
  if (
    typeof details !== "object" ||
    details === null ||
    typeof details.method !== "string" ||
    typeof details.intent !== "string" ||
    typeof details.credential?.challenge?.id !== "string"
  ) {
    throw new PaymentError("method_unsupported", "The payment was not verified by the MPP rail.");
  }
  return details as MppPaymentDetails;
}

/** The first field in which a credential's challenge differs from the one this charge gets now. */
function findMismatch(expected: Challenge.Challenge, actual: Challenge.Challenge): string | undefined {
  let actualMeta: unknown;
  try {
    actualMeta = actual.opaque === undefined ? undefined : PaymentRequest.deserialize(actual.opaque);
  } catch {
    return "order";
  }
  const expectedMeta = expected.meta ?? {};
  const meta = (actualMeta ?? {}) as Record<string, unknown>;
  if (meta.order_ref !== expectedMeta.order_ref) return "order";
  if (meta.resource !== expectedMeta.resource) return "resource";
  if (!isDeepStrictEqual(meta, expectedMeta)) return "opaque";

  // Compare the request as it travels (JSON, without undefined members).
  const want = JSON.parse(JSON.stringify(expected.request)) as Record<string, unknown>;
  const got = JSON.parse(JSON.stringify(actual.request)) as Record<string, unknown>;
  const first = ["amount", "currency", "recipient"];
  const rest = [...new Set([...Object.keys(want), ...Object.keys(got)])].filter(
    (key) => !first.includes(key),
  );
  return [...first, ...rest].find((key) => !isDeepStrictEqual(want[key], got[key]));
}

/** A PaymentError for a failure reported by a method's non-mutating verification. */
function fromMethodError(error: unknown): PaymentError {
  if (PaymentError.isInstance(error)) return error;
  const options = { cause: error };
  if (error instanceof Errors.PaymentExpiredError)
    return new PaymentError("payment_expired", error.message, options);
  if (error instanceof Errors.InvalidChallengeError) {
    return new PaymentError("invalid_challenge", error.message, options);
  }
  if (error instanceof Errors.MalformedCredentialError || error instanceof Errors.InvalidPayloadError) {
    return new PaymentError("malformed_credential", error.message, options);
  }
  if (error instanceof Errors.PaymentMethodUnsupportedError) {
    return new PaymentError("method_unsupported", error.message, options);
  }
  if (error instanceof Errors.PaymentError)
    return new PaymentError("verification_failed", error.message, options);
  return new PaymentError(
    "facilitator_unavailable",
    `The payment could not be verified right now: ${messageOf(error)}`,
    options,
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

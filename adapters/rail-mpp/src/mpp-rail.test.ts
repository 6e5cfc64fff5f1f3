import { createHmac } from "node:crypto";
import type { Charge, PaymentCredential, PaymentRail } from "@mailpiece/ports";
import { manualClock, PaymentError } from "@mailpiece/ports";
import { Challenge, Receipt } from "mppx";
import { describe, expect, it } from "vitest";
import { createMppRail } from "./mpp-rail.ts";
import { stripeMethod } from "./stripe-method.ts";
import { tempoMethod } from "./tempo-method.ts";
import { memoryTestLedger, testMethod, testMethodClient } from "./test-method.ts";

const SECRET = "mailpiece-test-secret-of-at-least-32-bytes";
const OTHER_SECRET = "another-secret-that-is-also-32-bytes-long";
const REALM = "mail.example";

function makeCharge(overrides: Partial<Charge> = {}): Charge {
  return {
    amount_cents: 1234,
    currency: "usd",
    resource_url: "https://mail.example/api/machine/mpp/orders",
    description: "One letter, first class",
    order_ref: "5b0c7c0e-2f4e-4a4b-9a51-0e1f5d3c2a10",
    ...overrides,
  };
}

function headerList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Reads `name="value"` auth-params of one challenge, undoing quoted-string escapes. */
function authParams(header: string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of header.matchAll(/([a-z]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[match[1] as string] = (match[2] as string).replace(/\\(.)/g, "$1");
  }
  return params;
}

function decodeJson(base64url: string): unknown {
  return JSON.parse(Buffer.from(base64url, "base64url").toString("utf8"));
}

/** The one challenge of `method` in a 402 from `rail`. */
async function challengeFor(
  rail: PaymentRail,
  charge: Charge,
  method = "test",
): Promise<Challenge.Challenge> {
  const answer = await rail.challenge(charge);
  const header = headerList(answer.headers["WWW-Authenticate"]).find((h) => authParams(h).method === method);
  if (header === undefined) throw new Error(`no ${method} challenge`);
  return Challenge.deserialize(header);
}

/** Pays a challenge the way an agent does, with the client side of the test method. */
async function credentialHeader(challenge: Challenge.Challenge, token = "tok_test_visa"): Promise<string> {
  return testMethodClient({ token }).createCredential({ challenge } as never);
}

async function read(rail: PaymentRail, authorization: string): Promise<PaymentCredential> {
  const credential = await rail.readCredential(new Headers({ authorization }));
  if (credential === undefined) throw new Error("no credential read");
  return credential;
}

/** Rewrites the JSON inside an `Authorization: Payment` header. */
function tamper(header: string, change: (credential: Record<string, unknown>) => void): string {
  const credential = decodeJson(header.slice("Payment ".length)) as Record<string, unknown>;
  change(credential);
  return `Payment ${Buffer.from(JSON.stringify(credential)).toString("base64url")}`;
}

async function rejection(promise: Promise<unknown>): Promise<PaymentError> {
  try {
    await promise;
  } catch (error) {
    if (PaymentError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a PaymentError");
}

describe("createMppRail: options", () => {
  it("refuses a secret key shorter than 32 bytes", () => {
    expect(() => createMppRail({ realm: REALM, secretKey: "x".repeat(31), methods: [testMethod()] })).toThrow(
      /secretKey must be at least 32 bytes \(got 31\)/,
    );
    expect(() =>
      createMppRail({ realm: REALM, secretKey: "x".repeat(32), methods: [testMethod()] }),
    ).not.toThrow();
  });

  it("counts the secret key in UTF-8 bytes", () => {
    // 11 euro signs are 11 characters but 33 bytes.
    expect(() =>
      createMppRail({ realm: REALM, secretKey: "€".repeat(11), methods: [testMethod()] }),
    ).not.toThrow();
  });

  it("refuses a short previous key, no methods, a method twice and a bad lifetime", () => {
    const base = { realm: REALM, secretKey: SECRET };
    expect(() => createMppRail({ ...base, methods: [testMethod()], previousSecretKeys: ["short"] })).toThrow(
      /previousSecretKeys\[0\] must be at least 32 bytes/,
    );
    expect(() => createMppRail({ ...base, methods: [] })).toThrow(/at least one payment method/);
    expect(() => createMppRail({ ...base, methods: [testMethod(), testMethod()] })).toThrow(
      /test\/charge is configured twice/,
    );
    expect(() => createMppRail({ ...base, methods: [testMethod()], challengeTtlSeconds: 0 })).toThrow(
      /challengeTtlSeconds/,
    );
  });

  it("is simulated only when every method is", () => {
    const onlyTest = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const withTempo = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [testMethod(), tempoMethod({ recipient: "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00" })],
    });
    expect(onlyTest.protocol).toBe("mpp");
    expect(onlyTest.simulated).toBe(true);
    expect(withTempo.simulated).toBe(false);
  });
});

describe("createMppRail: challenge", () => {
  it("answers 402 with problem details and one Payment challenge", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()], clock });
    const answer = await rail.challenge(makeCharge());

    expect(answer.status).toBe(402);
    expect(answer.contentType).toBe("application/problem+json");
    expect(answer.headers["Cache-Control"]).toBe("no-store");
    expect(answer.headers["Retry-After"]).toBe("0");
    expect(answer.body).toMatchObject({
      type: "https://paymentauth.org/problems/payment-required",
      title: "Payment Required",
      status: 402,
    });
    const detail = (answer.body as { detail: string }).detail;
    expect(detail).toContain("$12.34");
    expect(detail).toContain("Authorization: Payment");

    const headers = headerList(answer.headers["WWW-Authenticate"]);
    expect(headers).toHaveLength(1);
    const header = headers[0] as string;
    expect(header.startsWith("Payment ")).toBe(true);
    const params = authParams(header);
    expect(params).toMatchObject({
      realm: REALM,
      method: "test",
      intent: "charge",
      description: "One letter, first class",
      expires: "2026-01-01T12:05:00Z",
    });
    expect(decodeJson(params.request as string)).toEqual({
      amount: "1234",
      currency: "usd",
      recipient: "mailpiece-test",
      externalId: "5b0c7c0e-2f4e-4a4b-9a51-0e1f5d3c2a10",
    });
    expect(decodeJson(params.opaque as string)).toEqual({
      order_ref: "5b0c7c0e-2f4e-4a4b-9a51-0e1f5d3c2a10",
      resource: "https://mail.example/api/machine/mpp/orders",
    });
  });

  it("binds the id with HMAC-SHA256 over the challenge slots", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const answer = await rail.challenge(makeCharge());
    const params = authParams(headerList(answer.headers["WWW-Authenticate"])[0] as string);

    // realm | method | intent | request | expires | digest | opaque, computed here without mppx.
    const input = [
      params.realm,
      params.method,
      params.intent,
      params.request,
      params.expires ?? "",
      params.digest ?? "",
      params.opaque ?? "",
    ].join("|");
    const expected = createHmac("sha256", SECRET).update(input).digest("base64url");
    expect(params.id).toBe(expected);
  });

  it("is the same for one charge at one time, and renews only id and expiry later", async () => {
    const clock = manualClock();
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()], clock });
    const first = await rail.challenge(makeCharge());
    const again = await rail.challenge(makeCharge());
    expect(again).toEqual(first);

    clock.advance(60_000);
    const later = await rail.challenge(makeCharge());
    const a = authParams(headerList(first.headers["WWW-Authenticate"])[0] as string);
    const b = authParams(headerList(later.headers["WWW-Authenticate"])[0] as string);
    expect(b.id).not.toBe(a.id);
    expect(b.expires).not.toBe(a.expires);
    expect({ ...b, id: "", expires: "" }).toEqual({ ...a, id: "", expires: "" });
  });

  it("offers one challenge per configured method, in order", async () => {
    const rail = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [
        testMethod(),
        tempoMethod({ recipient: "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00" }),
        stripeMethod({ secretKey: "sk_test_mailpiece", networkId: "profile_mailpiece" }),
      ],
    });
    const answer = await rail.challenge(makeCharge());
    const challenges = headerList(answer.headers["WWW-Authenticate"]).map((h) => Challenge.deserialize(h));
    expect(challenges.map((c) => c.method)).toEqual(["test", "tempo", "stripe"]);
    for (const challenge of challenges) {
      expect(challenge.intent).toBe("charge");
      expect(challenge.realm).toBe(REALM);
      expect(Challenge.verify(challenge, { secretKey: SECRET })).toBe(true);
    }
    expect((answer.body as { detail: string }).detail).toContain("methods: test, tempo, stripe");
  });
});

describe("createMppRail: readCredential", () => {
  const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });

  it("returns undefined without an Authorization header or with another scheme", async () => {
    expect(await rail.readCredential(new Headers())).toBeUndefined();
    expect(await rail.readCredential(new Headers({ authorization: "Bearer abc.def" }))).toBeUndefined();
    expect(await rail.readCredential(new Headers({ "payment-signature": "eyJ4IjoxfQ" }))).toBeUndefined();
  });

  it("refuses a Payment credential that cannot be decoded as malformed_credential", async () => {
    for (const authorization of ["Payment not-valid!!!", "Payment W10", "Payment", "Payment eyJhIjoxfQ"]) {
      let caught: unknown;
      try {
        await rail.readCredential(new Headers({ authorization }));
      } catch (error) {
        caught = error;
      }
      expect(PaymentError.isInstance(caught), authorization).toBe(true);
      expect((caught as PaymentError).code).toBe("malformed_credential");
    }
  });

  it("reads a Payment credential, also next to another scheme", async () => {
    const header = await credentialHeader(await challengeFor(rail, makeCharge()));
    const alone = await read(rail, header);
    expect(alone.protocol).toBe("mpp");
    expect(alone.raw).toBe(header);
    const mixed = await read(rail, `Bearer abc, ${header}`);
    expect(mixed.decoded).toEqual(alone.decoded);
  });
});

describe("createMppRail: verify, settle, receipt", () => {
  it("verifies a paid challenge, settles it and produces the receipt", async () => {
    const clock = manualClock();
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod({ clock })], clock });
    const charge = makeCharge();
    const challenge = await challengeFor(rail, charge);
    const verified = await rail.verify(await read(rail, await credentialHeader(challenge)), charge);
    expect(verified).toMatchObject({ protocol: "mpp", replayKey: `mpp:${challenge.id}`, amount_cents: 1234 });

    clock.advance(1_000);
    const settlement = await rail.settle(verified, charge);
    expect(settlement).toMatchObject({
      protocol: "mpp",
      status: "settled",
      reference: `test_${challenge.id}`,
      amount_cents: 1234,
      settledAt: clock.now(),
    });

    const headers = rail.receiptHeaders(settlement);
    expect(headers["Cache-Control"]).toBe("private");
    expect(Receipt.deserialize(headers["Payment-Receipt"] as string)).toEqual({
      method: "test",
      reference: `test_${challenge.id}`,
      status: "success",
      timestamp: new Date(clock.now()).toISOString(),
      externalId: charge.order_ref,
    });
  });

  it("gives the same replay key every time one credential is verified", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const charge = makeCharge();
    const header = await credentialHeader(await challengeFor(rail, charge));
    const first = await rail.verify(await read(rail, header), charge);
    const second = await rail.verify(await read(rail, header), charge);
    expect(second.replayKey).toBe(first.replayKey);
    // A second credential for the same challenge (another token) settles the same funds: same key.
    const challenge = ((await read(rail, header)).decoded as { challenge: Challenge.Challenge }).challenge;
    const other = await rail.verify(
      await read(rail, await credentialHeader(challenge, "tok_test_amex")),
      charge,
    );
    expect(other.replayKey).toBe(first.replayKey);
  });

  it("refuses a credential whose request was changed as invalid_challenge", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const charge = makeCharge();
    const header = await credentialHeader(await challengeFor(rail, charge));
    const cheaper = tamper(header, (credential) => {
      const challenge = credential.challenge as Record<string, unknown>;
      const request = decodeJson(challenge.request as string) as Record<string, unknown>;
      challenge.request = Buffer.from(JSON.stringify({ ...request, amount: "1" })).toString("base64url");
    });
    expect((await rejection(rail.verify(await read(rail, cheaper), charge))).code).toBe("invalid_challenge");
    const later = tamper(header, (credential) => {
      (credential.challenge as Record<string, unknown>).expires = "2099-01-01T00:00:00Z";
    });
    expect((await rejection(rail.verify(await read(rail, later), charge))).code).toBe("invalid_challenge");
  });

  it("refuses a genuine challenge issued for another charge as payment_mismatch", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const charge = makeCharge();
    const cases: Array<[Partial<Charge>, RegExp]> = [
      [{ amount_cents: 999 }, /different amount/],
      [{ order_ref: "8d1f0a7e-55b3-4c39-8d3e-6a1b2c3d4e5f" }, /different order/],
      [{ resource_url: "https://mail.example/api/machine/mpp/flower-letters" }, /different resource/],
    ];
    for (const [other, message] of cases) {
      const header = await credentialHeader(await challengeFor(rail, makeCharge(other)));
      const error = await rejection(rail.verify(await read(rail, header), charge));
      expect(error.code).toBe("payment_mismatch");
      expect(error.message).toMatch(message);
    }
  });

  it("refuses a challenge for another recipient as payment_mismatch", async () => {
    const charge = makeCharge();
    const issuer = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [testMethod({ recipient: "old" })],
    });
    const verifier = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [testMethod({ recipient: "new" })],
    });
    const header = await credentialHeader(await challengeFor(issuer, charge));
    const error = await rejection(verifier.verify(await read(verifier, header), charge));
    expect(error.code).toBe("payment_mismatch");
    expect(error.message).toMatch(/different recipient/);
  });

  it("refuses an expired challenge as payment_expired", async () => {
    const clock = manualClock();
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()], clock });
    const charge = makeCharge();
    const header = await credentialHeader(await challengeFor(rail, charge));
    clock.advance(299_000);
    await expect(rail.verify(await read(rail, header), charge)).resolves.toMatchObject({ protocol: "mpp" });
    clock.advance(1_000);
    expect((await rejection(rail.verify(await read(rail, header), charge))).code).toBe("payment_expired");
  });

  it("honours challengeTtlSeconds", async () => {
    const clock = manualClock();
    const rail = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [testMethod()],
      clock,
      challengeTtlSeconds: 30,
    });
    const charge = makeCharge();
    const header = await credentialHeader(await challengeFor(rail, charge));
    clock.advance(30_000);
    expect((await rejection(rail.verify(await read(rail, header), charge))).code).toBe("payment_expired");
  });

  it("refuses a challenge from another realm or another secret as invalid_challenge", async () => {
    const charge = makeCharge();
    const ours = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const otherRealm = createMppRail({ realm: "other.example", secretKey: SECRET, methods: [testMethod()] });
    const otherSecret = createMppRail({ realm: REALM, secretKey: OTHER_SECRET, methods: [testMethod()] });

    const fromOtherRealm = await credentialHeader(await challengeFor(otherRealm, charge));
    const realmError = await rejection(ours.verify(await read(ours, fromOtherRealm), charge));
    expect(realmError.code).toBe("invalid_challenge");
    expect(realmError.message).toMatch(/another realm/);

    const fromOtherSecret = await credentialHeader(await challengeFor(otherSecret, charge));
    const secretError = await rejection(ours.verify(await read(ours, fromOtherSecret), charge));
    expect(secretError.code).toBe("invalid_challenge");
    expect(secretError.message).toMatch(/not issued by this server/);
  });

  it("keeps verifying challenges signed with a previous key", async () => {
    const charge = makeCharge();
    const before = createMppRail({ realm: REALM, secretKey: OTHER_SECRET, methods: [testMethod()] });
    const after = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      previousSecretKeys: [OTHER_SECRET],
      methods: [testMethod()],
    });
    const header = await credentialHeader(await challengeFor(before, charge));
    await expect(after.verify(await read(after, header), charge)).resolves.toMatchObject({ protocol: "mpp" });
    const fresh = await challengeFor(after, charge);
    expect(Challenge.verify(fresh, { secretKey: SECRET })).toBe(true);
  });

  it("refuses tokens the test method does not accept as verification_failed", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const charge = makeCharge();
    const challenge = await challengeFor(rail, charge);
    for (const token of ["tok_test_declined", "tok_live_visa", "spt_123", ""]) {
      const error = await rejection(
        rail.verify(await read(rail, await credentialHeader(challenge, token)), charge),
      );
      expect(error.code, token).toBe("verification_failed");
    }
  });

  it("refuses a payload that does not fit the method as malformed_credential", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const charge = makeCharge();
    const header = tamper(await credentialHeader(await challengeFor(rail, charge)), (credential) => {
      credential.payload = { token: 42 };
    });
    expect((await rejection(rail.verify(await read(rail, header), charge))).code).toBe(
      "malformed_credential",
    );
  });

  it("refuses a method it does not offer as method_unsupported", async () => {
    const charge = makeCharge();
    const issuer = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const verifier = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [stripeMethod({ secretKey: "sk_test_mailpiece", networkId: "profile_mailpiece" })],
    });
    const header = await credentialHeader(await challengeFor(issuer, charge));
    expect((await rejection(verifier.verify(await read(verifier, header), charge))).code).toBe(
      "method_unsupported",
    );
  });

  it("settles only payments it verified, and gives receipts only for its settlements", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const charge = makeCharge();
    const foreign = { protocol: "x402" as const, replayKey: "x402:1", amount_cents: 1234, details: {} };
    expect((await rejection(rail.settle(foreign, charge))).code).toBe("settlement_failed");

    const verified = await rail.verify(
      await read(rail, await credentialHeader(await challengeFor(rail, charge))),
      charge,
    );
    expect((await rejection(rail.settle(verified, makeCharge({ amount_cents: 1 })))).code).toBe(
      "payment_mismatch",
    );

    expect(() =>
      rail.receiptHeaders({
        protocol: "mpp",
        status: "settled",
        reference: "r",
        amount_cents: 1234,
        settledAt: 0,
        details: {},
      }),
    ).toThrow(/settlement returned by this rail/);
  });
});

describe("createMppRail: parseCredential", () => {
  const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });

  it("reads the Authorization value itself, as readCredential does, and names its header", async () => {
    expect(rail.credentialHeader).toBe("authorization");
    const header = await credentialHeader(await challengeFor(rail, makeCharge()));
    expect(await rail.parseCredential(header)).toEqual(await read(rail, header));
    expect((await rail.parseCredential(`Basic dXNlcjpwdw==, ${header}`))?.decoded).toEqual(
      (await read(rail, header)).decoded,
    );
  });

  it("answers undefined for another scheme and refuses a Payment value that does not decode", async () => {
    expect(await rail.parseCredential("Bearer abc.def")).toBeUndefined();
    expect(await rail.parseCredential("")).toBeUndefined();
    await expect(rail.parseCredential("Payment %%%")).rejects.toThrow(/not base64url-encoded JSON/);
  });
});

describe("createMppRail: confirm", () => {
  async function verifiedOn(rail: PaymentRail, charge = makeCharge()) {
    const challenge = await challengeFor(rail, charge);
    return {
      challenge,
      payment: await rail.verify(await read(rail, await credentialHeader(challenge)), charge),
    };
  }

  function ask(payment: Awaited<ReturnType<PaymentRail["verify"]>>, startedAt: number) {
    const details = JSON.parse(JSON.stringify(payment.details)) as unknown;
    return { replayKey: payment.replayKey, amount_cents: payment.amount_cents, details, startedAt };
  }

  it("answers the recorded charge of the test method, from any rail sharing its ledger", async () => {
    const clock = manualClock();
    const ledger = memoryTestLedger();
    const rail = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [testMethod({ clock, ledger })],
      clock,
    });
    const twin = createMppRail({
      realm: REALM,
      secretKey: SECRET,
      methods: [testMethod({ clock, ledger })],
      clock,
    });
    const charge = makeCharge();
    const { challenge, payment } = await verifiedOn(rail, charge);
    const startedAt = clock.now();
    const settlement = await rail.settle(payment, charge);
    clock.advance(60_000);
    for (const r of [rail, twin]) {
      const answer = await r.confirm!(ask(payment, startedAt));
      expect(answer).toEqual({ ...settlement, settledAt: startedAt });
      expect((answer as typeof settlement).reference).toBe(`test_${challenge.id}`);
    }
    // Settling the challenge again charges nothing more: the recorded receipt comes back.
    expect((await rail.settle(payment, charge)).details).toEqual(settlement.details);
  });

  it("answers failed for a challenge the test method never charged", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const { payment } = await verifiedOn(rail);
    const answer = await rail.confirm!(ask(payment, Date.now()));
    expect(answer).toMatchObject({ status: "failed", code: "settlement_failed" });
    expect((answer as { message: string }).message).toMatch(/no charge was recorded/);
  });

  it("answers pending for a method that cannot be asked", async () => {
    const { confirm: _none, ...unaskable } = testMethod();
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [unaskable] });
    const charge = makeCharge();
    const { payment } = await verifiedOn(rail, charge);
    await rail.settle(payment, charge);
    expect(await rail.confirm!(ask(payment, Date.now()))).toEqual({ status: "pending" });
  });

  it("refuses another payment's replay key and details it did not verify", async () => {
    const rail = createMppRail({ realm: REALM, secretKey: SECRET, methods: [testMethod()] });
    const { payment } = await verifiedOn(rail);
    const wrongKey = rail.confirm!({ ...ask(payment, Date.now()), replayKey: "mpp:another" });
    expect((await rejection(wrongKey)).code).toBe("payment_mismatch");
    const foreign = rail.confirm!({ ...ask(payment, Date.now()), details: { payload: {} } });
    expect((await rejection(foreign)).code).toBe("method_unsupported");
  });
});

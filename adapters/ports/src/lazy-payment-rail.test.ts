import { describe, expect, it } from "vitest";
import { lazyPaymentRail } from "./lazy-payment-rail.ts";
import type { Charge, PaymentRail, Settlement } from "./payment-rail.ts";
import { PaymentError } from "./payment-rail.ts";

const INFO = { protocol: "mpp", simulated: true, credentialHeader: "authorization" } as const;
const CHARGE: Charge = {
  amount_cents: 340,
  currency: "usd",
  resource_url: "http://127.0.0.1/api/machine/orders/o1",
  description: "A letter",
  order_ref: "r1",
};

/** A small rail that answers every call and counts them. */
function fakeRail(overrides: Partial<PaymentRail> = {}): PaymentRail {
  const settlement: Settlement = {
    protocol: "mpp",
    status: "settled",
    reference: "ref-1",
    amount_cents: 340,
    settledAt: 1,
    details: { receipt: "r" },
  };
  return {
    ...INFO,
    async challenge() {
      return {
        status: 402,
        headers: { "WWW-Authenticate": "Payment" },
        body: {},
        contentType: "application/json",
      };
    },
    async parseCredential(value) {
      if (!value.startsWith("Payment ")) return undefined;
      if (value === "Payment !") throw new PaymentError("malformed_credential", "does not decode");
      return { protocol: "mpp", raw: value, decoded: value.slice(8) };
    },
    async readCredential(headers) {
      const value = headers.get("authorization");
      return value === null ? undefined : this.parseCredential(value);
    },
    async verify(credential) {
      return { protocol: "mpp", replayKey: String(credential.decoded), amount_cents: 340, details: {} };
    },
    async settle() {
      return settlement;
    },
    receiptHeaders: (s) => ({ "Payment-Receipt": String(s.reference) }),
    ...overrides,
  };
}

describe("lazyPaymentRail", () => {
  it("states what it was declared with and loads nothing until a method needs the rail", async () => {
    let loads = 0;
    const rail = lazyPaymentRail(INFO, async () => {
      loads++;
      return fakeRail();
    });
    expect([rail.protocol, rail.simulated, rail.credentialHeader]).toEqual(["mpp", true, "authorization"]);
    expect(rail.loaded()).toBe(false);
    expect(loads).toBe(0);
    expect(() => rail.receiptHeaders({} as Settlement)).toThrow(TypeError);
    const credential = await rail.parseCredential("Payment abc");
    expect(credential?.decoded).toBe("abc");
    expect(rail.loaded()).toBe(true);
  });

  it("loads once for calls that arrive together, and answers as the loaded rail does", async () => {
    let loads = 0;
    const rail = lazyPaymentRail(INFO, async () => {
      loads++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return fakeRail();
    });
    const [challenge, none, read] = await Promise.all([
      rail.challenge(CHARGE),
      rail.parseCredential("Bearer x"),
      rail.readCredential(new Headers({ authorization: "Payment k1" })),
    ]);
    expect(loads).toBe(1);
    expect(challenge.status).toBe(402);
    expect(none).toBeUndefined();
    const verified = await rail.verify(read!, CHARGE);
    expect(verified.replayKey).toBe("k1");
    const settled = await rail.settle(verified, CHARGE);
    expect(rail.receiptHeaders(settled)).toEqual({ "Payment-Receipt": "ref-1" });
    await expect(rail.parseCredential("Payment !")).rejects.toMatchObject({ code: "malformed_credential" });
  });

  it("tries a failed load again on the next call", async () => {
    let loads = 0;
    const rail = lazyPaymentRail(INFO, async () => {
      loads++;
      if (loads === 1) throw new Error("the module could not be read");
      return fakeRail();
    });
    await expect(rail.challenge(CHARGE)).rejects.toThrow("could not be read");
    expect(rail.loaded()).toBe(false);
    await expect(rail.challenge(CHARGE)).resolves.toMatchObject({ status: 402 });
    expect(loads).toBe(2);
  });

  it("refuses a loaded rail that is not the one declared", async () => {
    const rail = lazyPaymentRail(INFO, async () => fakeRail({ simulated: false }));
    await expect(rail.challenge(CHARGE)).rejects.toThrow(/declared with simulated true, but it is false/);
    expect(rail.loaded()).toBe(false);
  });

  it("confirms through the loaded rail, and answers pending for a rail without confirm", async () => {
    const question = { replayKey: "k", amount_cents: 340, details: {}, startedAt: 1 };
    const without = lazyPaymentRail(INFO, async () => fakeRail());
    expect(await without.confirm!(question)).toEqual({ status: "pending" });
    const withConfirm = lazyPaymentRail(INFO, async () =>
      fakeRail({ confirm: async () => ({ status: "failed", code: "verification_failed", message: "no" }) }),
    );
    expect(await withConfirm.confirm!(question)).toMatchObject({ status: "failed" });
  });
});

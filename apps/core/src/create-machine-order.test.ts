import { letterOrder } from "@mailpiece/conformance";
import type { Store } from "@mailpiece/ports";
import { BASE_SEPOLIA, createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { CoreConfig } from "./config.ts";
import { createMailpieceCore } from "./core.ts";
import type { CreateOrderOutcome } from "./create-machine-order.ts";
import { MAX_REQUEST_IDS_PER_ORDER } from "./create-machine-order.ts";
import { CoreError } from "./errors.ts";
import { refusalOf } from "./refusal.fixture.ts";
import { x402Pay } from "./x402-pay.fixture.ts";

const RESOURCE = "https://mailpiece.test/api/machine/orders";
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

function setup(config: Partial<CoreConfig> = {}) {
  const store = createMemoryStore();
  const rail = createX402Rail({
    network: BASE_SEPOLIA,
    payTo: PAY_TO,
    facilitator: createLocalFacilitator({ network: BASE_SEPOLIA }),
  });
  const core = createMailpieceCore({ store, blobs: createMemoryBlobStore(), rails: { x402: rail }, config });
  const create = (body: unknown, headers = new Headers(), clientKey: string = crypto.randomUUID()) =>
    core.createOrder({
      raw: typeof body === "string" ? body : JSON.stringify(body),
      body: typeof body === "string" ? JSON.parse(body) : body,
      clientKey,
      payment: {
        rail,
        credential: headers.get(rail.credentialHeader) ?? undefined,
        resourceUrl: (id) => `${RESOURCE}/${id}`,
      },
    });
  return { core, store, create };
}

function kind<K extends CreateOrderOutcome["kind"]>(outcome: CreateOrderOutcome, k: K) {
  expect(outcome.kind, JSON.stringify(outcome).slice(0, 500)).toBe(k);
  return outcome as Extract<CreateOrderOutcome, { kind: K }>;
}

async function countOrders(store: Store): Promise<number> {
  return (await store.list("orders:", { limit: 1000 })).records.length;
}

describe("createMachineOrder against hostile requests", () => {
  it("refuses a request_id holding NUL, lone surrogates or emoji as invalid input at request_id, storing nothing", async () => {
    const { core, store, create } = setup();
    try {
      for (const request_id of ["a\u0000b", "\ud800\ud800", "😀😀😀", `${crypto.randomUUID()}\u0000`]) {
        const refused = await refusalOf(create(letterOrder({ request_id })));
        expect(refused.issues).toEqual([expect.objectContaining({ path: "request_id" })]);
        const validated = await refusalOf(
          core.validateOrder({ body: letterOrder({ request_id }), raw: "{}" }),
        );
        expect(validated.code).toBe("validation_failed");
      }
      expect(await countOrders(store)).toBe(0);
    } finally {
      await core.close();
    }
  });

  it("counts creations with garbage payment headers against the unpaid limit", async () => {
    const { core, store, create } = setup({ unpaidRateLimit: { limit: 3, windowMs: 3_600_000 } });
    try {
      const client = "198.51.100.7";
      const garbage = [
        new Headers({ "payment-signature": "not base64 at all" }),
        new Headers({ "payment-signature": Buffer.from('{"x402Version":2}').toString("base64") }),
        new Headers({ authorization: "Payment garbage" }),
        new Headers(),
        new Headers({ "payment-signature": "AAAA" }),
      ];
      const kinds = [];
      for (const headers of garbage) {
        const order = letterOrder({ letter: `Dear Grace,\n\nA letter of its own: ${crypto.randomUUID()}.` });
        kinds.push(
          await create(order, headers, client).then(
            (outcome) => outcome.kind,
            (error: unknown) => (CoreError.isInstance(error) ? error.code : Promise.reject(error)),
          ),
        );
      }
      expect(kinds).toEqual([
        "payment_required",
        "payment_required",
        "payment_required",
        "rate_limited",
        "rate_limited",
      ]);
      expect(await countOrders(store)).toBe(3);
    } finally {
      await core.close();
    }
  });

  it("refuses an x402 payment signed for one order when it is sent for another at the same price", async () => {
    const { core, create } = setup();
    try {
      const a = JSON.stringify(letterOrder({ letter: "Dear Grace,\n\nOrder A." }));
      const b = JSON.stringify(letterOrder({ letter: "Dear Grace,\n\nOrder B." }));
      const unpaidA = kind(await create(a), "payment_required");
      const unpaidB = kind(await create(b), "payment_required");
      expect(unpaidB.order.quote.price_cents).toBe(unpaidA.order.quote.price_cents);
      const signedForA = await x402Pay(unpaidA.challenge);
      const refused = kind(await create(b, signedForA), "payment_required");
      expect(refused.error?.code).toBe("payment_mismatch");
      expect((await core.getOrderStatus(unpaidB.order.order_id))?.payment_status).toBe("unpaid");
      // A's own retry still pays A: the nonce was not spent on B.
      const paid = kind(await create(a, signedForA), "accepted");
      expect(paid.order.payment_status).toBe("paid");
    } finally {
      await core.close();
    }
  });

  it("bounds how many request_ids collapse onto one unpaid order, and shows each reader only its own", async () => {
    const { core, store, create } = setup();
    try {
      const base = letterOrder({ letter: `Dear Grace,\n\nSent once: ${crypto.randomUUID()}.` });
      const ids: string[] = [];
      const orderIds = new Set<string>();
      for (let i = 0; i < MAX_REQUEST_IDS_PER_ORDER + 5; i++) {
        const request_id = crypto.randomUUID();
        ids.push(request_id);
        const outcome = kind(await create({ ...base, request_id }), "payment_required");
        expect(outcome.order.request_ids).toEqual([request_id]);
        orderIds.add(outcome.order.order_id);
      }
      expect(orderIds.size).toBe(2);
      const first = (await store.get<{ request_ids: string[] }>(`orders:${[...orderIds][0]}`))!.value;
      expect(first.request_ids).toHaveLength(MAX_REQUEST_IDS_PER_ORDER);
      const byAlias = await core.getOrderStatus(ids[3]!);
      expect(byAlias?.request_ids).toEqual([ids[3]]);
      const byOrderId = await core.getOrderStatus([...orderIds][0]!);
      expect(byOrderId?.request_ids).toEqual([]);
    } finally {
      await core.close();
    }
  }, 60_000);
});

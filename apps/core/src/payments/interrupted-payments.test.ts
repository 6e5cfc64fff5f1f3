import { letterOrder } from "@mailpiece/conformance";
import { createSimulatedFlorist } from "@mailpiece/florist-simulated";
import { EXAMPLE_FLOWER_LETTER_REQUEST } from "@mailpiece/flowers";
import type { JobQueue, PaymentRail } from "@mailpiece/ports";
import { manualClock } from "@mailpiece/ports";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { campaignBody } from "../campaign.fixture.ts";
import type { CampaignRecord } from "../campaign-record.ts";
import type { MailpieceCore } from "../core.ts";
import { createMailpieceCore } from "../core.ts";
import type { CreateOrderOutcome } from "../create-machine-order.ts";
import type { FlowerCreateOutcome } from "../flowers/index.ts";
import type { LegacyCampaignRecord } from "../legacy-campaigns.ts";
import { x402Pay } from "../x402-pay.fixture.ts";
import type { PayableKind } from "./payment-record.ts";
import { LEGACY_PAYMENT_WORK_PREFIX, PAYMENTS_QUEUE, paymentJobKey } from "./payment-record.ts";
import { clearPaymentWork, notePaymentWork } from "./payment-work.ts";

const BASE_SEPOLIA = "eip155:84532";
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const LEASE_MS = 15_000;

type Fault = "none" | "lost_after_transfer" | "interrupted_before_transfer";

/**
 * A core over the local facilitator whose next settle can be interrupted as a crash would interrupt it: after the
 * money moved (the answer is lost) or before it moved. The rail's own `confirm` then tells the two apart.
 */
function setup(options: { afterPaymentNoted?: (core: MailpieceCore) => Promise<void> } = {}) {
  const clock = manualClock(Date.now());
  const store = createMemoryStore({ clock });
  const base = createX402Rail({
    network: BASE_SEPOLIA,
    payTo: PAY_TO,
    facilitator: createLocalFacilitator({ network: BASE_SEPOLIA, clock }),
  });
  let fault: Fault = "none";
  let transfers = 0;
  const rail: PaymentRail = {
    ...base,
    async settle(payment, charge) {
      const now = fault;
      fault = "none";
      if (now === "interrupted_before_transfer") throw new Error("process killed before the transfer");
      const settlement = await base.settle(payment, charge);
      transfers++;
      if (now === "lost_after_transfer") throw new Error("process killed after the transfer");
      return settlement;
    },
  };
  const florist = createSimulatedFlorist({ store, clock });
  const queue = createStoreJobQueue({ store, clock });
  let noted = options.afterPaymentNoted;
  const jobs: JobQueue = {
    ...queue,
    async enqueue(request) {
      const result = await queue.enqueue(request);
      const hook = request.queue === PAYMENTS_QUEUE ? noted : undefined;
      noted = undefined;
      await hook?.(core);
      return result;
    },
  };
  const core: MailpieceCore = createMailpieceCore({
    store,
    jobs,
    blobs: createMemoryBlobStore(),
    clock,
    rails: { x402: rail },
    florist,
    config: { settleWaitMs: 50, settleLeaseMs: LEASE_MS },
  });
  const payment = (headers = new Headers(), url = "https://mailpiece.test/api/machine/orders") => ({
    rail,
    credential: headers.get(rail.credentialHeader) ?? undefined,
    resourceUrl: (id: string) => `${url}/${id}`,
  });
  const createOrder = (raw: string, headers?: Headers) =>
    core.createOrder({ raw, body: JSON.parse(raw), clientKey: "client", payment: payment(headers) });
  const createFlowers = (raw: string, headers?: Headers) =>
    core.flowers!.create({
      raw,
      body: JSON.parse(raw),
      clientKey: "client",
      payment: payment(headers, "https://mailpiece.test/api/machine/flower-letters"),
    });
  return {
    core,
    florist,
    clock,
    store,
    jobs,
    createOrder,
    createFlowers,
    interruptNextSettle: (f: Fault) => {
      fault = f;
    },
    transfers: () => transfers,
  };
}

function expectKind<O extends { kind: string }, K extends O["kind"]>(outcome: O, kind: K) {
  expect(outcome.kind, JSON.stringify(outcome).slice(0, 400)).toBe(kind);
  return outcome as Extract<O, { kind: K }>;
}

async function paidOrder(t: ReturnType<typeof setup>, fault: Fault) {
  const raw = JSON.stringify(letterOrder({ letter: `Dear Grace, ${crypto.randomUUID()}` }));
  const unpaid = expectKind(await t.createOrder(raw), "payment_required");
  const credential = await x402Pay(unpaid.challenge);
  t.interruptNextSettle(fault);
  const first = await t.createOrder(raw, credential);
  return { raw, credential, first, id: unpaid.order.order_id };
}

/** A two-piece campaign whose payment was interrupted after the money moved. */
async function paidCampaign(t: ReturnType<typeof setup>) {
  const raw = JSON.stringify(campaignBody(["Grace Hopper", "Ada Lovelace"]));
  const unpaid = expectKind(await t.createOrder(raw), "payment_required");
  const credential = await x402Pay(unpaid.challenge);
  t.interruptNextSettle("lost_after_transfer");
  expectKind(await t.createOrder(raw, credential), "accepted");
  return { raw, credential, id: unpaid.order.order_id };
}

/** The payment of `id` as work on the payments queue. */
function paymentJob(t: ReturnType<typeof setup>, kind: PayableKind, id: string) {
  return t.jobs.get(PAYMENTS_QUEUE, paymentJobKey(kind, id));
}

/** The payments noted as work: the keys of the embedded queue's job records on the payments queue. */
async function paymentJobs(t: ReturnType<typeof setup>): Promise<string[]> {
  return (await t.store.list(`jobs:job:${PAYMENTS_QUEUE}:`, { limit: 1000 })).records.map((r) => r.key);
}

/** The keys of the piece orders of campaign `id`, sorted. */
async function pieceKeys(t: ReturnType<typeof setup>, id: string): Promise<string[]> {
  const orders = await t.store.list<{ campaign_id?: string }>("orders:", { limit: 1000 });
  return orders.records
    .filter((r) => r.value.campaign_id === id)
    .map((r) => r.key)
    .sort();
}

describe("a payment interrupted by a crash", () => {
  it("whose money moved: the identical retry after the settle lease gets the paid order, charged once", async () => {
    const t = setup();
    const { raw, credential, first, id } = await paidOrder(t, "lost_after_transfer");
    expect(expectKind(first as CreateOrderOutcome, "accepted").order.payment_status).toBe(
      "settled_pending_webhook",
    );
    // Within the lease the settle may still be running somewhere: the retry waits, then answers 202, and settles nothing.
    expect(expectKind(await t.createOrder(raw, credential), "accepted").order.payment_status).toBe(
      "settled_pending_webhook",
    );
    t.clock.advance(LEASE_MS);
    const retry = expectKind(await t.createOrder(raw, credential), "already_paid");
    expect(retry.order).toMatchObject({ order_id: id, payment_status: "paid", is_paid: true });
    expect(retry.receiptHeaders["PAYMENT-RESPONSE"]).toBeTruthy();
    expect(t.transfers()).toBe(1);
    expect(await paymentJobs(t)).toEqual([]);
    expect(await t.core.getOrderStatus(id)).toMatchObject({
      status: "queued",
      current_step: "payment_received",
    });
    await t.core.close();
  });

  it("whose money moved: the reconciler finishes it without any retry", async () => {
    const t = setup();
    const { id } = await paidOrder(t, "lost_after_transfer");
    await t.core.fulfil();
    expect((await t.core.getOrderStatus(id))?.payment_status).toBe("settled_pending_webhook");
    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    // Paid, and fulfilment took it up in the same pass.
    const status = await t.core.getOrderStatus(id);
    expect(status?.payment_status).toBe("paid");
    expect(status?.steps.map((s) => s.step)).toContain("payment_received");
    expect(t.transfers()).toBe(1);
    await t.core.close();
  });

  it("before the money moved: the payment is released, and the identical retry with the same credential pays", async () => {
    const t = setup();
    const { raw, credential, first, id } = await paidOrder(t, "interrupted_before_transfer");
    expectKind(first as CreateOrderOutcome, "accepted");
    expect(t.transfers()).toBe(0);
    t.clock.advance(LEASE_MS);
    const retry = expectKind(await t.createOrder(raw, credential), "accepted");
    expect(retry.order).toMatchObject({ order_id: id, payment_status: "paid" });
    expect(retry.receiptHeaders["PAYMENT-RESPONSE"]).toBeTruthy();
    expect(t.transfers()).toBe(1);
    // Paid now: a further identical retry charges nothing.
    expectKind(await t.createOrder(raw, credential), "already_paid");
    expect(t.transfers()).toBe(1);
    await t.core.close();
  });

  it("before the money moved: the reconciler releases it, so the order can be paid again, not refused as used", async () => {
    const t = setup();
    const { raw, credential, id } = await paidOrder(t, "interrupted_before_transfer");
    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    const released = await t.core.getOrderStatus(id);
    expect(released?.payment_status).toBe("unpaid");
    const again = expectKind(await t.createOrder(raw, credential), "accepted");
    expect(again.order.payment_status).toBe("paid");
    expect(t.transfers()).toBe(1);
    await t.core.close();
  });

  it("worked on while its record still looked unpaid (the request was slow to mark it settling), then cut short after the money moved: still confirmed, paid and printed", async () => {
    const t = setup({
      // Between noting the work and marking the record settling, the request stalls past the settle lease: the
      // work comes due, finds the record unpaid, and is taken back.
      async afterPaymentNoted(core) {
        t.clock.advance(LEASE_MS);
        await core.fulfil();
      },
    });
    const { id, first } = await paidOrder(t, "lost_after_transfer");
    expect(expectKind(first as CreateOrderOutcome, "accepted").order.payment_status).toBe(
      "settled_pending_webhook",
    );
    // Nobody retries: the work noted again once the record was settling finishes the payment.
    expect(await paymentJob(t, "order", id)).toMatchObject({ state: "pending" });
    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    const status = await t.core.getOrderStatus(id);
    expect(status?.payment_status).toBe("paid");
    // Queued for printing and taken up in the same round (this core has no printer: it fails).
    expect(status?.status).not.toBe("queued");
    expect(t.transfers()).toBe(1);
    expect(await paymentJobs(t)).toEqual([]);
    await t.core.close();
  });

  it("reconciles flower letters the same way", async () => {
    const t = setup();
    const example = structuredClone(EXAMPLE_FLOWER_LETTER_REQUEST);
    const [date] = await t.florist.deliveryDates(example.product_code, example.zipcode, { country: "US" });
    const raw = JSON.stringify({ ...example, delivery_date: date, request_id: crypto.randomUUID() });
    const unpaid = expectKind((await t.createFlowers(raw)) as FlowerCreateOutcome, "payment_required");
    const credential = await x402Pay(unpaid.challenge);
    t.interruptNextSettle("lost_after_transfer");
    expectKind(await t.createFlowers(raw, credential), "accepted");
    const id = unpaid.order.order_id;
    expect(await t.core.flowers!.get(id)).toMatchObject({ payment_status: "settled_pending_webhook" });
    expect((await paymentJob(t, "flower_letter", id))?.payload).toMatchObject({ kind: "flower_letter", id });
    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    expect(await t.core.flowers!.get(id)).toMatchObject({ payment_status: "paid", status: "submitted" });
    expect(t.transfers()).toBe(1);
    await t.core.close();
  });

  it("reconciles campaigns the same way, and the paid campaign mails its pieces once", async () => {
    const t = setup();
    const { id } = await paidCampaign(t);
    expect((await paymentJob(t, "campaign", id))?.payload).toMatchObject({ kind: "campaign", id });
    await t.core.fulfil();
    expect((await t.core.getOrderStatus(id))?.payment_status).toBe("settled_pending_webhook");
    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    await t.core.fulfil();
    const status = await t.core.getOrderStatus(id);
    expect(status).toMatchObject({ payment_status: "paid", campaign: { pieces: 2 } });
    expect(status?.steps.map((s) => s.step)).toContain("payment_received");
    expect(await pieceKeys(t, id)).toHaveLength(2);
    expect(t.transfers()).toBe(1);
    expect(await paymentJobs(t)).toEqual([]);
    await t.core.close();
  });

  it("reconciles a campaign in flight in the legacy layout, written forward, its pieces made once", async () => {
    const t = setup();
    const { raw, credential, id } = await paidCampaign(t);
    // The legacy layout: the campaign as an order record with its plan, its payment work under the order kind.
    const stored = (await t.store.get<CampaignRecord>(`campaigns:${id}`))!.value;
    const { object: _o, plan, pdf: _p, page_count, ...rest } = stored;
    const legacy: LegacyCampaignRecord = {
      ...rest,
      object: "order",
      order: { ...stored.order, recipient: plan.pieces[0]!.recipient },
      document: { blob_key: "documents:plan", sha256: "plan", page_count, source: "letter", format: "text" },
      campaign: plan,
    };
    await t.store.delete(`campaigns:${id}`);
    await clearPaymentWork(t.jobs, "campaign", id);
    await t.store.create(`orders:${id}`, legacy);
    await t.store.create(`${LEGACY_PAYMENT_WORK_PREFIX}order:${id}`, { kind: "order", id });

    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    expect(await t.store.get(`orders:${id}`)).toBeUndefined();
    const forward = (await t.store.get<CampaignRecord>(`campaigns:${id}`))?.value;
    expect(forward).toMatchObject({ object: "campaign", payment_status: "paid", status: "queued" });
    expect(forward?.plan.child_ids).toHaveLength(2);
    await t.core.fulfil();
    expectKind(await t.createOrder(raw, credential), "already_paid");
    expect(await pieceKeys(t, id)).toEqual(forward?.plan.child_ids.map((c) => `orders:${c}`).sort());
    expect(await t.core.getOrderStatus(id)).toMatchObject({
      payment_status: "paid",
      campaign: { pieces: 2 },
    });
    expect(t.transfers()).toBe(1);
    expect(await paymentJobs(t)).toEqual([]);
    await t.core.close();
  });

  it("paid, but stopped before its printing was queued: the reconciler queues it, once", async () => {
    const t = setup();
    const { id, first } = await paidOrder(t, "none");
    expectKind(first as CreateOrderOutcome, "accepted");
    // The state a crash leaves between recording the money and queuing the work: paid, the payment still noted.
    await t.store.delete(`jobs:job:fulfilment:order:${id}`);
    await notePaymentWork(t.jobs, "order", id, t.clock.now());
    expect((await t.core.getOrderStatus(id))?.status).toBe("queued");
    await t.core.fulfil();
    // Queued again, the order was taken up by fulfilment in the same round (this core has no printer: it fails).
    expect((await t.core.getOrderStatus(id))?.status).not.toBe("queued");
    expect(await paymentJobs(t)).toEqual([]);
    expect(t.transfers()).toBe(1);
    await t.core.close();
  });

  it("a paid campaign stopped before its pieces were made: the reconciler makes them, once", async () => {
    const t = setup();
    const raw = JSON.stringify(campaignBody(["Grace Hopper", "Ada Lovelace"]));
    const unpaid = expectKind(await t.createOrder(raw), "payment_required");
    const id = unpaid.order.order_id;
    expectKind(await t.createOrder(raw, await x402Pay(unpaid.challenge)), "accepted");
    const made = await pieceKeys(t, id);
    expect(made).toHaveLength(2);
    // Undo what afterPaid did, as if the process had stopped right after the campaign was recorded as paid.
    for (const key of made) await t.store.delete(key);
    const stored = (await t.store.get<CampaignRecord>(`campaigns:${id}`))!;
    await t.store.put(
      `campaigns:${id}`,
      { ...stored.value, plan: { ...stored.value.plan, child_ids: [] } },
      { ifVersion: stored.version },
    );
    await notePaymentWork(t.jobs, "campaign", id, t.clock.now());
    await t.core.fulfil();
    await t.core.fulfil();
    expect(await pieceKeys(t, id)).toEqual(made);
    expect(await paymentJobs(t)).toEqual([]);
    expect(t.transfers()).toBe(1);
    await t.core.close();
  });

  it("works through every payment noted as work, past one lease batch, and lifts notes of the legacy layout first", async () => {
    const t = setup();
    for (let i = 0; i < 30; i++) await notePaymentWork(t.jobs, "order", crypto.randomUUID(), t.clock.now());
    // Notes of the legacy layout, past one page of the lift; the oldest ones name their order without a kind.
    for (let i = 0; i < 250; i++) {
      const id = crypto.randomUUID();
      await t.store.create(
        `${LEGACY_PAYMENT_WORK_PREFIX}order:${id}`,
        i % 2 === 0 ? { kind: "order", id } : { order_id: id },
      );
    }
    // A payment noted for later is left for later.
    const later = crypto.randomUUID();
    await notePaymentWork(t.jobs, "order", later, t.clock.now() + LEASE_MS);
    await t.core.fulfil();
    // Work for records that do not exist is dropped; every due job was worked on, every legacy note lifted.
    expect(await paymentJobs(t)).toEqual([`jobs:job:${PAYMENTS_QUEUE}:${paymentJobKey("order", later)}`]);
    expect((await t.store.list(LEGACY_PAYMENT_WORK_PREFIX)).records).toEqual([]);
    t.clock.advance(LEASE_MS);
    await t.core.fulfil();
    expect(await paymentJobs(t)).toEqual([]);
    await t.core.close();
  });
});

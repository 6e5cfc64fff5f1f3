import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, letterOrder } from "@mailpiece/conformance";
import { FULFILMENT_QUEUE, fulfilmentJobKey, notePaymentWork } from "@mailpiece/core";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { afterAll, describe, expect, it } from "vitest";
import type { Payer, ServerProcess } from "./crash-harness.fixture.ts";
import {
  crashFigures,
  runCrashRounds,
  SETTLE_LEASE_MS,
  startServerProcess,
  withRecords,
  x402Payer,
} from "./crash-harness.fixture.ts";

type Json = Record<string, unknown>;

const KILLS = 3;
const ORDERS_PER_ROUND = 6;
/** Generous on a loaded 2-core machine: the settle lease (15 s) plus the reconciler's pass, with room to spare. */
const DEADLINE_MS = 60_000;

/** A letter order of its own: distinct letters never collapse into one unpaid draft. */
const orderBody = (note: string) =>
  letterOrder({ letter: `Dear Grace,\n\nA letter sent through a crash, ${note}.\n\nBest wishes` }) as {
    request_id: string;
  };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/api/machine/orders`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    signal: AbortSignal.timeout(30_000),
  });
}

async function statusOf(url: string, id: string): Promise<{ code: number; view: Json }> {
  const res = await fetch(`${url}/api/machine/orders/${id}`, { signal: AbortSignal.timeout(30_000) });
  return { code: res.status, view: (await res.json()) as Json };
}

/** Polls `read` until `done` holds or `ms` pass; returns the last value read. */
async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = DEADLINE_MS,
): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(250);
    value = await read();
  }
  return value;
}

/** Per test: a DATA_DIR and a port of its own, and `start` to run a server process on them (again after a kill). */
function serverFixture() {
  const dataDirs: string[] = [];
  const running: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  return async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-crash-"));
    dataDirs.push(dataDir);
    const port = await freePort();
    const start = async () => {
      const server = await startServerProcess(dataDir, port);
      running.push(server);
      return server;
    };
    return { dataDir, start };
  };
}

describe("SIGKILL while paid orders are in flight, over HTTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-crash-"));
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it("every payment in flight is finished or released; retries get the outcome; nothing is lost or charged twice", async () => {
    const run = await runCrashRounds({
      dataDir,
      orderBody,
      kills: KILLS,
      ordersPerRound: ORDERS_PER_ROUND,
      deadlineMs: DEADLINE_MS,
    });
    const figures = crashFigures(run);
    const context = JSON.stringify({ figures, rounds: run.rounds, audit: run.audit }, null, 1);

    expect(run.rounds).toHaveLength(KILLS);
    for (const round of run.rounds) {
      // Every payment in flight at restart was finished or released before the deadline.
      expect(round.recovery_s, context).toBeDefined();
      for (const order of round.orders) {
        // The identical retry got the outcome: paid.
        expect(order.final_payment_status, context).toBe("paid");
        // Status by the client's request_id finds that order.
        expect(order.found_by_request_id, context).toBe(true);
        // An order the killed process acknowledged is paid, and no retry of it was charged again.
        if (order.acknowledged) expect(order.retry_payments, context).toBe(0);
      }
      // No retry was refused, least of all as a used credential.
      expect(round.refusals, context).toEqual([]);
    }

    const audit = run.audit;
    expect(audit.orders, context).toBe(KILLS * ORDERS_PER_ROUND);
    expect(audit.paid, context).toBe(audit.orders);
    expect(audit.stuck, context).toEqual([]);
    expect(audit.unpaid, context).toEqual([]);
    expect(audit.payment_work_left, context).toBe(0);
    // Every paid order goes to print.
    expect(audit.paid_not_queued, context).toEqual([]);
    // One charge per paid order: none twice, none without its order paid, none a client did not sign.
    expect(audit.charges, context).toBe(audit.paid);
    expect(audit.double_charged, context).toEqual([]);
    expect(audit.charged_not_paid, context).toEqual([]);
    expect(audit.paid_without_charge, context).toEqual([]);
    expect(audit.unknown_charges, context).toBe(0);
    expect(figures.lost, context).toBe(0);
  }, 240_000);
});

/**
 * Each case below writes, with the server stopped, exactly the records a SIGKILL at one point of the payment flow
 * leaves behind (every store write is atomic, so a kill falls between two of them), then restarts the server and
 * checks the outcome over HTTP. A random kill rarely lands in a window a few ms wide; these land there every time.
 */
describe("the records a SIGKILL leaves at each point of the payment flow", () => {
  const server = serverFixture();

  /** An order made over HTTP (unpaid, 402), and a payment for it signed by the client but not sent. */
  async function unpaidOrderWithSignedPayment(url: string, payer: Payer) {
    const body = JSON.stringify(orderBody(crypto.randomUUID()));
    const unpaid = await post(url, body);
    expect(unpaid.status).toBe(402);
    const orderId = ((await unpaid.json()) as { order: Json }).order.order_id as string;
    const required = JSON.parse(Buffer.from(unpaid.headers.get("PAYMENT-REQUIRED")!, "base64").toString());
    await payer.client.createPaymentPayload(required);
    const signed = payer.payments.at(-1)!;
    return { body, orderId, requestId: JSON.parse(body).request_id as string, signed };
  }

  for (const moved of [false, true]) {
    it(`settle interrupted ${moved ? "after" : "before"} the money moved: ${moved ? "finished as paid" : "released"} after the settle lease; the identical retry with the same credential gets it paid, charged once`, async () => {
      const { dataDir, start } = await server();
      const first = await start();
      const payer = x402Payer();
      const { body, orderId, requestId, signed } = await unpaidOrderWithSignedPayment(first.url, payer);
      await first.kill();

      // What pay.ts has written when settle begins: the credential claimed for this order, the payment noted as
      // work due when the settle lease ends, the order settling with the verified payment. With the money moved, the authorization is spent too.
      const payload = JSON.parse(Buffer.from(signed.header, "base64").toString()) as {
        accepted: { network: string; asset: string };
      };
      const replayKey =
        `x402:${payload.accepted.network}:${payload.accepted.asset}:${signed.from}:${signed.nonce}`.toLowerCase();
      await withRecords(dataDir, async (store) => {
        await store.create(`idem:payment:${replayKey}`, {
          replay_key: replayKey,
          order_id: orderId,
          claimed_at: Date.now(),
        });
        await notePaymentWork(createStoreJobQueue({ store }), "order", orderId, Date.now() + SETTLE_LEASE_MS);
        const order = (await store.get<Json & { quote: { price_cents: number } }>(`orders:${orderId}`))!
          .value;
        await store.put(`orders:${orderId}`, {
          ...order,
          payment_status: "settling",
          payment: {
            protocol: "x402",
            replay_key: replayKey,
            status: "settling",
            attempt: crypto.randomUUID(),
            amount_cents: order.quote.price_cents,
            started_at: Date.now(),
            details: { payload, requirements: payload.accepted },
            payer: signed.from,
          },
        });
        if (moved) {
          const authorization = `eip3009:${payload.accepted.network}:${payload.accepted.asset}:${signed.from}:${signed.nonce}`;
          await store.create(`x402:nonces:${authorization.toLowerCase()}`, { at: Date.now() });
        }
      });

      const second = await start();
      // Right after restart the payment is still within its lease: in flight, never refused.
      const early = await post(second.url, body, { "PAYMENT-SIGNATURE": signed.header });
      expect([200, 202]).toContain(early.status);
      // The reconciler finishes or releases it.
      const settled = await pollUntil(
        () => statusOf(second.url, requestId),
        (s) => s.view.payment_status !== "settled_pending_webhook",
      );
      expect(settled.code).toBe(200);
      expect(["paid", "unpaid"]).toContain(settled.view.payment_status);
      // The identical retry, with the credential signed before the crash, answers paid.
      const retry = await post(second.url, body, { "PAYMENT-SIGNATURE": signed.header });
      const answer = (await retry.json()) as Json;
      expect(answer.code).toBeUndefined();
      expect([200, 202]).toContain(retry.status);
      expect(answer.payment_status).toBe("paid");
      expect(payer.payments).toHaveLength(1);
      const paidView = await pollUntil(
        () => statusOf(second.url, orderId),
        (s) => s.view.status !== "queued",
      );
      await second.stop();

      const charges = await withRecords(dataDir, async (store) => (await store.list("x402:nonces:")).records);
      expect(charges).toHaveLength(1);
      expect(charges[0]!.key.toLowerCase().endsWith(`:${signed.from}:${signed.nonce}`)).toBe(true);
      // The paid order goes to print.
      expect(paidView.view.payment_status).toBe("paid");
      expect(paidView.view.status).not.toBe("queued");
    }, 240_000);
  }

  it("killed after the request_id was claimed, before its alias: status by request_id finds the order once paid", async () => {
    const { dataDir, start } = await server();
    const first = await start();
    const payer = x402Payer();
    const body = JSON.stringify(orderBody(crypto.randomUUID()));
    const requestId = JSON.parse(body).request_id as string;
    expect((await post(first.url, body)).status).toBe(402);
    await first.kill();
    // openOrder writes the order, then claims the request_id, then writes the alias status reads.
    await withRecords(dataDir, (store) => store.delete(`aliases:${requestId}`));

    const second = await start();
    const paid = await payer.fetch(`${second.url}/api/machine/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(paid.status).toBe(202);
    const orderId = ((await paid.json()) as Json).order_id;
    const byRequest = await statusOf(second.url, requestId);
    expect(byRequest.code).toBe(200);
    expect(byRequest.view.order_id).toBe(orderId);
    expect(byRequest.view.payment_status).toBe("paid");
    await second.stop();
  }, 240_000);

  it("killed after the order was recorded paid, before it was queued for printing: it is queued after restart", async () => {
    const { dataDir, start } = await server();
    const first = await start();
    const body = JSON.stringify(orderBody(crypto.randomUUID()));
    const paid = await x402Payer().fetch(`${first.url}/api/machine/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(paid.status).toBe(202);
    const orderId = ((await paid.json()) as Json).order_id as string;
    await first.kill();
    // recordSettlement writes the order paid, then queues its fulfilment, then drops the payment's work entry.
    await withRecords(dataDir, async (store) => {
      const jobs = createStoreJobQueue({ store });
      const fulfilment = (await jobs.get(FULFILMENT_QUEUE, fulfilmentJobKey(orderId)))!;
      expect(await jobs.discard(fulfilment)).toBe(true);
      await notePaymentWork(jobs, "order", orderId, Date.now());
    });

    const second = await start();
    // The identical retry answers paid and charges nothing.
    const retryPayer = x402Payer();
    const retry = await retryPayer.fetch(`${second.url}/api/machine/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(retry.status).toBe(200);
    expect(retryPayer.payments).toHaveLength(0);
    // The simulated printer accepts a queued order within seconds; the order must leave `queued`.
    const status = await pollUntil(
      () => statusOf(second.url, orderId),
      (s) => s.view.status !== "queued",
    );
    expect(status.view.payment_status).toBe("paid");
    expect(status.view.status).not.toBe("queued");
    await second.stop();
  }, 240_000);
});

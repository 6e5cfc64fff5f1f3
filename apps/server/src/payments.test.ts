import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { letterOrder } from "@mailpiece/conformance";
import { createMailpieceCore } from "@mailpiece/core";
import type { PaymentRail } from "@mailpiece/ports";
import { manualClock } from "@mailpiece/ports";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { createFileStore, createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { Receipt } from "mppx";
import { Mppx } from "mppx/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createRails } from "./rails.ts";
import { createServerApp } from "./server-app.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

type Json = Record<string, unknown>;

/** The x402 client agents run, with the spend cap raised above the $1 default as the 402 tells them to. */
function x402Fetch() {
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
  return { client, fetch: wrapFetchWithPayment(fetch, client) };
}

function postJson(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

describe("paying over HTTP with the real clients", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-pay-"));
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(
      loadConfig({ PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "silent", UNPAID_ORDERS_PER_HOUR: "1000" }),
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("@x402/fetch pays a letter order end to end; status then shows paid", async () => {
    const body = JSON.stringify(letterOrder());
    const res = await x402Fetch().fetch(`${server.url}/api/machine/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(202);
    const settled = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    expect(settled.success).toBe(true);
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const order = (await res.json()) as Json;
    expect(order.payment_status).toBe("paid");
    expect(order.status_url).toBe(`${server.url}/api/machine/orders/${order.order_id}`);
    const status = (await (await fetch(order.status_url as string)).json()) as Json;
    expect(status).toMatchObject({
      payment_status: "paid",
      is_paid: true,
      status: "queued",
      current_step: "payment_received",
    });
    // The request_id resolves to the same order.
    const byRequest = (await (
      await fetch(`${server.url}/api/machine/orders/${JSON.parse(body).request_id}`)
    ).json()) as Json;
    expect(byRequest.order_id).toBe(order.order_id);
  });

  it("the default x402 client refuses to pay more than $1, and the 402 says how to raise the cap", async () => {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
    const paying = wrapFetchWithPayment(fetch, client);
    await expect(
      paying(`${server.url}/api/machine/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(letterOrder()),
      }),
    ).rejects.toThrow(/maxAmountPerPayment/);
    const unpaid = await postJson(`${server.url}/api/machine/orders`, JSON.stringify(letterOrder()));
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("PAYMENT-REQUIRED")).toBeTruthy();
    expect(unpaid.headers.get("access-control-expose-headers")).toContain("PAYMENT-REQUIRED");
    expect(((await unpaid.json()) as Json).message).toContain("maxAmountPerPayment");
  });

  it("the mppx client pays with the test method; Payment-Receipt says success; status shows paid", async () => {
    const mpp = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
    const res = await mpp.fetch(`${server.url}/api/machine/mpp/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(letterOrder()),
    });
    expect(res.status).toBe(202);
    const receipt = Receipt.deserialize(res.headers.get("Payment-Receipt")!);
    expect(receipt.status).toBe("success");
    const order = (await res.json()) as Json;
    const status = (await (await fetch(order.status_url as string)).json()) as Json;
    expect(status).toMatchObject({ payment_status: "paid", is_paid: true });
    expect((status.payment as Json).protocol).toBe("mpp");
  });

  it("a declined MPP test token is refused as verification-failed and the order stays unpaid", async () => {
    const mpp = Mppx.create({ methods: [testMethodClient({ token: "tok_test_declined" })], polyfill: false });
    const order = letterOrder();
    const res = await mpp.fetch(`${server.url}/api/machine/mpp/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(order),
    });
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as Json).type).toContain("verification-failed");
    expect(res.headers.get("Payment-Receipt")).toBeNull();
    const status = (await (
      await fetch(`${server.url}/api/machine/mpp/orders/${order.request_id}`)
    ).json()) as Json;
    expect(status.payment_status).toBe("unpaid");
  });

  it("a paid order answers 200 on a retry and charges nothing", async () => {
    const body = JSON.stringify(letterOrder());
    const first = await x402Fetch().fetch(`${server.url}/api/machine/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(first.status).toBe(202);
    const firstTx = decodePaymentResponseHeader(first.headers.get("PAYMENT-RESPONSE")!).transaction;
    // A second agent run with a fresh wallet would mint a new nonce: the server must recognise the paid order.
    const again = await x402Fetch().fetch(`${server.url}/api/machine/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(again.status).toBe(200);
    expect(decodePaymentResponseHeader(again.headers.get("PAYMENT-RESPONSE")!).transaction).toBe(firstTx);
  });

  it("a changed body under an existing request_id is 409 on create and on validate", async () => {
    const order = letterOrder();
    const unpaid = await postJson(`${server.url}/api/machine/orders`, JSON.stringify(order));
    expect(unpaid.status).toBe(402);
    const changed = JSON.stringify({ ...order, color: true });
    const create = await postJson(`${server.url}/api/machine/orders`, changed);
    expect(create.status).toBe(409);
    expect(((await create.json()) as Json).error).toBe("request_id_conflict");
    const validate = await postJson(`${server.url}/api/machine/orders/validate`, changed);
    expect(validate.status).toBe(409);
    // The identical body is still fine.
    expect((await postJson(`${server.url}/api/machine/orders/validate`, JSON.stringify(order))).status).toBe(
      200,
    );
  });

  it("recent unpaid duplicate drafts collapse into one order whose aliases resolve on status, each showing only itself", async () => {
    const a = letterOrder({ letter: `Dear Grace,\n\nA note that is sent once: ${crypto.randomUUID()}.` });
    const b = { ...a, request_id: crypto.randomUUID() };
    const ra = (await (await postJson(`${server.url}/api/machine/orders`, JSON.stringify(a))).json()) as {
      order: Json;
    };
    const rb = (await (await postJson(`${server.url}/api/machine/orders`, JSON.stringify(b))).json()) as {
      order: Json;
    };
    expect(rb.order.order_id).toBe(ra.order.order_id);
    const status = (await (await fetch(`${server.url}/api/machine/orders/${b.request_id}`)).json()) as Json;
    expect(status.order_id).toBe(ra.order.order_id);
    // Each reader sees only the request_id it asked with: one client never learns another's.
    expect(status.request_ids).toEqual([b.request_id]);
    expect(rb.order.request_ids).toEqual([b.request_id]);
  });

  it("a reused x402 payment signature is refused for another order", async () => {
    const { client } = x402Fetch();
    const first = JSON.stringify(letterOrder());
    const unpaid = await postJson(`${server.url}/api/machine/orders`, first);
    const required = JSON.parse(Buffer.from(unpaid.headers.get("PAYMENT-REQUIRED")!, "base64").toString());
    const payload = await client.createPaymentPayload(required);
    const signature = Buffer.from(JSON.stringify(payload)).toString("base64");
    const paid = await postJson(`${server.url}/api/machine/orders`, first, {
      "PAYMENT-SIGNATURE": signature,
    });
    expect(paid.status).toBe(202);
    const other = JSON.stringify(letterOrder());
    const reused = await postJson(`${server.url}/api/machine/orders`, other, {
      "PAYMENT-SIGNATURE": signature,
    });
    expect(reused.status).toBe(402);
    // The credential names the order it was signed for, so it is refused before the facilitator is asked.
    expect(((await reused.json()) as Json).code).toBe("payment_mismatch");
    const otherStatus = (await (
      await fetch(`${server.url}/api/machine/orders/${JSON.parse(other).request_id}`)
    ).json()) as Json;
    expect(otherStatus.payment_status).toBe("unpaid");
  });

  it("a replayed MPP credential is refused and settles nothing", async () => {
    const first = JSON.stringify(letterOrder());
    const unpaid = await postJson(`${server.url}/api/machine/mpp/orders`, first);
    expect(unpaid.status).toBe(402);
    const mpp = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
    const credential = await mpp.createCredential(unpaid.clone() as Response);
    const paid = await postJson(`${server.url}/api/machine/mpp/orders`, first, { authorization: credential });
    expect(paid.status).toBe(202);
    const other = JSON.stringify(letterOrder());
    const replayed = await postJson(`${server.url}/api/machine/mpp/orders`, other, {
      authorization: credential,
    });
    expect(replayed.status).toBe(402);
    expect(replayed.headers.get("Payment-Receipt")).toBeNull();
    const otherStatus = (await (
      await fetch(`${server.url}/api/machine/mpp/orders/${JSON.parse(other).request_id}`)
    ).json()) as Json;
    expect(otherStatus.payment_status).toBe("unpaid");
  });

  it("status of an unknown id is 404", async () => {
    const res = await fetch(`${server.url}/api/machine/orders/${crypto.randomUUID()}`);
    expect(res.status).toBe(404);
    expect((await fetch(`${server.url}/api/machine/orders/not-a-uuid`)).status).toBe(404);
  });
});

describe("concurrency and rate limits, in-process", () => {
  it("20 concurrent identical paid retries settle once and make one order", async () => {
    const store = createMemoryStore();
    const config = loadConfig({ STORE: "memory", PAYMENT_RAILS: "x402" });
    const { rails } = createRails(config, store);
    let settlements = 0;
    const counting: PaymentRail = {
      ...rails.x402!,
      async settle(payment, charge) {
        settlements++;
        await new Promise((r) => setTimeout(r, 20));
        return rails.x402!.settle(payment, charge);
      },
    };
    const core = createMailpieceCore({ store, blobs: createMemoryBlobStore(), rails: { x402: counting } });
    const app = createServerApp(core, {
      publicUrl: "http://127.0.0.1:3000",
      maxBodyBytes: 1 << 20,
      logger: createLogger("silent"),
      version: "t",
    });
    const body = JSON.stringify(letterOrder());
    const request = (headers: Record<string, string> = {}) =>
      app.fetch(
        new Request("http://127.0.0.1:3000/api/machine/orders", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        }),
      );
    const unpaid = await request();
    expect(unpaid.status).toBe(402);
    const { client } = x402Fetch();
    const required = JSON.parse(Buffer.from(unpaid.headers.get("PAYMENT-REQUIRED")!, "base64").toString());
    const signature = Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString(
      "base64",
    );
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => request({ "PAYMENT-SIGNATURE": signature })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 202)).toBe(true);
    expect(settlements).toBe(1);
    const orders = await store.list("orders:", { limit: 100 });
    expect(orders.records).toHaveLength(1);
    const ids = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as Json).order_id)));
    expect(ids.size).toBe(1);
  });

  it("different credentials racing for one order settle only one of them", async () => {
    const store = createMemoryStore();
    const { rails } = createRails(loadConfig({ STORE: "memory", PAYMENT_RAILS: "x402" }), store);
    let settlements = 0;
    const counting: PaymentRail = {
      ...rails.x402!,
      async settle(payment, charge) {
        settlements++;
        await new Promise((r) => setTimeout(r, 20));
        return rails.x402!.settle(payment, charge);
      },
    };
    const core = createMailpieceCore({ store, blobs: createMemoryBlobStore(), rails: { x402: counting } });
    const app = createServerApp(core, {
      publicUrl: "http://127.0.0.1:3000",
      maxBodyBytes: 1 << 20,
      logger: createLogger("silent"),
      version: "t",
    });
    const body = JSON.stringify(letterOrder());
    const request = (headers: Record<string, string> = {}) =>
      app.fetch(
        new Request("http://127.0.0.1:3000/api/machine/orders", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        }),
      );
    const unpaid = await request();
    const required = JSON.parse(Buffer.from(unpaid.headers.get("PAYMENT-REQUIRED")!, "base64").toString());
    const signatures = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { client } = x402Fetch();
        return Buffer.from(JSON.stringify(await client.createPaymentPayload(required))).toString("base64");
      }),
    );
    const answers = await Promise.all(signatures.map((s) => request({ "PAYMENT-SIGNATURE": s })));
    expect(settlements).toBe(1);
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.every((a) => a.status === 200 || a.status === 202)).toBe(true);
  });

  it("a settlement still pending is kept, reported as settled_pending_webhook, and confirmed in the background", async () => {
    const store = createMemoryStore();
    const { rails } = createRails(loadConfig({ STORE: "memory", PAYMENT_RAILS: "x402" }), store);
    const base = rails.x402!;
    let settlements = 0;
    let confirmAnswer: "pending" | "settled" = "pending";
    let lost = false;
    let lastSettlement: Awaited<ReturnType<PaymentRail["settle"]>> | undefined;
    const pendingRail: PaymentRail = {
      ...base,
      async settle(payment, charge) {
        settlements++;
        lastSettlement = await base.settle(payment, charge);
        if (lost) throw new Error("connection reset while settling");
        return { ...lastSettlement, status: "pending" };
      },
      async confirm() {
        return confirmAnswer === "settled" ? lastSettlement! : { status: "pending" };
      },
    };
    const clock = manualClock(Date.now());
    const core = createMailpieceCore({
      store,
      blobs: createMemoryBlobStore(),
      clock,
      rails: { x402: pendingRail },
      // No settle lease: the settlement whose answer was lost is asked about at the next pass.
      config: { settleWaitMs: 100, settleLeaseMs: 0 },
    });
    const app = createServerApp(core, {
      publicUrl: "http://127.0.0.1:3000",
      maxBodyBytes: 1 << 20,
      logger: createLogger("silent"),
      version: "t",
    });
    for (const scenario of ["pending", "lost answer"] as const) {
      lost = scenario === "lost answer";
      confirmAnswer = "pending";
      settlements = 0;
      const body = JSON.stringify(letterOrder({ letter: `Dear Grace, ${scenario} ${crypto.randomUUID()}` }));
      const request = (headers: Record<string, string> = {}) =>
        app.fetch(
          new Request("http://127.0.0.1:3000/api/machine/orders", {
            method: "POST",
            headers: { "content-type": "application/json", ...headers },
            body,
          }),
        );
      const unpaid = await request();
      const required = JSON.parse(Buffer.from(unpaid.headers.get("PAYMENT-REQUIRED")!, "base64").toString());
      const sign = async () =>
        Buffer.from(JSON.stringify(await x402Fetch().client.createPaymentPayload(required))).toString(
          "base64",
        );
      const first = await request({ "PAYMENT-SIGNATURE": await sign() });
      expect(first.status).toBe(202);
      const view = (await first.json()) as Json;
      expect(view.payment_status).toBe("settled_pending_webhook");
      // A retry, even with a fresh signature, is not charged again.
      const retry = await request({ "PAYMENT-SIGNATURE": await sign() });
      expect(retry.status).toBe(202);
      expect(((await retry.json()) as Json).payment_status).toBe("settled_pending_webhook");
      expect(settlements).toBe(1);
      await core.fulfil();
      expect((await core.getOrderStatus(view.order_id as string))?.payment_status).toBe(
        "settled_pending_webhook",
      );
      confirmAnswer = "settled";
      // A payment pending confirmation is asked about again a second later at first.
      clock.advance(1000);
      await core.fulfil();
      const status = await core.getOrderStatus(view.order_id as string);
      expect(status?.payment_status).toBe("paid");
      expect(status?.current_step).not.toBeNull();
      expect((await request()).status).toBe(200);
      expect(settlements).toBe(1);
    }
  });

  it("limits unpaid creation per client IP with 429 and Retry-After", async () => {
    const store = createMemoryStore();
    const { rails } = createRails(loadConfig({ STORE: "memory" }), store);
    const core = createMailpieceCore({
      store,
      blobs: createMemoryBlobStore(),
      rails,
      config: { unpaidRateLimit: { limit: 3, windowMs: 3_600_000 } },
    });
    const app = createServerApp(core, {
      publicUrl: "http://127.0.0.1:3000",
      maxBodyBytes: 1 << 20,
      logger: createLogger("silent"),
      version: "t",
      trustProxy: true,
    });
    const create = (ip: string) =>
      app.fetch(
        new Request("http://127.0.0.1:3000/api/machine/orders", {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify(letterOrder()),
        }),
      );
    for (let i = 0; i < 3; i++) expect((await create("203.0.113.7")).status).toBe(402);
    const limited = await create("203.0.113.7");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await limited.json()) as Json).error).toBe("rate_limited");
    expect((await create("198.51.100.9")).status).toBe(402);
  });
});

describe("a crash right after settlement", () => {
  it("keeps the paid order across SIGKILL; a retry answers 200 without a second charge", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-crash-"));
    const start = async () => {
      const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
        cwd: join(import.meta.dirname, ".."),
        env: { ...process.env, PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      const url = await new Promise<string>((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
        let buffer = "";
        child.stdout.on("data", (chunk: Buffer) => {
          buffer += chunk.toString();
          const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(buffer);
          if (m) resolve(m[1]!);
        });
      });
      return { child, url };
    };
    try {
      const body = JSON.stringify(letterOrder());
      const first = await start();
      const paid = await x402Fetch().fetch(`${first.url}/api/machine/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(paid.status).toBe(202);
      const exited = once(first.child, "exit");
      first.child.kill("SIGKILL");
      await exited;

      const second = await start();
      let paymentsMade = 0;
      const { client } = x402Fetch();
      client.onAfterPaymentCreation(async () => {
        paymentsMade++;
      });
      const retry = await wrapFetchWithPayment(fetch, client)(`${second.url}/api/machine/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(retry.status).toBe(200);
      expect(paymentsMade).toBe(0);
      const exitedAgain = once(second.child, "exit");
      second.child.kill("SIGTERM");
      await exitedAgain;
      const store = await createFileStore({ dir: join(dataDir, "records") });
      try {
        expect((await store.list("x402:nonces:")).records).toHaveLength(1);
        expect((await store.list("orders:")).records).toHaveLength(1);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, letterOrder } from "@mailpiece/conformance";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { createRedisStore } from "@mailpiece/store-redis";
import { Mppx } from "mppx/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, x402Payer } from "./crash-harness.fixture.ts";

async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: join(import.meta.dirname, ".."),
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(buffer);
      if (m) resolve(m[1]!);
    });
  });
  child.stdout!.resume();
  return { child, url };
}

describe("two server processes sharing one Redis store", () => {
  let redis: ChildProcess;
  let redisUrl: string;
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-two-"));
  beforeAll(async () => {
    const port = await freePort();
    redis = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {
        stdio: "ignore",
      },
    );
    redisUrl = `redis://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const probe = createRedisStore({ url: redisUrl, prefix: "probe:" });
      try {
        await probe.get("ping");
        await probe.close();
        return;
      } catch {
        await probe.close().catch(() => {});
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error("redis-server did not start");
  }, 30_000);
  afterAll(async () => {
    redis.kill("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serve one order to its end: paid through one, submitted once although both workers run", async () => {
    const env = {
      STORE: "redis",
      REDIS_URL: redisUrl,
      DATA_DIR: dataDir,
      FULFILMENT_INTERVAL_MS: "100",
      SIMULATED_PRINT_PACE_MS: "300,600,900",
    };
    const a = await startServer(env);
    const b = await startServer(env);
    try {
      const order = letterOrder();
      const mpp = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
      const paid = await mpp.fetch(`${a.url}/api/machine/mpp/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(order),
      });
      expect(paid.status).toBe(202);
      const { order_id } = (await paid.json()) as { order_id: string };
      // The other process sees the same order, and the same answer for a retry.
      const again = await fetch(`${b.url}/api/machine/mpp/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(order),
      });
      expect(again.status).toBe(200);
      let status = "";
      for (let i = 0; i < 600 && status !== "delivered"; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (
          (await (await fetch(`${b.url}/api/machine/mpp/orders/${order_id}`)).json()) as { status: string }
        ).status;
      }
      expect(status).toBe("delivered");
      const store = createRedisStore({ url: redisUrl, prefix: "mailpiece:" });
      try {
        const jobs = await store.list("print:simulated:key:");
        expect(jobs.records).toHaveLength(1);
      } finally {
        await store.close();
      }
    } finally {
      for (const s of [a, b]) {
        const exited = once(s.child, "exit");
        s.child.kill("SIGTERM");
        await exited;
      }
    }
  }, 180_000);

  it("a process killed after the money moved, before it recorded the payment: the same PAYMENT-SIGNATURE sent to the other process gets the order, charged once", async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const marker = join(dataDir, "stalled-paid");
    const env = {
      STORE: "redis",
      REDIS_URL: redisUrl,
      // Behind one load balancer both processes have one public URL: it is part of what the client signs.
      PUBLIC_URL: `http://127.0.0.1:${portA}`,
      SETTLE_LEASE_MS: "3000",
      SIMULATED_PRINT_PACE_MS: "300,600,900",
    };
    // The real server with a test hook: it stops for good before it records its first machine order as paid.
    const a = await startServerProcess(
      mkdtempSync(join(dataDir, "a-")),
      portA,
      { ...env, STALL_WHEN: "machine_paid", STALL_ORDER_MARKER: marker },
      "src/stalling-server.fixture.ts",
    );
    const b = await startServerProcess(mkdtempSync(join(dataDir, "b-")), portB, env);
    try {
      const order = letterOrder();
      const payer = x402Payer();
      const cut = payer
        .fetch(`${a.url}/api/machine/orders`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(order),
        })
        .then(
          () => "answered",
          () => "cut off",
        );
      for (let i = 0; i < 240 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 250));
      expect(existsSync(marker)).toBe(true);
      await a.kill();
      expect(await cut).toBe("cut off");
      const orderId = readFileSync(marker, "utf8").replace(/^orders:/, "");
      expect(payer.payments).toHaveLength(1);
      const signed = payer.payments[0]!;
      expect(signed.order_id).toBe(orderId);

      // The client resends exactly what it sent, to whichever process answers now.
      const resend = () =>
        fetch(`${b.url}/api/machine/orders`, {
          method: "POST",
          headers: { "content-type": "application/json", "payment-signature": signed.header },
          body: JSON.stringify(order),
        });
      const first = await resend();
      expect([200, 202]).toContain(first.status);
      let payment = "";
      for (let i = 0; i < 120 && payment !== "paid"; i++) {
        await new Promise((r) => setTimeout(r, 250));
        const view = (await (await fetch(`${b.url}/api/machine/orders/${orderId}`)).json()) as {
          payment_status: string;
        };
        payment = view.payment_status;
      }
      expect(payment).toBe("paid");
      const again = await resend();
      expect(again.status).toBe(200);
      expect(((await again.json()) as { order_id: string }).order_id).toBe(orderId);
      let status = "";
      for (let i = 0; i < 120 && status !== "delivered"; i++) {
        await new Promise((r) => setTimeout(r, 250));
        status = (
          (await (await fetch(`${b.url}/api/machine/orders/${orderId}`)).json()) as { status: string }
        ).status;
      }
      expect(status).toBe("delivered");
      const store = createRedisStore({ url: redisUrl, prefix: "mailpiece:" });
      try {
        // One authorization signed, one nonce spent, one piece printed for this order.
        expect((await store.list("x402:nonces:")).records).toHaveLength(1);
        const printed = (await store.list("print:simulated:key:")).records.filter(
          (r) => r.key.includes(orderId) || JSON.stringify(r.value).includes(orderId),
        );
        expect(printed).toHaveLength(1);
      } finally {
        await store.close();
      }
    } finally {
      await a.kill();
      await b.stop();
    }
  }, 240_000);
});

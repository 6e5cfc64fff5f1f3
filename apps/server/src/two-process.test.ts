import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, letterOrder } from "@mailpiece/conformance";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { createRedisStore } from "@mailpiece/store-redis";
import { Mppx } from "mppx/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

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
      for (let i = 0; i < 100 && status !== "delivered"; i++) {
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
  }, 60_000);
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { letterOrder } from "../conformance/src/machine/fixtures.ts";
import { startServer, table } from "./lib.ts";

const ORDERS = Number(process.env.BENCH_ORDERS ?? "200");
const CONCURRENCY = 8;

async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        await task(i);
      }
    }),
  );
  return (performance.now() - start) / 1000;
}

/**
 * Paid creations per second (unpaid create -> 402 -> sign with the real x402 client -> paid retry -> 202, local
 * facilitator, file store) against validate-only requests of the same orders, in the same run.
 */
export async function benchPayments(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-bench-pay-"));
  const server = await startServer({
    DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    UNPAID_ORDERS_PER_HOUR: "1000000",
  });
  try {
    const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
    registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
    const paying = wrapFetchWithPayment(fetch, client);
    const bodies = Array.from({ length: ORDERS }, (_, i) =>
      JSON.stringify(
        letterOrder({ letter: `Dear Grace,\n\nOrder ${i} of the payment benchmark.\n\nBest wishes` }),
      ),
    );
    const headers = { "content-type": "application/json" };
    // Warm-up: the first requests load fonts and compile schemas.
    for (let i = 0; i < 5; i++) {
      await fetch(`${server.url}/api/machine/orders/validate`, { method: "POST", headers, body: bodies[i]! });
    }
    let bad = 0;
    const validateSeconds = await pool(ORDERS, CONCURRENCY, async (i) => {
      const res = await fetch(`${server.url}/api/machine/orders/validate`, {
        method: "POST",
        headers,
        body: bodies[i]!,
      });
      if (res.status !== 200) bad++;
      await res.arrayBuffer();
    });
    const paidSeconds = await pool(ORDERS, CONCURRENCY, async (i) => {
      const res = await paying(`${server.url}/api/machine/orders`, {
        method: "POST",
        headers,
        body: bodies[i]!,
      });
      if (res.status !== 202) bad++;
      await res.arrayBuffer();
    });
    const validateRate = ORDERS / validateSeconds;
    const paidRate = ORDERS / paidSeconds;
    return [
      `${ORDERS} orders, ${CONCURRENCY} at a time, local x402 facilitator, file store`,
      table([
        ["case", "orders/s", "ratio to validate-only"],
        ["validate only (baseline)", validateRate.toFixed(1), "1.00"],
        ["paid creation (402, sign, pay, 202)", paidRate.toFixed(1), (paidRate / validateRate).toFixed(2)],
      ]),
      `unexpected statuses: ${bad}; server peak memory (VmHWM): ${server.peakRssMiB().toFixed(0)} MiB`,
    ].join("\n");
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

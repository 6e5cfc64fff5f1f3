import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crashFigures, runCrashRounds, SETTLE_LEASE_MS } from "../apps/server/src/crash-harness.fixture.ts";
import { letterOrder } from "../conformance/src/machine/fixtures.ts";
import { median, table } from "./lib.ts";

const KILLS = Number(process.env.BENCH_CRASH_KILLS ?? "30");
const ORDERS_PER_ROUND = 6;
const DEADLINE_MS = 60_000;

/** A letter order of its own: distinct letters never collapse into one unpaid draft. */
const orderBody = (note: string) =>
  letterOrder({ letter: `Dear Grace,\n\nA letter sent through a crash, ${note}.\n\nBest wishes` }) as {
    request_id: string;
  };

/**
 * Crash recovery of paid orders: SIGKILL the server while orders are being paid with the real x402 client (at the
 * first 202, once the first payment is signed, or after a random delay, in turn), restart it on the same DATA_DIR,
 * retry every order, and count what the property forbids (each must be 0) and how fast payments in flight resolve.
 */
export async function benchCrash(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-bench-crash-"));
  try {
    const run = await runCrashRounds({
      dataDir,
      orderBody,
      kills: KILLS,
      ordersPerRound: ORDERS_PER_ROUND,
      deadlineMs: DEADLINE_MS,
      onRound: (r) =>
        process.stderr.write(
          `crash round ${r.round + 1}/${KILLS} (${r.kill_point}): ` +
            `${r.orders.filter((o) => o.status_at_restart === "settled_pending_webhook").length} in flight, ` +
            `recovered in ${r.recovery_s?.toFixed(1) ?? "-"} s\n`,
        ),
    });
    const f = crashFigures(run);
    const seconds = (values: number[]) => (values.length === 0 ? "-" : median(values).toFixed(1));
    const most = (values: number[]) => (values.length === 0 ? "-" : Math.max(...values).toFixed(1));
    return [
      `${f.kills} kills, ${ORDERS_PER_ROUND} paid orders in flight at each, local x402 facilitator, file store; ` +
        `settle lease ${SETTLE_LEASE_MS / 1000} s (the default), deadline ${DEADLINE_MS / 1000} s after restart`,
      table([
        ["figure", "value", "must be"],
        ["kills", f.kills, ""],
        ["orders in flight, total", f.orders, ""],
        ["acknowledged (200/202) before the kill", f.acknowledged, ""],
        ["payments still in flight at restart", f.in_flight_at_restart, ""],
        ["acknowledged orders lost", f.lost, 0],
        ["paid orders never queued for printing", f.paid_not_queued, 0],
        ["stuck settling/pending after restart + deadline", f.stuck, 0],
        ["orders not paid at the end", f.not_paid, 0],
        ["paid orders whose request_id status is 404", f.request_id_not_found, 0],
        ["retries refused (any)", f.refused, 0],
        ["retries refused as a used credential", f.refused_as_used_credential, 0],
        ["double charges", f.double_charges, 0],
        ["payments signed on retries", f.retry_payments, ""],
        ["payments signed on retries of acknowledged orders", f.acknowledged_retry_payments, 0],
        [
          `restart -> all in flight resolved, median s (${f.recovery_s.length} rounds)`,
          seconds(f.recovery_s),
          "",
        ],
        ["restart -> all in flight resolved, max s", most(f.recovery_s), ""],
        ["kill -> all in flight resolved, median s", seconds(f.recovery_from_kill_s), ""],
        ["kill -> all in flight resolved, max s", most(f.recovery_from_kill_s), ""],
        ["rounds not resolved by the deadline", f.unresolved_rounds, 0],
        ["kill -> restarted process listening, median s", seconds(f.restart_s), ""],
      ]),
    ].join("\n");
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

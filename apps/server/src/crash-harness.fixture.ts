import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { freePort } from "@mailpiece/conformance";
import { FULFILMENT_QUEUE, fulfilmentJobKey, PAYMENTS_QUEUE } from "@mailpiece/core";
import type { Store } from "@mailpiece/ports";
import { createFileStore } from "@mailpiece/store-unstorage";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

/**
 * Kills a real server process (SIGKILL) while paid orders are in flight, restarts it on the same DATA_DIR, retries
 * every order as a client would, and audits the store. Shared by `crash.test.ts` (which asserts) and
 * `bench/crash.ts` (which reports figures).
 */

const SERVER_DIR = join(import.meta.dirname, "..");

/**
 * The settle lease the server runs with (SETTLE_LEASE_MS, here its default). A payment still settling this long after
 * it began is confirmed with the rail by the reconciler or by a retry.
 */
export const SETTLE_LEASE_MS = 15_000;
/** How often the restarted server's reconciler (the fulfilment loop) looks for payments in flight. */
export const RECONCILE_INTERVAL_MS = 200;

/** The environment every server process of a crash run gets, on top of DATA_DIR. */
const SERVER_ENV: Record<string, string> = {
  HOST: "127.0.0.1",
  LOG_LEVEL: "info",
  FULFILMENT_INTERVAL_MS: String(RECONCILE_INTERVAL_MS),
  SETTLE_LEASE_MS: String(SETTLE_LEASE_MS),
  // One client on loopback creates every order: the per-IP unpaid limit would otherwise refuse them.
  UNPAID_ORDERS_PER_HOUR: "1000000",
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface ServerProcess {
  url: string;
  /** performance.now() when the process printed that it listens. */
  listeningAt: number;
  /** SIGKILL, then waits for the process to be gone. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown), then waits for the process to be gone. */
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx src/main.ts` (or another `entry` of the server package, such as a fixture that starts the
 * server with test hooks) on `dataDir` and `port` (with `env` on top of the crash runs' own) and waits (60 s at most)
 * for its "listening" line. A restart keeps the port: the URL is part of what a client signs (the paid resource), as
 * in production.
 */
export async function startServerProcess(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  entry = "src/main.ts",
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", entry], {
    cwd: SERVER_DIR,
    env: { ...process.env, ...SERVER_ENV, ...env, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // The last lines the process printed, for a failure to start.
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stderr!.on("data", keep);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server did not listen within 60 s:\n${lines.join("\n")}`));
    }, 60_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before listening:\n${lines.join("\n")}`));
    });
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      keep(chunk);
      buffer += chunk.toString("utf8");
      const m = /"msg":"listening"[^\n]*"url":"([^"]+)"/.exec(buffer);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
  });
  const listeningAt = performance.now();
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, listeningAt, kill: () => end("SIGKILL"), stop: () => end("SIGTERM") };
}

/** One payment a client signed: the EIP-3009 authorization it moves money with, and the order it names. */
export interface SignedPayment {
  nonce: string;
  from: string;
  order_id: string;
  /** The PAYMENT-SIGNATURE header value carrying it. */
  header: string;
  phase: "first" | "retry";
}

/** The real x402 client an agent runs (its own wallet, spend cap raised as the 402 says), recording what it signs. */
export interface Payer {
  client: x402Client;
  fetch: (input: string, init: RequestInit) => Promise<Response>;
  payments: SignedPayment[];
  /** The phase the next signed payment is counted in. */
  phase: "first" | "retry";
  /** Called when the client has signed a payment, before it sends it. */
  onSigned?: () => void;
}

export function x402Payer(): Payer {
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
  const http = new x402HTTPClient(client);
  const payer: Payer = { client, fetch: wrapFetchWithPayment(fetch, client), payments: [], phase: "first" };
  client.onAfterPaymentCreation(async ({ paymentPayload }) => {
    const { authorization } = paymentPayload.payload as { authorization: { nonce: string; from: string } };
    payer.payments.push({
      nonce: authorization.nonce.toLowerCase(),
      from: authorization.from.toLowerCase(),
      order_id: String(paymentPayload.accepted.extra?.order_id ?? ""),
      header: http.encodePaymentSignatureHeader(paymentPayload)["PAYMENT-SIGNATURE"]!,
      phase: payer.phase,
    });
    payer.onSigned?.();
  });
  return payer;
}

/** Where a round kills the server: at the first 202, once the first payment is signed, or after a random delay. */
export type KillPoint = "first-202" | "first-payment" | "random";
export const KILL_POINTS: readonly KillPoint[] = ["first-202", "first-payment", "random"];

/** A retry answered with anything but 200/202, or a 402 the paying client could not get past. */
export interface Refusal {
  request_id: string;
  status: number;
  code: string | undefined;
  message: string | undefined;
  /** True when the retry resent the credential signed before the crash. */
  same_credential: boolean;
}

export interface OrderOutcome {
  request_id: string;
  /** The order_id the restarted server answered the retry with. */
  order_id: string | undefined;
  /** Status by request_id answers with that order. */
  found_by_request_id: boolean;
  /** A 2xx the killed process sent for this order: it promised the order was paid or being paid. */
  acknowledged: boolean;
  /** The public payment status right after restart (absent: the order was never stored). */
  status_at_restart: string | undefined;
  /** Seconds from restart until its payment was paid or unpaid (finished or released). */
  resolved_after_s: number | undefined;
  /** The payment status by order_id once the retries are over. */
  final_payment_status: string | undefined;
  /** Payments the client signed on its retries. */
  retry_payments: number;
}

export interface RoundResult {
  round: number;
  kill_point: KillPoint;
  orders: OrderOutcome[];
  refusals: Refusal[];
  /** Seconds from restart until every payment in flight at restart was finished or released; 0 when none was. */
  recovery_s: number | undefined;
  /** Seconds from the kill until the restarted process listened. */
  restart_s: number;
}

export interface CrashRunOptions {
  dataDir: string;
  /** A machine order body with a request_id of its own and a letter no other order has. */
  orderBody: (note: string) => { request_id: string } & Record<string, unknown>;
  kills: number;
  ordersPerRound: number;
  /** After restart: how long payments may take to resolve and retries to be answered paid. */
  deadlineMs: number;
  /** Called after each round, e.g. to report progress. */
  onRound?: (round: RoundResult) => void;
}

export interface CrashRun {
  rounds: RoundResult[];
  audit: StoreAudit;
}

/**
 * `kills` rounds on one DATA_DIR: start `ordersPerRound` paid orders at once with the real x402 client, SIGKILL the
 * server at the round's kill point, restart it, watch every order's status until its payment is paid or unpaid,
 * and retry every order (even orders resend the credential signed before the crash when there is one, odd ones
 * go through the paying client) until it answers paid. Then stops the server and audits the store.
 */
export async function runCrashRounds(options: CrashRunOptions): Promise<CrashRun> {
  const rounds: RoundResult[] = [];
  const payers: Payer[] = [];
  const port = await freePort();
  let server = await startServerProcess(options.dataDir, port);
  try {
    for (let round = 0; round < options.kills; round++) {
      const killPoint = KILL_POINTS[round % KILL_POINTS.length]!;
      const result = await crashRound(server, port, options, round, killPoint, payers, (next) => {
        server = next;
      });
      rounds.push(result);
      options.onRound?.(result);
    }
    // Every paid order goes to print: the last process runs until none is left queued (or the deadline passes), so
    // that an order paid by a killed process and not yet queued has had its chance.
    const ids = rounds.flatMap((r) => r.orders.map((o) => o.order_id)).filter((id) => id !== undefined);
    await waitUntilTakenUp(server.url, ids, Date.now() + options.deadlineMs);
  } finally {
    await server.stop();
  }
  return { rounds, audit: await auditStore(options.dataDir, payers) };
}

/** Polls the orders' status until none of the paid ones is still `queued`, or `deadline` passes. */
async function waitUntilTakenUp(url: string, ids: string[], deadline: number): Promise<void> {
  let waiting = ids;
  while (waiting.length > 0 && Date.now() < deadline) {
    const views = await Promise.all(
      waiting.map(async (id) => {
        const res = await fetch(`${url}/api/machine/orders/${id}`, { signal: AbortSignal.timeout(30_000) });
        return res.ok ? ((await res.json()) as { status: string; payment_status: string }) : undefined;
      }),
    );
    waiting = waiting.filter((_, i) => views[i]?.payment_status === "paid" && views[i]?.status === "queued");
    if (waiting.length > 0) await sleep(250);
  }
}

interface OrderRun {
  index: number;
  request_id: string;
  body: string;
  payer: Payer;
  acknowledged: boolean;
}

async function crashRound(
  server: ServerProcess,
  port: number,
  options: CrashRunOptions,
  round: number,
  killPoint: KillPoint,
  payers: Payer[],
  restarted: (server: ServerProcess) => void,
): Promise<RoundResult> {
  let fire!: () => void;
  const kill = new Promise<void>((resolve) => {
    fire = resolve;
  });
  const runs: OrderRun[] = Array.from({ length: options.ordersPerRound }, (_, index) => {
    const order = options.orderBody(`round ${round}, letter ${index}: ${crypto.randomUUID()}`);
    const payer = x402Payer();
    if (killPoint === "first-payment") payer.onSigned = fire;
    payers.push(payer);
    return {
      index,
      request_id: order.request_id,
      body: JSON.stringify(order),
      payer,
      acknowledged: false,
    };
  });

  // The orders go out together; the kill lands wherever they are.
  const first = runs.map(async (run) => {
    try {
      const res = await run.payer.fetch(`${server.url}/api/machine/orders`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: run.body,
      });
      if (res.status === 200 || res.status === 202) {
        run.acknowledged = true;
        if (killPoint === "first-202") fire();
      }
      await res.arrayBuffer().catch(() => undefined);
    } catch {
      // The connection died with the server.
    }
  });
  if (killPoint === "random") setTimeout(fire, Math.random() * 1500);
  const fallback = setTimeout(fire, 30_000);
  await kill;
  clearTimeout(fallback);
  // A paid request takes a few hundred ms after signing; 202s of concurrent orders come within tens of ms.
  if (killPoint === "first-payment") await sleep(Math.random() * 600);
  if (killPoint === "first-202") await sleep(Math.random() * 20);
  const killedAt = performance.now();
  await server.kill();
  await Promise.all(first);

  const next = await startServerProcess(options.dataDir, port);
  restarted(next);
  const restartedAt = next.listeningAt;
  const deadline = Date.now() + options.deadlineMs;
  const seconds = () => (performance.now() - restartedAt) / 1000;

  const statusOf = async (requestId: string): Promise<string | undefined> => {
    const res = await fetch(`${next.url}/api/machine/orders/${requestId}`, {
      signal: AbortSignal.timeout(30_000),
    });
    if (res.status === 404) return undefined;
    const view = (await res.json()) as { payment_status?: string };
    return view.payment_status;
  };
  const atRestart = await Promise.all(runs.map((run) => statusOf(run.request_id)));
  const resolvedAfter: (number | undefined)[] = atRestart.map((status) =>
    status === "settled_pending_webhook" ? undefined : 0,
  );

  // Status is watched until every payment in flight at restart is paid or unpaid (or the deadline passes).
  const watching = (async () => {
    while (resolvedAfter.some((s) => s === undefined) && Date.now() < deadline) {
      await sleep(200);
      await Promise.all(
        runs.map(async (run, i) => {
          if (resolvedAfter[i] !== undefined) return;
          const status = await statusOf(run.request_id).catch(() => "settled_pending_webhook");
          if (status !== "settled_pending_webhook") resolvedAfter[i] = seconds();
        }),
      );
    }
  })();
  const refusals: Refusal[] = [];
  const retries = Promise.all(runs.map((run) => retryUntilPaid(next.url, run, deadline, refusals)));
  const [, orderIds] = await Promise.all([watching, retries]);

  const view = async (id: string) => {
    const res = await fetch(`${next.url}/api/machine/orders/${id}`, { signal: AbortSignal.timeout(30_000) });
    if (res.status === 404) return undefined;
    return (await res.json()) as { order_id: string; payment_status: string };
  };
  const finals = await Promise.all(
    runs.map(async (run, i) => {
      const byRequest = await view(run.request_id);
      const orderId = orderIds[i] ?? byRequest?.order_id;
      const byOrder = orderId ? await view(orderId) : undefined;
      return {
        order_id: orderId,
        found_by_request_id: byRequest !== undefined && byRequest.order_id === orderId,
        payment_status: byOrder?.payment_status,
      };
    }),
  );
  const inFlight = resolvedAfter.filter((_, i) => atRestart[i] === "settled_pending_webhook");
  return {
    round,
    kill_point: killPoint,
    refusals,
    restart_s: (restartedAt - killedAt) / 1000,
    recovery_s: inFlight.some((s) => s === undefined) ? undefined : Math.max(0, ...(inFlight as number[])),
    orders: runs.map((run, i) => ({
      request_id: run.request_id,
      order_id: finals[i]!.order_id,
      found_by_request_id: finals[i]!.found_by_request_id,
      acknowledged: run.acknowledged,
      status_at_restart: atRestart[i],
      resolved_after_s: resolvedAfter[i],
      final_payment_status: finals[i]!.payment_status,
      retry_payments: run.payer.payments.filter((p) => p.phase === "retry").length,
    })),
  };
}

/**
 * Retries one order with its identical body until the answer says paid: an even order first resends the
 * credential it signed before the crash (the identical paid request), an odd one, or one with no credential yet,
 * goes through the paying client, which pays a 402 with a fresh payment. A 200/202 still settling is retried after
 * a pause; any other answer is recorded as a refusal and the paying client takes over. Resolves to the order_id of
 * the last 200/202.
 */
async function retryUntilPaid(
  url: string,
  run: OrderRun,
  deadline: number,
  refusals: Refusal[],
): Promise<string | undefined> {
  run.payer.phase = "retry";
  const signed = run.payer.payments.at(-1)?.header;
  let resend = run.index % 2 === 0 ? signed : undefined;
  let orderId: string | undefined;
  while (Date.now() < deadline) {
    const init = {
      method: "POST",
      headers: { "content-type": "application/json", ...(resend ? { "PAYMENT-SIGNATURE": resend } : {}) },
      body: run.body,
      signal: AbortSignal.timeout(30_000),
    };
    let res: Response;
    try {
      res = resend
        ? await fetch(`${url}/api/machine/orders`, init)
        : await run.payer.fetch(`${url}/api/machine/orders`, init);
    } catch {
      await sleep(500);
      continue;
    }
    const answer = (await res.json().catch(() => ({}))) as {
      order_id?: string;
      payment_status?: string;
      code?: string;
      error?: string;
      message?: string;
    };
    if (res.status === 200 || res.status === 202) {
      orderId = answer.order_id;
      if (answer.payment_status === "paid") return orderId;
    } else {
      refusals.push({
        request_id: run.request_id,
        status: res.status,
        // An x402 402 carries `code` and the reason in `error`; other errors carry `error` and `message`.
        code: answer.code ?? answer.error,
        message: answer.code ? answer.error : answer.message,
        same_credential: resend !== undefined,
      });
      resend = undefined;
    }
    await sleep(500);
  }
  return orderId;
}

export interface StoreAudit {
  /** Order records in the store. */
  orders: number;
  paid: number;
  /** Orders still settling or pending confirmation. */
  stuck: string[];
  /** Orders neither paid nor in flight. */
  unpaid: string[];
  /** Spent authorizations: each one is money moved. */
  charges: number;
  /** Orders with more than one charge, with how many. */
  double_charged: { order_id: string; charges: number }[];
  /** Charges whose order is not paid. */
  charged_not_paid: string[];
  /** Paid orders whose recorded authorization was never spent. */
  paid_without_charge: string[];
  /** Charges no client of this run signed. */
  unknown_charges: number;
  /** Payments in flight the reconciler still has noted. */
  payment_work_left: number;
  /** Paid orders that were never queued for printing: still `queued`, with no fulfilment work item. */
  paid_not_queued: string[];
}

/** Reads the store of a stopped server: every order's payment status and every spent authorization. */
export async function auditStore(dataDir: string, payers: Payer[]): Promise<StoreAudit> {
  const store = await createFileStore({ dir: join(dataDir, "records") });
  try {
    const orders = (
      await listAll<{
        object?: string;
        id: string;
        status: string;
        payment_status: string;
        payment?: { replay_key: string };
        lifecycle?: { status: string };
      }>(store, "orders:")
    ).filter((o) => o.object === "order");
    // The embedded job queue keeps each job under jobs:job:<queue>:<key>.
    const queued = new Set(await listKeys(store, `jobs:job:${FULFILMENT_QUEUE}:`));
    const spent = (await listKeys(store, "x402:nonces:")).map((key) => key.toLowerCase());
    // Payments in flight are jobs of the payments queue (or, written by an older version, notes under work:payments:).
    const workLeft =
      (await listKeys(store, `jobs:job:${PAYMENTS_QUEUE}:`)).length +
      (await listKeys(store, "work:payments:")).length;
    const signed = payers.flatMap((p) => p.payments);
    // A spent nonce key ends with the payer and the nonce of its authorization.
    const chargeOf = (key: string) => signed.find((p) => key.endsWith(`:${p.from}:${p.nonce}`));
    const chargesByOrder = new Map<string, number>();
    let unknown = 0;
    for (const key of spent) {
      const payment = chargeOf(key);
      if (!payment) unknown++;
      else chargesByOrder.set(payment.order_id, (chargesByOrder.get(payment.order_id) ?? 0) + 1);
    }
    const status = new Map(orders.map((o) => [o.id, o.payment_status]));
    return {
      orders: orders.length,
      paid: orders.filter((o) => o.payment_status === "paid").length,
      stuck: orders
        .filter((o) => o.payment_status === "settling" || o.payment_status === "settled_pending_webhook")
        .map((o) => o.id),
      unpaid: orders.filter((o) => o.payment_status === "unpaid").map((o) => o.id),
      charges: spent.length,
      double_charged: [...chargesByOrder]
        .filter(([, n]) => n > 1)
        .map(([order_id, charges]) => ({ order_id, charges })),
      charged_not_paid: [...chargesByOrder.keys()].filter((id) => status.get(id) !== "paid"),
      paid_without_charge: orders
        .filter((o) => o.payment_status === "paid")
        .filter((o) => {
          const key = o.payment?.replay_key.toLowerCase() ?? "";
          const [from, nonce] = key.split(":").slice(-2);
          return !spent.some((s) => s.endsWith(`:${from}:${nonce}`));
        })
        .map((o) => o.id),
      unknown_charges: unknown,
      payment_work_left: workLeft,
      paid_not_queued: orders
        .filter(
          (o) =>
            o.payment_status === "paid" &&
            !queued.has(`jobs:job:${FULFILMENT_QUEUE}:${fulfilmentJobKey(o.id)}`),
        )
        .filter((o) => (o.lifecycle?.status ?? o.status) === "queued")
        .map((o) => o.id),
    };
  } finally {
    await store.close();
  }
}

async function listAll<T>(store: Store, prefix: string): Promise<T[]> {
  const values: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list<T>(prefix, { limit: 1000, ...(cursor ? { cursor } : {}) });
    values.push(...page.records.map((r) => r.value));
    cursor = page.cursor;
  } while (cursor);
  return values;
}

async function listKeys(store: Store, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list(prefix, { limit: 1000, ...(cursor ? { cursor } : {}) });
    keys.push(...page.records.map((r) => r.key));
    cursor = page.cursor;
  } while (cursor);
  return keys;
}

/** The figures of a crash run, and every violation of the property found (none expected). */
export interface CrashFigures {
  kills: number;
  orders: number;
  /** Orders the killed process answered 200/202. */
  acknowledged: number;
  /** Orders whose payment was in flight (settling or pending) when the server came back. */
  in_flight_at_restart: number;
  /** Acknowledged orders not paid after restart. */
  lost: number;
  /** Paid orders never queued for printing: charged, and never mailed. */
  paid_not_queued: number;
  /** Orders still settling or pending at the deadline, over HTTP or in the store. */
  stuck: number;
  /** Order records not paid at the end (stuck ones included), and orders the server does not know. */
  not_paid: number;
  /** Orders whose status by request_id does not answer with the order. */
  request_id_not_found: number;
  refused: number;
  refused_as_used_credential: number;
  /** Charges beyond one per order, and charges no client of the run signed. */
  double_charges: number;
  retry_payments: number;
  /** Payments signed on retries of orders the killed process had acknowledged. */
  acknowledged_retry_payments: number;
  /** Recovery seconds (from restart) of the rounds that had payments in flight at restart. */
  recovery_s: number[];
  /** The same, counted from the kill. */
  recovery_from_kill_s: number[];
  /** Rounds whose payments in flight were not all resolved by the deadline. */
  unresolved_rounds: number;
  restart_s: number[];
}

export function crashFigures(run: CrashRun): CrashFigures {
  const orders = run.rounds.flatMap((r) => r.orders);
  const refusals = run.rounds.flatMap((r) => r.refusals);
  const a = run.audit;
  const inFlightRounds = run.rounds.filter((r) =>
    r.orders.some((o) => o.status_at_restart === "settled_pending_webhook"),
  );
  const pendingOverHttp = orders
    .filter((o) => o.final_payment_status === "settled_pending_webhook")
    .map((o) => o.order_id ?? o.request_id);
  return {
    kills: run.rounds.length,
    orders: orders.length,
    acknowledged: orders.filter((o) => o.acknowledged).length,
    in_flight_at_restart: orders.filter((o) => o.status_at_restart === "settled_pending_webhook").length,
    lost: orders.filter((o) => o.acknowledged && o.final_payment_status !== "paid").length,
    paid_not_queued: a.paid_not_queued.length,
    stuck: new Set([...pendingOverHttp, ...a.stuck]).size,
    not_paid: a.orders - a.paid + orders.filter((o) => o.final_payment_status === undefined).length,
    request_id_not_found: orders.filter((o) => !o.found_by_request_id).length,
    refused: refusals.length,
    refused_as_used_credential: refusals.filter((r) => r.code === "payment_replayed").length,
    double_charges: a.double_charged.reduce((n, d) => n + d.charges - 1, 0) + a.unknown_charges,
    retry_payments: orders.reduce((n, o) => n + o.retry_payments, 0),
    acknowledged_retry_payments: orders
      .filter((o) => o.acknowledged)
      .reduce((n, o) => n + o.retry_payments, 0),
    recovery_s: inFlightRounds.map((r) => r.recovery_s ?? Number.NaN),
    recovery_from_kill_s: inFlightRounds.map((r) => r.restart_s + (r.recovery_s ?? Number.NaN)),
    unresolved_rounds: run.rounds.filter((r) => r.recovery_s === undefined).length,
    restart_s: run.rounds.map((r) => r.restart_s),
  };
}

/** Opens the records of a stopped server, runs `change`, and closes them. */
export async function withRecords<T>(dataDir: string, change: (store: Store) => Promise<T>): Promise<T> {
  const store = await createFileStore({ dir: join(dataDir, "records") });
  try {
    return await change(store);
  } finally {
    await store.close();
  }
}

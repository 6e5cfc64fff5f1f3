import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createTestCertificate } from "@mailpiece/conformance";
import { createSafePoster, type ResolvedAddress } from "@mailpiece/fetch-https";
import { manualClock, randomIds } from "@mailpiece/ports";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import nacl from "tweetnacl";
import { vi } from "vitest";
import { runQueue } from "../job-runner.ts";
import type { WebhookPrincipal } from "./context.ts";
import type { OrderStatusChange } from "./events.ts";
import { createWebhooks, type WebhookOptions } from "./webhooks.ts";

/** The receivers' host name: the tests' resolver gives 127.0.0.1, and it is the one private host admitted. */
export const RECEIVER_HOST = "hooks.example.test";

const stripe = new Stripe("sk_test_only_used_to_verify_signatures");

/** How one secret fared with each unmodified verifier. */
export interface SecretCheck {
  secret: string;
  stripe: boolean;
  standardWebhooks: boolean;
}

/** A request the receiver got, with what its verifiers made of it. */
export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  checks: SecretCheck[];
  /** Whether a v1a entry verified with the route's public key; null when the route has none. */
  ed25519: boolean | null;
  answered: number;
}

/** What a path of the receiver checks and answers. */
export interface ReceiverRoute {
  /** The secrets to verify with, each on its own. */
  secrets: string[];
  /** A `whpk_` key to verify `v1a` entries with. */
  publicKey?: string;
  /** The statuses to answer, one per request; the last one stays. Default 200. */
  statuses?: number[];
  /** Never answer (a receiver that hangs). */
  silent?: boolean;
}

export interface Receiver {
  readonly port: number;
  /** The self-signed certificate, PEM, to trust as `tls.ca`. */
  readonly ca: string;
  readonly received: ReceivedDelivery[];
  url(path: string): string;
  route(path: string, route: ReceiverRoute): void;
  close(): Promise<void>;
}

/**
 * An HTTPS receiver on 127.0.0.1 with a self-signed certificate for RECEIVER_HOST. Every request is verified with
 * the `stripe` package's `webhooks.constructEvent` and the `standardwebhooks` package's `Webhook.verify`, both
 * unmodified, against each secret of its path (and `v1a` entries with tweetnacl); it answers 400 when no secret
 * passes both, otherwise the route's next status.
 */
export async function startReceiver(): Promise<Receiver> {
  const pems = await createTestCertificate([RECEIVER_HOST]);
  const routes = new Map<string, ReceiverRoute>();
  const received: ReceivedDelivery[] = [];
  const server = createServer({ key: pems.key, cert: pems.cert });
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      const route = routes.get(path) ?? { secrets: [] };
      if (route.silent) return;
      const body = Buffer.concat(chunks).toString("utf8");
      const checks = route.secrets.map((secret) => checkSecret(secret, body, request.headers));
      const ed25519 =
        route.publicKey === undefined ? null : checkEd25519(route.publicKey, body, request.headers);
      const verified = checks.some((check) => check.stripe && check.standardWebhooks) && ed25519 !== false;
      const statuses = route.statuses ?? [200];
      const status = verified ? (statuses.length > 1 ? statuses.shift()! : (statuses[0] ?? 200)) : 400;
      received.push({ path, headers: request.headers, body, checks, ed25519, answered: status });
      response.writeHead(
        status,
        status >= 300 && status < 400 ? { location: `https://${RECEIVER_HOST}/moved` } : {},
      );
      response.end(verified ? "ok" : "signature refused");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    ca: pems.cert,
    received,
    url: (path) => `https://${RECEIVER_HOST}:${port}${path}`,
    route: (path, route) => routes.set(path, { ...route, statuses: [...(route.statuses ?? [200])] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function checkSecret(secret: string, body: string, headers: IncomingHttpHeaders): SecretCheck {
  const passes = (verify: () => unknown) => {
    try {
      verify();
      return true;
    } catch {
      return false;
    }
  };
  return {
    secret,
    stripe: passes(() => stripe.webhooks.constructEvent(body, String(headers["service-signature"]), secret)),
    standardWebhooks: passes(() =>
      new Webhook(secret).verify(body, {
        "webhook-id": String(headers["webhook-id"]),
        "webhook-timestamp": String(headers["webhook-timestamp"]),
        "webhook-signature": String(headers["webhook-signature"]),
      }),
    ),
  };
}

function checkEd25519(publicKey: string, body: string, headers: IncomingHttpHeaders): boolean {
  const signed = Buffer.from(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`);
  const key = Buffer.from(publicKey.slice("whpk_".length), "base64");
  return String(headers["webhook-signature"])
    .split(" ")
    .filter((entry) => entry.startsWith("v1a,"))
    .some((entry) => nacl.sign.detached.verify(signed, Buffer.from(entry.slice(4), "base64"), key));
}

/** A resolver the test can change: names to addresses; RECEIVER_HOST is 127.0.0.1. */
export function testResolver(addresses: Record<string, string> = {}) {
  const table = new Map(Object.entries({ [RECEIVER_HOST]: "127.0.0.1", ...addresses }));
  return {
    table,
    lookup: async (hostname: string): Promise<ResolvedAddress[]> => {
      const address = table.get(hostname);
      if (address) return [{ address, family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    },
  };
}

/**
 * The webhook use cases on a memory store and the embedded job queue, a manual clock that JavaScript's Date follows
 * (the verifiers read Date.now), and the fetch-https poster to a local receiver: public addresses only, with the
 * receiver's host:port admitted as a private host, as WEBHOOK_PRIVATE_HOSTS admits one.
 */
export async function webhookHarness(options: WebhookOptions & { addresses?: Record<string, string> } = {}) {
  const { addresses, ...webhookOptions } = options;
  vi.useFakeTimers({ toFake: ["Date"] });
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  vi.setSystemTime(clock.now());
  const store = createMemoryStore({ clock });
  const jobs = createStoreJobQueue({ store, clock });
  const receiver = await startReceiver();
  const resolver = testResolver(addresses);
  const poster = createSafePoster({
    anyPublicHost: true,
    privateHosts: [`${RECEIVER_HOST}:${receiver.port}`],
    timeoutMs: 5000,
    lookup: resolver.lookup,
    tls: { ca: receiver.ca },
  });
  const deps = {
    store,
    jobs,
    clock,
    ids: randomIds,
    send: (r: { url: string; body: string; headers: Record<string, string>; timeoutMs: number }) =>
      poster.post(r.url, { body: r.body, headers: r.headers, timeoutMs: r.timeoutMs }),
    checkUrl: (url: string) => poster.check(url),
    options: webhookOptions,
  };
  const webhooks = createWebhooks(deps);
  return {
    clock,
    store,
    jobs,
    receiver,
    resolver,
    deps,
    webhooks,
    /** Moves the clock (and Date) on. */
    advance(ms: number) {
      clock.advance(ms);
      vi.setSystemTime(clock.now());
    },
    /** Runs every due delivery once; returns how many jobs were worked on. */
    deliver: () => runQueue(jobs, webhooks.deliveryWork, { owner: "test", leaseMs: 60_000 }),
    async close() {
      await receiver.close();
      await jobs.close();
      await store.close();
      vi.useRealTimers();
    },
  };
}

/**
 * The webhook use cases on a memory store and queue with a manual clock and a sender that records each request and
 * answers 200, for what needs no network; `checkUrl` refuses the host `private.example.test` as the poster would.
 */
export function memoryWebhooks(options: WebhookOptions = {}) {
  const clock = manualClock(Date.UTC(2026, 5, 1, 12));
  const store = createMemoryStore({ clock });
  const jobs = createStoreJobQueue({ store, clock });
  const sent: { url: string; body: string; headers: Record<string, string> }[] = [];
  const webhooks = createWebhooks({
    store,
    jobs,
    clock,
    ids: randomIds,
    send: async ({ url, body, headers }) => {
      sent.push({ url, body, headers });
      return { status: 200 };
    },
    checkUrl: async (url) => {
      if (new URL(url).hostname === "private.example.test") {
        throw Object.assign(new Error("private.example.test does not resolve to a public address"), {
          code: "address_not_public",
        });
      }
    },
    options,
  });
  return {
    clock,
    store,
    jobs,
    sent,
    webhooks,
    deliver: () => runQueue(jobs, webhooks.deliveryWork, { owner: "test", leaseMs: 60_000 }),
  };
}

export const principal: WebhookPrincipal = { workspace_id: `ws_${"a".repeat(32)}`, mode: "test" };
export const otherWorkspace: WebhookPrincipal = { workspace_id: `ws_${"b".repeat(32)}`, mode: "test" };

/** A letter of the principal's workspace reaching `status`. */
export function statusChange(
  orderId: string,
  status: string,
  extra: Partial<OrderStatusChange> = {},
): OrderStatusChange {
  return {
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    order_id: orderId,
    kind: "letter",
    status,
    object: { id: orderId, object: "letter", status, metadata: { ref: "A-1" } },
    tracking_number: status === "in_transit" ? "9400100000000000000000" : null,
    tracking_status: null,
    ...extra,
  };
}

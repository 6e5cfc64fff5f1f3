import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Charge, PaymentRail } from "@mailpiece/ports";
import { PaymentError } from "@mailpiece/ports";
import { Receipt } from "mppx";
import { Mppx } from "mppx/client";
import { afterEach, describe, expect, it } from "vitest";
import { mppProblem } from "./mpp-problem.ts";
import { createMppRail } from "./mpp-rail.ts";
import { stripeMethod } from "./stripe-method.ts";
import { tempoMethod } from "./tempo-method.ts";
import { testMethod, testMethodClient } from "./test-method.ts";

const SECRET = "mailpiece-end-to-end-secret-32-bytes-or-more";

const CHARGE: Charge = {
  amount_cents: 1999,
  currency: "usd",
  resource_url: "http://127.0.0.1/pay",
  description: "One certified letter",
  order_ref: "0f8e2a7c-4b1d-4e9a-8c3f-2d6b5a4e3c21",
};

/**
 * A tiny paid endpoint wired the way the core uses a rail: no credential -> the 402 challenge; a credential ->
 * verify, claim the replay key once, settle, 200 with the receipt headers. Failures answer with the MPP problem
 * and fresh challenges.
 */
function startShop(rail: PaymentRail) {
  const claimed = new Set<string>();
  const settlements: string[] = [];
  const authorizations: string[] = [];

  async function send(
    res: ServerResponse,
    status: number,
    headers: Record<string, string | string[]>,
    body: unknown,
  ) {
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
  }

  async function refuse(res: ServerResponse, error: PaymentError) {
    const problem = mppProblem(error);
    const fresh = await rail.challenge(CHARGE);
    await send(res, problem.status, { ...fresh.headers, "Content-Type": problem.contentType }, problem.body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    for await (const _chunk of req) {
      // The body is the order; this endpoint only needs the payment.
    }
    if (req.method !== "POST" || req.url !== "/pay") {
      await send(res, 404, { "Content-Type": "application/json" }, { error: "not_found" });
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    try {
      const credential = await rail.readCredential(headers);
      if (credential === undefined) {
        const answer = await rail.challenge(CHARGE);
        await send(
          res,
          answer.status,
          { ...answer.headers, "Content-Type": answer.contentType },
          answer.body,
        );
        return;
      }
      authorizations.push(credential.raw);
      const verified = await rail.verify(credential, CHARGE);
      if (claimed.has(verified.replayKey)) {
        throw new PaymentError("invalid_challenge", "This challenge was already paid.");
      }
      claimed.add(verified.replayKey);
      const settlement = await rail.settle(verified, CHARGE);
      settlements.push(settlement.reference);
      await send(
        res,
        200,
        { ...rail.receiptHeaders(settlement), "Content-Type": "application/json" },
        { paid: true, reference: settlement.reference },
      );
    } catch (error) {
      if (!PaymentError.isInstance(error)) throw error;
      await refuse(res, error);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500);
      res.end(String(error));
    });
  });
  return { server, settlements, authorizations };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}/pay`;
}

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

async function open(rail: PaymentRail) {
  const shop = startShop(rail);
  servers.push(shop.server);
  return { ...shop, url: await listen(shop.server) };
}

function order() {
  return {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ request_id: CHARGE.order_ref }),
  };
}

describe("end to end with the mppx client", () => {
  it("pays the 402 with the test method and gets a receipt", async () => {
    const shop = await open(
      createMppRail({ realm: "127.0.0.1", secretKey: SECRET, methods: [testMethod()] }),
    );

    const unpaid = await fetch(shop.url, order());
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("content-type")).toBe("application/problem+json");
    expect(unpaid.headers.get("www-authenticate")).toMatch(/^Payment id="/);

    const client = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
    const paid = await client.fetch(shop.url, order());
    expect(paid.status).toBe(200);
    expect(paid.headers.get("cache-control")).toBe("private");
    const receipt = Receipt.fromResponse(paid);
    expect(receipt).toMatchObject({ method: "test", status: "success", externalId: CHARGE.order_ref });
    expect(await paid.json()).toEqual({ paid: true, reference: receipt.reference });
    expect(shop.settlements).toEqual([receipt.reference]);
  });

  it("answers a declined token with a verification-failed problem and no receipt", async () => {
    const shop = await open(
      createMppRail({ realm: "127.0.0.1", secretKey: SECRET, methods: [testMethod()] }),
    );
    const client = Mppx.create({
      methods: [testMethodClient({ token: "tok_test_declined" })],
      polyfill: false,
    });

    const refused = await client.fetch(shop.url, order());
    expect(refused.status).toBe(402);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(refused.headers.get("payment-receipt")).toBeNull();
    const problem = (await refused.json()) as { type: string; status: number; code: string };
    expect(problem).toMatchObject({
      type: "https://paymentauth.org/problems/verification-failed",
      status: 402,
      code: "verification_failed",
    });
    expect(shop.authorizations.length).toBeGreaterThan(0);
    expect(shop.settlements).toEqual([]);
  });

  it("settles a replayed credential once: the core's claim refuses the second use", async () => {
    const shop = await open(
      createMppRail({ realm: "127.0.0.1", secretKey: SECRET, methods: [testMethod()] }),
    );
    const client = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
    const paid = await client.fetch(shop.url, order());
    expect(paid.status).toBe(200);

    const replay = await fetch(shop.url, {
      ...order(),
      headers: { ...order().headers, Authorization: shop.authorizations[0] as string },
    });
    expect(replay.status).toBe(402);
    expect(replay.headers.get("payment-receipt")).toBeNull();
    expect(await replay.json()).toMatchObject({ type: "https://paymentauth.org/problems/invalid-challenge" });
    expect(shop.settlements).toHaveLength(1);
  });

  it("lets the client pick the test challenge among several methods", async () => {
    const rail = createMppRail({
      realm: "127.0.0.1",
      secretKey: SECRET,
      methods: [
        tempoMethod({ recipient: "0x742d35Cc6634C0532925a3b844Bc9e7595f8fE00" }),
        stripeMethod({ secretKey: "sk_test_mailpiece", networkId: "profile_mailpiece" }),
        testMethod(),
      ],
    });
    const shop = await open(rail);
    const client = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
    const paid = await client.fetch(shop.url, order());
    expect(paid.status).toBe(200);
    expect(Receipt.fromResponse(paid)).toMatchObject({ method: "test", status: "success" });
  });
});

import { strict as assert } from "node:assert";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Charge, PaymentError, type PaymentRail } from "@mailpiece/ports";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createLocalFacilitator } from "./local-facilitator.ts";
import { BASE_SEPOLIA } from "./usdc.ts";
import { createX402Rail } from "./x402-rail.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

/**
 * A paid endpoint as the machine API will run it: no credential -> the rail's 402; a credential -> verify, claim
 * the replay key, settle, then answer with the receipt headers. Nothing happens before settlement succeeds.
 */
function payServer(rail: PaymentRail, charge: Charge, claimed: Set<string>): Server {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || req.url !== "/pay") {
      res.writeHead(404).end();
      return;
    }
    for await (const _ of req) {
      // the order body is not needed to price this fixed charge
    }
    const challenge = async (error?: PaymentError) => {
      const c = await rail.challenge(charge);
      const body = error ? { ...(c.body as object), error: error.code, detail: error.message } : c.body;
      res.writeHead(c.status, { ...c.headers, "content-type": c.contentType }).end(JSON.stringify(body));
    };
    try {
      const credential = await rail.readCredential(headersOf(req));
      if (!credential) return await challenge();
      const payment = await rail.verify(credential, charge);
      if (claimed.has(payment.replayKey))
        throw new PaymentError("verification_failed", "this payment was used");
      claimed.add(payment.replayKey);
      const settlement = await rail.settle(payment, charge);
      res
        .writeHead(settlement.status === "settled" ? 200 : 202, {
          ...rail.receiptHeaders(settlement),
          "content-type": "application/json",
        })
        .end(JSON.stringify({ order: charge.order_ref, paid: settlement.reference }));
    } catch (error) {
      if (!PaymentError.isInstance(error)) throw error;
      await challenge(error);
    }
  }
  return createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
}

describe("x402 end to end with the reference client (@x402/fetch + @x402/evm)", () => {
  const charge: Charge = {
    amount_cents: 340,
    currency: "usd",
    resource_url: "",
    description: "One letter, printed and posted by US First-Class Mail",
    order_ref: "a3b2c1d0-e9f8-4a7b-8c6d-5e4f3a2b1c0d",
  };
  const claimed = new Set<string>();
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const rail = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: createLocalFacilitator({ network: BASE_SEPOLIA }),
    });
    server = payServer(rail, charge, claimed);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pay`;
    charge.resource_url = url;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("pays a 3.40 USD order once the spend cap is raised, and gets PAYMENT-RESPONSE with the transaction", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
    registerExactEvmScheme(client, { signer: account });
    const payFetch = wrapFetchWithPayment(fetch, client);

    const response = await payFetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ request_id: charge.order_ref }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const header = response.headers.get("PAYMENT-RESPONSE");
    assert.ok(header, "the paid answer carries PAYMENT-RESPONSE");
    const receipt = decodePaymentResponseHeader(header);
    assert.equal(receipt.success, true);
    assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(receipt.network, "eip155:84532");
    assert.equal(receipt.payer, account.address);
    assert.equal(receipt.amount, "3400000");
    assert.deepEqual(await response.json(), { order: charge.order_ref, paid: receipt.transaction });
    assert.equal(claimed.size, 1);
  });

  it("is refused by a default client (the $1 cap), which is why the 402 says how to raise it", async () => {
    const unpaid = await fetch(url, { method: "POST", body: "{}" });
    assert.equal(unpaid.status, 402);
    assert.equal(unpaid.headers.get("cache-control"), "no-store");
    const body = (await unpaid.json()) as { message: string; accepts: { amount: string }[] };
    assert.equal(body.accepts[0]?.amount, "3400000");
    assert.match(body.message, /maxAmountPerPayment: "\$250"/);

    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
    const before = claimed.size;
    await assert.rejects(
      wrapFetchWithPayment(fetch, client)(url, { method: "POST", body: "{}" }),
      /spendControls\.maxAmountPerPayment \(\$1/,
    );
    assert.equal(claimed.size, before, "nothing was paid");
  });
});

import { strict as assert } from "node:assert";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Charge, PaymentError, type PaymentErrorCode } from "@mailpiece/ports";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, it } from "vitest";
import { createHttpFacilitator } from "./http-facilitator.ts";
import { createLocalFacilitator } from "./local-facilitator.ts";
import { BASE_SEPOLIA } from "./usdc.ts";
import { createX402Rail } from "./x402-rail.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const charge: Charge = {
  amount_cents: 340,
  currency: "usd",
  resource_url: "https://mailpiece.example/api/machine/orders",
  description: "One letter",
  order_ref: "5f3c2b1a-0e9d-4c8b-a7f6-e5d4c3b2a190",
};

type Route = (body: unknown, req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(routes: Record<string, Route>): Promise<string> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const route = routes[`${req.method} ${req.url}`];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    await route(text ? JSON.parse(text) : undefined, req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** A facilitator service over node:http: /verify, /settle and /supported answered by the local facilitator. */
function facilitatorRoutes(local: FacilitatorClient, seen: string[] = []): Record<string, Route> {
  type Request = {
    paymentPayload: Parameters<FacilitatorClient["verify"]>[0];
    paymentRequirements: Parameters<FacilitatorClient["verify"]>[1];
  };
  return {
    "POST /verify": async (body, req, res) => {
      seen.push(`verify ${req.headers.authorization ?? ""}`);
      const { paymentPayload, paymentRequirements } = body as Request;
      json(res, 200, await local.verify(paymentPayload, paymentRequirements));
    },
    "POST /settle": async (body, req, res) => {
      seen.push(`settle ${req.headers.authorization ?? ""}`);
      const { paymentPayload, paymentRequirements } = body as Request;
      json(res, 200, await local.settle(paymentPayload, paymentRequirements));
    },
    "GET /supported": async (_body, req, res) => {
      seen.push(`supported ${req.headers.authorization ?? ""}`);
      json(res, 200, await local.getSupported());
    },
  };
}

async function paidHeaders(rail: ReturnType<typeof createX402Rail>): Promise<Headers> {
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: privateKeyToAccount(generatePrivateKey()) });
  const challenge = await rail.challenge(charge);
  const payload = await client.createPaymentPayload(
    decodePaymentRequiredHeader(challenge.headers["PAYMENT-REQUIRED"] as string),
  );
  return new Headers(new x402HTTPClient(client).encodePaymentSignatureHeader(payload));
}

async function refused(
  action: () => Promise<unknown>,
  code: PaymentErrorCode,
  message?: RegExp,
): Promise<void> {
  await assert.rejects(action, (error: unknown) => {
    assert.ok(PaymentError.isInstance(error), `expected a PaymentError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe("createHttpFacilitator", () => {
  it("verifies and settles over HTTP against a facilitator service, sending its headers", async () => {
    const seen: string[] = [];
    const url = await listen(facilitatorRoutes(createLocalFacilitator({ network: BASE_SEPOLIA }), seen));
    const facilitator = createHttpFacilitator({
      url,
      timeoutMs: 5_000,
      headers: { Authorization: "Bearer test-key" },
    });
    assert.equal(facilitator.simulated, false);
    const rail = createX402Rail({ network: BASE_SEPOLIA, payTo: PAY_TO, facilitator });
    assert.equal(rail.simulated, false);

    const supported = await facilitator.getSupported();
    assert.deepEqual(supported.kinds, [{ x402Version: 2, scheme: "exact", network: "eip155:84532" }]);

    const headers = await paidHeaders(rail);
    const payment = await rail.verify((await rail.readCredential(headers))!, charge);
    const settlement = await rail.settle(payment, charge);
    assert.equal(settlement.status, "settled");
    assert.match(settlement.reference, /^0x[0-9a-f]{64}$/);
    await refused(() => rail.settle(payment, charge), "settlement_failed", /nonce_already_used/);
    assert.deepEqual(seen, [
      "supported Bearer test-key",
      "verify Bearer test-key",
      "settle Bearer test-key",
      "settle Bearer test-key",
    ]);
  });

  it("makes headers per request when given a function", async () => {
    const seen: string[] = [];
    const url = await listen(facilitatorRoutes(createLocalFacilitator({ network: BASE_SEPOLIA }), seen));
    let n = 0;
    const facilitator = createHttpFacilitator({
      url,
      headers: async () => ({ Authorization: `Bearer token-${++n}` }),
    });
    await facilitator.getSupported();
    await facilitator.getSupported();
    assert.deepEqual(seen, ["supported Bearer token-1", "supported Bearer token-2"]);
  });

  it("reads a refusal sent with an error status as verification_failed with its reason", async () => {
    const url = await listen({
      "POST /verify": (_body, _req, res) =>
        json(res, 400, {
          isValid: false,
          invalidReason: "invalid_exact_evm_signature",
          invalidMessage: "bad v",
        }),
    });
    const rail = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: createHttpFacilitator({ url }),
    });
    const headers = await paidHeaders(rail);
    await refused(
      async () => rail.verify((await rail.readCredential(headers))!, charge),
      "verification_failed",
      /invalid_exact_evm_signature \(bad v\)/,
    );
  });

  it("reads a settle refusal sent with an error status as settlement_failed", async () => {
    const local = createLocalFacilitator({ network: BASE_SEPOLIA });
    const url = await listen({
      ...facilitatorRoutes(local),
      "POST /settle": (_body, _req, res) =>
        json(res, 400, {
          success: false,
          errorReason: "invalid_exact_evm_transaction_failed",
          transaction: "",
          network: BASE_SEPOLIA,
        }),
    });
    const rail = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: createHttpFacilitator({ url }),
    });
    const payment = await rail.verify((await rail.readCredential(await paidHeaders(rail)))!, charge);
    await refused(
      () => rail.settle(payment, charge),
      "settlement_failed",
      /invalid_exact_evm_transaction_failed/,
    );
  });

  it("says facilitator_unavailable when nobody answers, and when settle times out", async () => {
    const closed = await listen({});
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const down = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: createHttpFacilitator({ url: closed }),
    });
    const unanswered = (await down.readCredential(await paidHeaders(down)))!;
    await refused(() => down.verify(unanswered, charge), "facilitator_unavailable");

    const local = createLocalFacilitator({ network: BASE_SEPOLIA });
    const url = await listen({
      ...facilitatorRoutes(local),
      "POST /settle": () => {
        // never answers: the outcome of this settle stays unknown to the caller
      },
    });
    // Verify gets the default (generous) timeout so a loaded machine cannot make it fail; only settle is cut short.
    const patient = createHttpFacilitator({ url });
    const slow = createX402Rail({
      network: BASE_SEPOLIA,
      payTo: PAY_TO,
      facilitator: { ...patient, settle: createHttpFacilitator({ url, timeoutMs: 200 }).settle },
    });
    const payment = await slow.verify((await slow.readCredential(await paidHeaders(slow)))!, charge);
    await refused(() => slow.settle(payment, charge), "facilitator_unavailable", /outcome is unknown/);
  });

  it("refuses a URL that is not http(s)", () => {
    assert.throws(() => createHttpFacilitator({ url: "ftp://facilitator.example" }), TypeError);
    assert.throws(() => createHttpFacilitator({ url: "not a url" }), TypeError);
  });
});

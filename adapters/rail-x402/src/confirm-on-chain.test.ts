import { strict as assert } from "node:assert";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type Charge,
  manualClock,
  type PaymentChallenge,
  type PaymentConfirmation,
  type PaymentRail,
  type Settlement,
  type VerifiedPayment,
} from "@mailpiece/ports";
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import type { SettleResponse } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  createPublicClient,
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  type Hex,
  http,
  isAddressEqual,
  keccak256,
  parseAbi,
  parseAbiParameters,
  toHex,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, it } from "vitest";
import { createLocalFacilitator } from "./local-facilitator.ts";
import { decodePaymentSignature, type Eip3009Authorization } from "./payment-signature.ts";
import { BASE_SEPOLIA, resolveUsdc } from "./usdc.ts";
import { createX402Rail, type X402RailOptions } from "./x402-rail.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const OTHER = "0x000000000000000000000000000000000000dEaD";
const TOKEN = resolveUsdc(BASE_SEPOLIA);
const BLOCK_SECONDS = 2;

const abi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

interface ChainLog {
  address: Hex;
  topics: Hex[];
  data: Hex;
  blockNumber: number;
  transactionHash: Hex;
}

/**
 * A chain as its JSON-RPC answers it, holding the USDC contract's authorization state: blocks every two seconds
 * up to `latest`, transactions that use or cancel authorizations (with their events), and nothing else. It answers
 * eth_chainId, eth_getBlockByNumber, eth_call (authorizationState), eth_getTransactionReceipt and eth_getLogs.
 */
function simulatedChain(options: { chainId: number; now: number }) {
  let latest = 1_000;
  const genesis = Math.floor(options.now / 1000) - latest * BLOCK_SECONDS;
  const states = new Map<string, number>();
  const logs: ChainLog[] = [];
  const receipts = new Map<Hex, { blockNumber: number; status: "0x1" | "0x0" }>();
  const calls: string[] = [];
  let sequence = 0;

  const timestampOf = (block: number) => genesis + block * BLOCK_SECONDS;
  const key = (authorizer: string, nonce: string) => `${authorizer}:${nonce}`.toLowerCase();

  function blockOf(tag: unknown): number {
    if (tag === "latest" || tag === "safe" || tag === "finalized" || tag === undefined) return latest;
    return Number(BigInt(tag as string));
  }

  function block(number: number) {
    return {
      number: toHex(number),
      hash: keccak256(toHex(`block-${number}`)),
      parentHash: keccak256(toHex(`block-${number - 1}`)),
      timestamp: toHex(timestampOf(number)),
      nonce: "0x0000000000000000",
      difficulty: "0x0",
      totalDifficulty: "0x0",
      gasLimit: "0x1c9c380",
      gasUsed: "0x0",
      miner: "0x0000000000000000000000000000000000000000",
      extraData: "0x",
      logsBloom: `0x${"0".repeat(512)}`,
      receiptsRoot: keccak256(toHex("receipts")),
      sha3Uncles: keccak256(toHex("uncles")),
      stateRoot: keccak256(toHex("state")),
      transactionsRoot: keccak256(toHex("transactions")),
      size: "0x200",
      transactions: [],
      uncles: [],
    };
  }

  function rpcLog(log: ChainLog, index: number) {
    return {
      address: log.address,
      topics: log.topics,
      data: log.data,
      blockNumber: toHex(log.blockNumber),
      blockHash: keccak256(toHex(`block-${log.blockNumber}`)),
      transactionHash: log.transactionHash,
      transactionIndex: "0x0",
      logIndex: toHex(index),
      removed: false,
    };
  }

  function answer(method: string, params: unknown[]): unknown {
    calls.push(method);
    switch (method) {
      case "eth_chainId":
        return toHex(options.chainId);
      case "eth_blockNumber":
        return toHex(latest);
      case "eth_getBlockByNumber": {
        const number = blockOf(params[0]);
        return number > latest ? null : block(number);
      }
      case "eth_call": {
        const call = params[0] as { to: Hex; data: Hex };
        if (!isAddressEqual(call.to, TOKEN.address)) return "0x";
        const decoded = decodeFunctionData({ abi, data: call.data });
        const at = blockOf(params[1]);
        const usedAt = states.get(key(decoded.args[0], decoded.args[1]));
        return encodeFunctionResult({
          abi,
          functionName: "authorizationState",
          result: usedAt !== undefined && usedAt <= at,
        });
      }
      case "eth_getTransactionReceipt": {
        const hash = (params[0] as Hex).toLowerCase() as Hex;
        const receipt = receipts.get(hash);
        if (!receipt || receipt.blockNumber > latest) return null;
        return {
          transactionHash: hash,
          transactionIndex: "0x0",
          blockHash: keccak256(toHex(`block-${receipt.blockNumber}`)),
          blockNumber: toHex(receipt.blockNumber),
          from: "0x1111111111111111111111111111111111111111",
          to: TOKEN.address,
          cumulativeGasUsed: "0x5208",
          gasUsed: "0x5208",
          effectiveGasPrice: "0x1",
          contractAddress: null,
          logsBloom: `0x${"0".repeat(512)}`,
          status: receipt.status,
          type: "0x2",
          logs: logs.filter((log) => log.transactionHash === hash).map(rpcLog),
        };
      }
      case "eth_getLogs": {
        const filter = params[0] as {
          address?: Hex;
          topics?: (Hex | null)[];
          fromBlock?: Hex;
          toBlock?: Hex;
        };
        const from = filter.fromBlock ? blockOf(filter.fromBlock) : latest;
        const to = filter.toBlock ? blockOf(filter.toBlock) : latest;
        return logs
          .filter(
            (log) =>
              log.blockNumber >= from &&
              log.blockNumber <= Math.min(to, latest) &&
              (!filter.address || isAddressEqual(log.address, filter.address)) &&
              (filter.topics ?? []).every(
                (topic, i) => topic === null || topic.toLowerCase() === log.topics[i]?.toLowerCase(),
              ),
          )
          .map(rpcLog);
      }
      default:
        throw new Error(`the simulated chain does not answer ${method}`);
    }
  }

  /** Mines a transaction in the next block: its events, and the nonce's state when it uses or cancels one. */
  function mine(
    events: {
      used?: Eip3009Authorization;
      canceled?: Eip3009Authorization;
      transfer?: { from: Hex; to: Hex; value: bigint };
    },
    status: "0x1" | "0x0" = "0x1",
  ): Hex {
    latest += 1;
    sequence += 1;
    const hash = keccak256(toHex(`tx-${sequence}`));
    receipts.set(hash, { blockNumber: latest, status });
    if (status === "0x1") {
      const auth = events.used ?? events.canceled;
      if (auth) {
        states.set(key(auth.from, auth.nonce), latest);
        logs.push({
          address: TOKEN.address,
          topics: encodeEventTopics({
            abi,
            eventName: events.used ? "AuthorizationUsed" : "AuthorizationCanceled",
            args: { authorizer: auth.from, nonce: auth.nonce },
          }) as Hex[],
          data: "0x",
          blockNumber: latest,
          transactionHash: hash,
        });
      }
      if (events.transfer) {
        logs.push({
          address: TOKEN.address,
          topics: encodeEventTopics({
            abi,
            eventName: "Transfer",
            args: { from: events.transfer.from, to: events.transfer.to },
          }) as Hex[],
          data: encodeAbiParameters(parseAbiParameters("uint256"), [events.transfer.value]),
          blockNumber: latest,
          transactionHash: hash,
        });
      }
    }
    return hash;
  }

  /** Lets chain time pass: empty blocks until the latest block is at least `seconds`. */
  function advanceTo(seconds: number) {
    while (timestampOf(latest) < seconds) latest += 1;
  }

  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      const parsed = JSON.parse(body) as
        | { id: number; method: string; params: unknown[] }
        | { id: number; method: string; params: unknown[] }[];
      const one = (r: { id: number; method: string; params: unknown[] }) => {
        try {
          return { jsonrpc: "2.0", id: r.id, result: answer(r.method, r.params ?? []) };
        } catch (error) {
          return { jsonrpc: "2.0", id: r.id, error: { code: -32601, message: String(error) } };
        }
      };
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(one) : one(parsed)));
    });
  });

  return {
    server,
    calls,
    mine,
    advanceTo,
    timestampOf,
    get latest() {
      return latest;
    },
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const charge: Charge = {
  amount_cents: 340,
  currency: "usd",
  resource_url: "https://mailpiece.example/api/machine/orders",
  description: "One letter, printed and posted by US First-Class Mail",
  order_ref: "5f0e2a1c-7b3d-4e8f-9a6b-1c2d3e4f5a6b",
};

const chains: ReturnType<typeof simulatedChain>[] = [];
afterEach(async () => {
  await Promise.all(chains.splice(0).map((chain) => chain.close()));
});

/**
 * A rail on a remote facilitator that broadcasts to the simulated chain (verification is the reference one), with
 * `confirm` reading that chain over JSON-RPC on 127.0.0.1.
 */
async function setup(options: { chainId?: number; rail?: Partial<X402RailOptions> } = {}) {
  const now = Date.now();
  const clock = manualClock(now);
  const chain = simulatedChain({ chainId: options.chainId ?? TOKEN.chainId, now });
  chains.push(chain);
  const rpcUrl = await chain.listen();
  const reference = createLocalFacilitator({ network: BASE_SEPOLIA, clock });
  let settleWith: (authorization: Eip3009Authorization) => SettleResponse | Promise<SettleResponse> = (
    a,
  ) => ({
    success: true,
    transaction: chain.mine({ used: a, transfer: { from: a.from, to: a.to, value: BigInt(a.value) } }),
    network: BASE_SEPOLIA,
    payer: a.from,
  });
  const facilitator: FacilitatorClient = {
    verify: (payload, requirements) => reference.verify(payload, requirements),
    settle: async (payload) =>
      settleWith((payload.payload as { authorization: Eip3009Authorization }).authorization),
    getSupported: () => reference.getSupported(),
  };
  const railOptions: X402RailOptions = {
    network: BASE_SEPOLIA,
    payTo: PAY_TO,
    facilitator,
    clock,
    rpcUrl,
    ...options.rail,
  };
  const rail = createX402Rail(railOptions);
  const account = privateKeyToAccount(generatePrivateKey());
  const client = x402Client.fromConfig({ schemes: [], spendControls: { maxAmountPerPayment: "$250" } });
  registerExactEvmScheme(client, { signer: account });

  async function paid(): Promise<{ payment: VerifiedPayment; authorization: Eip3009Authorization }> {
    const challenge: PaymentChallenge = await rail.challenge(charge);
    const payload = await client.createPaymentPayload(
      decodePaymentRequiredHeader(challenge.headers["PAYMENT-REQUIRED"] as string),
    );
    const headers = new Headers(new x402HTTPClient(client).encodePaymentSignatureHeader(payload));
    const payment = await rail.verify((await rail.readCredential(headers))!, charge);
    const authorization = decodePaymentSignature(headers.get("payment-signature")!).payload.authorization;
    return { payment, authorization };
  }

  return {
    chain,
    rail,
    rpcUrl,
    railOptions,
    account,
    paid,
    settleWith: (fn: typeof settleWith) => {
      settleWith = fn;
    },
  };
}

function ask(payment: VerifiedPayment, startedAt: number, reference?: string) {
  return {
    replayKey: payment.replayKey,
    amount_cents: payment.amount_cents,
    details: JSON.parse(JSON.stringify(payment.details)) as unknown,
    startedAt,
    ...(reference ? { reference } : {}),
  };
}

function settled(answer: PaymentConfirmation): Settlement {
  assert.equal(answer.status, "settled", JSON.stringify(answer));
  return answer as Settlement;
}

describe("x402 confirm on chain (JSON-RPC on 127.0.0.1)", () => {
  it("answers settled with the pending settlement's transaction once its receipt shows the transfer", async () => {
    const { rail, chain, paid, settleWith, account } = await setup();
    const { payment } = await paid();
    settleWith((a) => ({
      success: false,
      errorReason: "settlement_pending",
      transaction: chain.mine({ used: a, transfer: { from: a.from, to: a.to, value: BigInt(a.value) } }),
      network: BASE_SEPOLIA,
      payer: a.from,
    }));
    const startedAt = Date.now();
    const pending = await rail.settle(payment, charge);
    assert.equal(pending.status, "pending");
    const answer = settled(await rail.confirm!(ask(payment, startedAt, pending.reference)));
    assert.deepEqual(answer, {
      protocol: "x402",
      status: "settled",
      reference: pending.reference,
      payer: account.address,
      amount_cents: 340,
      settledAt: chain.timestampOf(chain.latest) * 1000,
      details: {
        network: BASE_SEPOLIA,
        transaction: pending.reference,
        payer: account.address,
        amount: "3400000",
      },
    });
    const receipt = decodePaymentResponseHeader(rail.receiptHeaders(answer)["PAYMENT-RESPONSE"] ?? "");
    assert.equal(receipt.success, true);
    assert.equal(receipt.transaction, pending.reference);
    assert.ok(
      !chain.calls.includes("eth_sendRawTransaction") && !chain.calls.includes("eth_sendTransaction"),
    );
  });

  it("finds the transaction by its AuthorizationUsed event when settle's answer was lost", async () => {
    const { rail, railOptions, chain, paid, settleWith } = await setup();
    const { payment } = await paid();
    let transaction: Hex | undefined;
    settleWith((a) => {
      chain.advanceTo(chain.timestampOf(chain.latest) + 40);
      transaction = chain.mine({ used: a, transfer: { from: a.from, to: a.to, value: BigInt(a.value) } });
      chain.advanceTo(chain.timestampOf(chain.latest) + 600);
      throw new Error("socket hang up");
    });
    const startedAt = Date.now();
    await assert.rejects(() => rail.settle(payment, charge), /do not settle this payment again/);
    const answer = settled(await rail.confirm!(ask(payment, startedAt)));
    assert.equal(answer.reference, transaction);
    assert.ok(chain.calls.includes("eth_getLogs"), "the transaction was searched by its event");
    // Another rail on the same chain, and concurrent calls, give the same answer.
    const twin = createX402Rail(railOptions);
    const answers = await Promise.all(
      [rail, twin, rail, twin].map((r) => r.confirm!(ask(payment, startedAt))),
    );
    for (const other of answers) assert.deepEqual(other, answer);
  });

  it("answers pending while the authorization is unused and still valid", async () => {
    const { rail, paid, settleWith } = await setup();
    const { payment } = await paid();
    settleWith(() => {
      throw new Error("timeout waiting for the facilitator");
    });
    const startedAt = Date.now();
    await assert.rejects(() => rail.settle(payment, charge));
    assert.deepEqual(await rail.confirm!(ask(payment, startedAt)), { status: "pending" });
  });

  it("answers failed (payment_expired) once chain time has passed validBefore with the nonce unused", async () => {
    const { rail, chain, paid } = await setup();
    const { payment, authorization } = await paid();
    const validBefore = Number(authorization.validBefore);
    chain.advanceTo(validBefore + 30);
    assert.deepEqual(
      await rail.confirm!(ask(payment, Date.now())),
      { status: "pending" },
      "within the margin",
    );
    chain.advanceTo(validBefore + 121);
    const answer = await rail.confirm!(ask(payment, Date.now()));
    assert.equal(answer.status, "failed");
    assert.equal((answer as { code: string }).code, "payment_expired");
  });

  it("answers failed when the payer canceled the authorization, or its nonce paid someone else", async () => {
    for (const scenario of ["canceled", "paid elsewhere"] as const) {
      const { rail, chain, paid, settleWith } = await setup();
      const { payment, authorization: a } = await paid();
      settleWith(() => {
        if (scenario === "canceled") chain.mine({ canceled: a });
        else chain.mine({ used: a, transfer: { from: a.from, to: OTHER, value: 1n } });
        throw new Error("socket hang up");
      });
      const startedAt = Date.now();
      await assert.rejects(() => rail.settle(payment, charge));
      const answer = await rail.confirm!(ask(payment, startedAt));
      assert.equal(answer.status, "failed", scenario);
      assert.equal((answer as { code: string }).code, "settlement_failed", scenario);
    }
  });

  it("keeps a reverted transaction pending, and finds the transaction that used the nonce after it", async () => {
    const { rail, chain, paid, settleWith } = await setup();
    const { payment, authorization: a } = await paid();
    settleWith(() => ({
      success: false,
      errorReason: "settlement_pending",
      transaction: chain.mine({ used: a }, "0x0"),
      network: BASE_SEPOLIA,
      payer: a.from,
    }));
    const startedAt = Date.now();
    const pending = await rail.settle(payment, charge);
    assert.deepEqual(await rail.confirm!(ask(payment, startedAt, pending.reference)), { status: "pending" });
    // The facilitator broadcasts again; the second transaction lands.
    const landed = chain.mine({ used: a, transfer: { from: a.from, to: a.to, value: BigInt(a.value) } });
    const answer = settled(await rail.confirm!(ask(payment, startedAt, pending.reference)));
    assert.equal(answer.reference, landed);
    assert.notEqual(answer.reference, pending.reference);
  });

  it("refuses to answer from an RPC of another chain", async () => {
    const { rail, paid } = await setup({ chainId: 8453 });
    const { payment } = await paid();
    await assert.rejects(() => rail.confirm!(ask(payment, Date.now())), /not eip155:84532/);
  });

  it("reads through a viem public client as well as an RPC URL", async () => {
    const first = await setup();
    const { payment } = await first.paid();
    const startedAt = Date.now();
    const settlement = await first.rail.settle(payment, charge);
    const viaClient = createX402Rail({
      ...first.railOptions,
      rpcUrl: undefined,
      publicClient: createPublicClient({ transport: http(first.rpcUrl) }),
    });
    assert.equal(settled(await viaClient.confirm!(ask(payment, startedAt))).reference, settlement.reference);
    assert.throws(
      () =>
        createX402Rail({
          ...first.railOptions,
          publicClient: createPublicClient({ transport: http(first.rpcUrl) }),
        }),
      /rpcUrl or publicClient/,
    );
  });

  it("answers pending without a chain to read, and refuses another payment's key", async () => {
    const { rail, railOptions, paid } = await setup();
    const { payment } = await paid();
    await rail.settle(payment, charge);
    const blind: PaymentRail = createX402Rail({ ...railOptions, rpcUrl: undefined });
    assert.deepEqual(await blind.confirm!(ask(payment, Date.now())), { status: "pending" });
    await assert.rejects(
      () => rail.confirm!({ ...ask(payment, Date.now()), replayKey: `${payment.replayKey}0` }),
      /replay key/,
    );
  });
});

import {
  createPublicClient,
  getAddress,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  TransactionReceiptNotFoundError,
} from "viem";
import type { Eip3009Authorization } from "./payment-signature.ts";
import type { AuthorizationTerms } from "./simulated-usdc.ts";
import type { UsdcToken } from "./usdc.ts";

/** Where one authorization's settlement stands, as read from where the facilitator settles. */
export type AuthorizationOutcome =
  | { status: "settled"; transaction: Hex; settledAt: number }
  | { status: "pending" }
  | { status: "failed"; code: "settlement_failed" | "payment_expired"; message: string };

/** The reads `confirm` makes on a local facilitator (`createLocalFacilitator`). */
export interface LocalAuthorizationLedger {
  readonly simulated: true;
  authorizationState(authorizer: string, nonce: string): Promise<boolean | undefined>;
  transactionHash(authorization: AuthorizationTerms): Hex;
}

/** True for a facilitator that offers the local facilitator's reads. */
export function isLocalLedger(value: unknown): value is LocalAuthorizationLedger {
  const v = value as Partial<LocalAuthorizationLedger> | null;
  return (
    typeof v === "object" &&
    v !== null &&
    v.simulated === true &&
    typeof v.authorizationState === "function" &&
    typeof v.transactionHash === "function"
  );
}

/**
 * The local facilitator settles atomically in its process: a used nonce means the funds moved (under the hash the
 * simulated chain gives that authorization); once settle is over (the core asks only after the settle lease), an
 * unused nonce means this settlement never happened. When the ledger cannot tell, the answer is pending.
 */
export async function confirmOnLocalLedger(
  ledger: LocalAuthorizationLedger,
  authorization: Eip3009Authorization,
  startedAt: number,
): Promise<AuthorizationOutcome> {
  const used = await ledger.authorizationState(authorization.from, authorization.nonce);
  if (used === true) {
    return { status: "settled", transaction: ledger.transactionHash(authorization), settledAt: startedAt };
  }
  if (used === false) {
    return {
      status: "failed",
      code: "settlement_failed",
      message:
        "the local facilitator never settled this authorization (its settlements are atomic and its nonce is unused); nothing was charged",
    };
  }
  return { status: "pending" };
}

/** FiatToken v2 (USDC): the reads and events that tell where an EIP-3009 authorization stands. */
const fiatTokenAbi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)",
  "event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

/**
 * Seconds of chain time allowed between this server's clock and block timestamps when bounding the search for a
 * settlement transaction, and past `validBefore` before an unused authorization counts as dead (so a reorganised
 * block cannot still carry it).
 */
const CHAIN_TIME_MARGIN_SECONDS = 120n;

/** A chain reader for `confirm`: a JSON-RPC URL of the rail's network, or a viem public client on it. */
export function chainReader(options: {
  rpcUrl?: string;
  publicClient?: PublicClient;
}): PublicClient | undefined {
  if (options.rpcUrl !== undefined && options.publicClient !== undefined) {
    throw new TypeError("give rpcUrl or publicClient, not both");
  }
  if (options.publicClient !== undefined) return options.publicClient;
  if (options.rpcUrl === undefined) return undefined;
  const url = new URL(options.rpcUrl);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`rpcUrl must be http(s), got ${options.rpcUrl}`);
  }
  return createPublicClient({ transport: http(url.href, { retryCount: 1 }) });
}

/**
 * Reads where an authorization stands on the chain, without sending anything:
 * - its nonce is used (`authorizationState`) and a successful transaction of the token used it and moved `value`
 *   from the payer to the payee: `settled` with that transaction (the one settle named when it names one,
 *   otherwise the one found by its `AuthorizationUsed` event since settle began);
 * - its nonce is unused and the chain's time has passed `validBefore` (with a margin): `failed`, it never can
 *   settle; or it was canceled by the payer, or used by a transfer other than this payment: `failed`;
 * - anything else (not yet mined, the transaction not found): `pending`.
 * Refuses to answer (throws) when the client is on another chain than the token.
 */
export async function confirmOnChain(
  client: PublicClient,
  token: UsdcToken,
  authorization: Eip3009Authorization,
  reference: string | undefined,
  startedAt: number,
): Promise<AuthorizationOutcome> {
  const chainId = await client.getChainId();
  if (chainId !== token.chainId) {
    throw new Error(`the RPC serves chain ${chainId}, not ${token.network}; it cannot confirm this payment`);
  }
  const latest = await client.getBlock({ blockTag: "latest" });
  const used = await client.readContract({
    address: token.address,
    abi: fiatTokenAbi,
    functionName: "authorizationState",
    args: [getAddress(authorization.from), authorization.nonce],
    blockNumber: latest.number,
  });
  const validBefore = BigInt(authorization.validBefore);
  if (!used) {
    if (latest.timestamp >= validBefore + CHAIN_TIME_MARGIN_SECONDS) {
      return {
        status: "failed",
        code: "payment_expired",
        message:
          "the payment authorization expired unused on chain; it can no longer settle and nothing was charged",
      };
    }
    return { status: "pending" };
  }

  const candidates: Hex[] = [];
  if (reference !== undefined && /^0x[0-9a-fA-F]{64}$/.test(reference)) candidates.push(reference as Hex);
  for (const hash of candidates) {
    const outcome = await outcomeOfTransaction(client, token, authorization, hash);
    if (outcome) return outcome;
  }

  // The transaction is not known: it was mined after settle began and before the authorization expired.
  const startSeconds = BigInt(Math.floor(startedAt / 1000));
  const validAfter = BigInt(authorization.validAfter);
  const from = await firstBlockAtOrAfter(
    client,
    maxOf(validAfter, startSeconds - CHAIN_TIME_MARGIN_SECONDS),
    latest,
  );
  if (from === undefined) return { status: "pending" };
  const until =
    (await firstBlockAtOrAfter(client, validBefore + CHAIN_TIME_MARGIN_SECONDS, latest)) ?? latest.number;
  const args = { authorizer: getAddress(authorization.from), nonce: authorization.nonce };
  const usedLogs = await client.getLogs({
    address: token.address,
    event: fiatTokenAbi[1],
    args,
    fromBlock: from,
    toBlock: until,
  });
  for (const log of usedLogs) {
    if (!log.transactionHash || candidates.includes(log.transactionHash)) continue;
    const outcome = await outcomeOfTransaction(client, token, authorization, log.transactionHash);
    if (outcome) return outcome;
  }
  const canceled = await client.getLogs({
    address: token.address,
    event: fiatTokenAbi[2],
    args,
    fromBlock: from,
    toBlock: until,
  });
  if (canceled.length > 0) {
    return {
      status: "failed",
      code: "settlement_failed",
      message: "the payer canceled the payment authorization; nothing was charged",
    };
  }
  return { status: "pending" };
}

/**
 * What one transaction says about the authorization: `settled` when it succeeded, used the authorization and moved
 * its value from the payer to the payee; `failed` when it used the authorization for another transfer; undefined
 * when it is not known, reverted, or did not use the authorization.
 */
async function outcomeOfTransaction(
  client: PublicClient,
  token: UsdcToken,
  authorization: Eip3009Authorization,
  hash: Hex,
): Promise<AuthorizationOutcome | undefined> {
  let receipt: Awaited<ReturnType<PublicClient["getTransactionReceipt"]>>;
  try {
    receipt = await client.getTransactionReceipt({ hash });
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError) return undefined;
    throw error;
  }
  if (receipt.status !== "success") return undefined;
  const logs = parseEventLogs({
    abi: fiatTokenAbi,
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, token.address)),
    strict: true,
  });
  const usedHere = logs.some(
    (log) =>
      log.eventName === "AuthorizationUsed" &&
      isAddressEqual(log.args.authorizer, authorization.from) &&
      log.args.nonce.toLowerCase() === authorization.nonce.toLowerCase(),
  );
  if (!usedHere) return undefined;
  const paid = logs.some(
    (log) =>
      log.eventName === "Transfer" &&
      isAddressEqual(log.args.from, authorization.from) &&
      isAddressEqual(log.args.to, authorization.to) &&
      log.args.value === BigInt(authorization.value),
  );
  if (!paid) {
    return {
      status: "failed",
      code: "settlement_failed",
      message:
        "the authorization's nonce was used by another transfer than this payment; nothing reached the payee",
    };
  }
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  return { status: "settled", transaction: hash, settledAt: Number(block.timestamp) * 1000 };
}

/**
 * The number of the first block whose timestamp is at or after `seconds`, or undefined when the chain has not
 * reached that time. Searches between genesis and `latest`, alternating interpolation on timestamps (exact for
 * chains with a steady block time) with bisection (so it stays logarithmic otherwise).
 */
async function firstBlockAtOrAfter(
  client: PublicClient,
  seconds: bigint,
  latest: { number: bigint; timestamp: bigint },
): Promise<bigint | undefined> {
  if (latest.timestamp < seconds) return undefined;
  let hi = latest.number;
  let hiTime = latest.timestamp;
  let lo = 0n;
  let loTime = (await client.getBlock({ blockNumber: 0n })).timestamp;
  if (loTime >= seconds) return 0n;
  let bisect = false;
  while (hi - lo > 1n) {
    let mid =
      bisect || hiTime === loTime
        ? (lo + hi) / 2n
        : lo + ((seconds - loTime) * (hi - lo)) / (hiTime - loTime);
    if (mid <= lo) mid = lo + 1n;
    if (mid >= hi) mid = hi - 1n;
    const time = (await client.getBlock({ blockNumber: mid })).timestamp;
    if (time < seconds) {
      lo = mid;
      loTime = time;
    } else {
      hi = mid;
      hiTime = time;
    }
    bisect = !bisect;
  }
  return hi;
}

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

import type { Clock } from "@mailpiece/ports";
import type { FacilitatorEvmSigner } from "@x402/evm";
import {
  type Abi,
  decodeFunctionData,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  encodeFunctionResult,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  type Log,
  maxUint256,
  parseAbi,
  parseAbiParameters,
  recoverTypedDataAddress,
  type Signature,
  toHex,
  verifyTypedData,
} from "viem";
import type { UsdcToken } from "./usdc.ts";

/**
 * Remembers spent EIP-3009 nonces; `claim` resolves true for the first claim of a key and false afterwards. `has`
 * reads without claiming; without it, the local facilitator knows only the nonces this process spent, and cannot
 * tell that an authorization was never used (so `confirm` answers `pending` instead of `failed` for it).
 */
export interface UsedNonces {
  claim(key: string): Promise<boolean>;
  has?(key: string): Promise<boolean>;
}

/** The calls an x402 facilitator makes on a USDC contract (FiatToken v2), plus Multicall3's `tryAggregate`. */
const usdcAbi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function balanceOf(address account) view returns (uint256)",
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);
const multicallAbi = parseAbi([
  "struct Call { address target; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function tryAggregate(bool requireSuccess, Call[] calls) payable returns (Result[] returnData)",
]);
const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11";
const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
/** Any non-empty code marks the token address as a deployed contract; payers have none (plain EOAs). */
const TOKEN_CODE: Hex = "0x60806040";

/** The address the simulated facilitator reports as its settlement signer. */
export const SIMULATED_FACILITATOR_ADDRESS = getAddress(
  keccak256(toHex("mailpiece:simulated-facilitator")).slice(0, 42),
);

/** The authorization fields a transfer's hash covers. */
export interface AuthorizationTerms {
  from: string;
  to: string;
  value: bigint | string;
  validAfter: bigint | string;
  validBefore: bigint | string;
  nonce: string;
}

/**
 * The transaction hash the simulated chain gives the transfer of one authorization: the keccak of the chain id,
 * token and authorization, so the same payment always has the same hash, in any process.
 */
export function simulatedTransactionHash(token: UsdcToken, a: AuthorizationTerms): Hex {
  return keccak256(
    encodeAbiParameters(
      parseAbiParameters(
        "uint256 chainId, address token, address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce",
      ),
      [
        BigInt(token.chainId),
        token.address,
        getAddress(a.from),
        getAddress(a.to),
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce as Hex,
      ],
    ),
  );
}

interface Transfer {
  from: `0x${string}`;
  to: `0x${string}`;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex | Signature;
}

/** The key under which a spent authorization nonce is remembered: token-wide per payer, like the contract does. */
export function authorizationKey(token: UsdcToken, from: string, nonce: string): string {
  return `eip3009:${token.network}:${token.address}:${from}:${nonce}`.toLowerCase();
}

/**
 * An in-memory chain holding one USDC contract, seen through the signer interface the x402 reference facilitator
 * uses. The contract behaves like FiatToken v2 for `transferWithAuthorization`: it checks the validity window
 * against the clock (block time), refuses a spent nonce, and recovers the signer under its own EIP-712 domain.
 * Every payer has an unlimited balance. A transfer gets a deterministic hash (keccak of the authorization) and an
 * immediate successful receipt carrying the ERC-20 Transfer event.
 */
export function createSimulatedUsdc(options: { token: UsdcToken; clock: Clock; usedNonces: UsedNonces }) {
  const { token, clock, usedNonces } = options;
  const spent = new Set<string>();
  const receipts = new Map<Hex, Log>();

  function parseTransfer(
    call: ReturnType<typeof decodeFunctionData<typeof usdcAbi>> & {
      functionName: "transferWithAuthorization";
    },
  ): Transfer {
    const a = call.args;
    const signature: Hex | Signature =
      a.length === 9 ? { v: BigInt(a[6]), r: a[7], s: a[8] } : (a[6] as unknown as Hex);
    return {
      from: a[0],
      to: a[1],
      value: a[2],
      validAfter: a[3],
      validBefore: a[4],
      nonce: a[5],
      signature,
    };
  }

  async function checkTransfer(t: Transfer): Promise<string> {
    const now = BigInt(Math.floor(clock.now() / 1000));
    if (now <= t.validAfter) throw new Error("FiatTokenV2: authorization is not yet valid");
    if (now >= t.validBefore) throw new Error("FiatTokenV2: authorization is expired");
    const key = authorizationKey(token, t.from, t.nonce);
    if (spent.has(key)) throw new Error("FiatTokenV2: authorization is used or canceled");
    let signer: `0x${string}`;
    try {
      signer = await recoverTypedDataAddress({
        domain: {
          name: token.name,
          version: token.version,
          chainId: token.chainId,
          verifyingContract: token.address,
        },
        types: TRANSFER_WITH_AUTHORIZATION_TYPES,
        primaryType: "TransferWithAuthorization",
        message: {
          from: t.from,
          to: t.to,
          value: t.value,
          validAfter: t.validAfter,
          validBefore: t.validBefore,
          nonce: t.nonce,
        },
        signature: t.signature,
      });
    } catch {
      throw new Error("FiatTokenV2: invalid signature");
    }
    if (!isAddressEqual(signer, t.from)) throw new Error("FiatTokenV2: invalid signature");
    return key;
  }

  async function transfer(t: Transfer): Promise<Hex> {
    const key = await checkTransfer(t);
    const first = await usedNonces.claim(key);
    spent.add(key);
    if (!first) throw new Error("FiatTokenV2: authorization is used or canceled");
    const hash = simulatedTransactionHash(token, t);
    receipts.set(hash, {
      address: token.address,
      topics: encodeEventTopics({
        abi: usdcAbi,
        eventName: "Transfer",
        args: { from: t.from, to: t.to },
      }) as [Hex, ...Hex[]],
      data: encodeAbiParameters(parseAbiParameters("uint256"), [t.value]),
      blockHash: keccak256(hash),
      blockNumber: 1n,
      logIndex: 0,
      transactionHash: hash,
      transactionIndex: 0,
      removed: false,
    });
    return hash;
  }

  /** Runs a call against the chain and returns the ABI-encoded result; reverts throw. */
  async function call(to: `0x${string}`, data: Hex): Promise<Hex> {
    if (isAddressEqual(to, MULTICALL3)) {
      const { args } = decodeFunctionData({ abi: multicallAbi, data });
      const results: { success: boolean; returnData: Hex }[] = [];
      for (const inner of args[1]) {
        try {
          results.push({ success: true, returnData: await call(inner.target, inner.callData) });
        } catch {
          results.push({ success: false, returnData: "0x" });
        }
      }
      return encodeFunctionResult({ abi: multicallAbi, functionName: "tryAggregate", result: results });
    }
    if (!isAddressEqual(to, token.address)) throw new Error(`no contract at ${to} on the simulated chain`);
    const decoded = decodeFunctionData({ abi: usdcAbi, data });
    switch (decoded.functionName) {
      case "transferWithAuthorization":
        await checkTransfer(parseTransfer(decoded));
        return "0x";
      case "balanceOf":
        return encodeFunctionResult({ abi: usdcAbi, functionName: "balanceOf", result: maxUint256 });
      case "name":
        return encodeFunctionResult({ abi: usdcAbi, functionName: "name", result: token.name });
      case "version":
        return encodeFunctionResult({ abi: usdcAbi, functionName: "version", result: token.version });
      case "authorizationState": {
        const used = (await authorizationState(decoded.args[0], decoded.args[1])) === true;
        return encodeFunctionResult({ abi: usdcAbi, functionName: "authorizationState", result: used });
      }
    }
  }

  const signer: FacilitatorEvmSigner = {
    getAddresses: () => [SIMULATED_FACILITATOR_ADDRESS],
    async readContract(args) {
      const abi = args.abi as Abi;
      const data = encodeFunctionData({ abi, functionName: args.functionName, args: args.args ?? [] });
      const result = await call(args.address, data);
      return decodeFunctionResult({ abi, functionName: args.functionName, data: result });
    },
    verifyTypedData: (args) => verifyTypedData(args as Parameters<typeof verifyTypedData>[0]),
    async writeContract(args) {
      const data = encodeFunctionData({
        abi: args.abi as Abi,
        functionName: args.functionName,
        args: args.args,
      });
      if (!isAddressEqual(args.address, token.address)) throw new Error(`no contract at ${args.address}`);
      const decoded = decodeFunctionData({ abi: usdcAbi, data });
      if (decoded.functionName !== "transferWithAuthorization") {
        throw new Error(`the simulated chain does not run ${decoded.functionName} transactions`);
      }
      return transfer(parseTransfer(decoded));
    },
    async sendTransaction() {
      throw new Error(
        "the simulated chain runs no raw transactions (smart-wallet deployment is not simulated)",
      );
    },
    async waitForTransactionReceipt({ hash }) {
      const log = receipts.get(hash);
      if (!log) throw new Error(`transaction ${hash} is not known to the simulated chain`);
      return { status: "success", logs: [log] };
    },
    async getCode({ address }) {
      return isAddressEqual(address, token.address) ? TOKEN_CODE : undefined;
    },
  };
  /**
   * The contract's `authorizationState(authorizer, nonce)`, read from the shared spent nonces: true when the
   * authorization was used, false when it was not, undefined when `usedNonces` cannot be read and this process
   * did not spend it.
   */
  async function authorizationState(authorizer: string, nonce: string): Promise<boolean | undefined> {
    const key = authorizationKey(token, authorizer, nonce);
    if (spent.has(key)) return true;
    return usedNonces.has ? usedNonces.has(key) : undefined;
  }

  return { signer, authorizationState };
}

/** Remembers spent nonces in this process only. */
export function memoryUsedNonces(): UsedNonces {
  const seen = new Set<string>();
  return {
    async claim(key) {
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
    async has(key) {
      return seen.has(key);
    },
  };
}

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { LazyPaymentRail, Store } from "@mailpiece/ports";
import { lazyPaymentRail } from "@mailpiece/ports";
import type { MppMethodConfig } from "@mailpiece/rail-mpp";
import type { Receipt } from "mppx";
import type { ServerConfig } from "./config.ts";

/**
 * The configured payment rails. Each loads its protocol's libraries (tens of megabytes of modules for MPP and x402)
 * the first time it is used, so a process that only validates and quotes never holds them. The configuration was
 * checked when it was read, so building a rail does not fail on it. Simulated rails are reported so the server can
 * say so loudly.
 */
export function createRails(
  config: ServerConfig,
  store: Store,
  /** Secrets shared by every process of the deployment (see deploymentSecret); absent: made under DATA_DIR. */
  secrets: { mpp?: string } = {},
): { rails: { x402?: LazyPaymentRail; mpp?: LazyPaymentRail }; simulated: string[] } {
  const rails: { x402?: LazyPaymentRail; mpp?: LazyPaymentRail } = {};
  const simulated: string[] = [];
  const x402 = config.payments.x402;
  if (x402) {
    // Without a facilitator URL the server settles on its own local facilitator: no funds move.
    rails.x402 = lazyPaymentRail(
      { protocol: "x402", simulated: !x402.facilitatorUrl, credentialHeader: "payment-signature" },
      () => buildX402(x402, store),
    );
    if (rails.x402.simulated) simulated.push(`x402 on ${x402.network} (local facilitator, no funds move)`);
  }
  const mpp = config.payments.mpp;
  if (mpp) {
    // The secret is read (or made) now: signed challenges must verify in every process from the first request.
    const secretKey = mpp.secretKey ?? secrets.mpp ?? persistentSecret(config, "mpp-secret");
    // Only the test method moves no money.
    rails.mpp = lazyPaymentRail(
      {
        protocol: "mpp",
        simulated: mpp.methods.every((name) => name === "test"),
        credentialHeader: "authorization",
      },
      () => buildMpp(mpp, secretKey, store),
    );
    if (rails.mpp.simulated) simulated.push("MPP with the test method (tok_test_ tokens, no funds move)");
  }
  return { rails, simulated };
}

type X402Config = NonNullable<ServerConfig["payments"]["x402"]>;
type MppConfig = NonNullable<ServerConfig["payments"]["mpp"]>;

async function buildX402(x402: X402Config, store: Store) {
  const { createHttpFacilitator, createLocalFacilitator, createX402Rail } = await import(
    "@mailpiece/rail-x402"
  );
  const facilitator = x402.facilitatorUrl
    ? createHttpFacilitator({ url: x402.facilitatorUrl })
    : createLocalFacilitator({
        network: x402.network,
        // Spent nonces live in the store, so a restart cannot settle one twice, and any process can confirm
        // a settlement another one made.
        usedNonces: {
          async claim(key) {
            return (await store.create(nonceKey(key), { at: Date.now() })).created;
          },
          async has(key) {
            return (await store.get(nonceKey(key))) !== undefined;
          },
        },
      });
  return createX402Rail({ network: x402.network, payTo: x402.payTo, facilitator });
}

async function buildMpp(mpp: MppConfig, secretKey: string, store: Store) {
  const { createMppRail, stripeMethod, tempoMethod, testMethod } = await import("@mailpiece/rail-mpp");
  const methods: MppMethodConfig[] = mpp.methods.map((name) => {
    switch (name) {
      case "test":
        // Test charges are recorded in the store, so any process can confirm a charge another one made.
        return testMethod({
          ledger: {
            async record(challengeId, receipt) {
              return (await store.create<Receipt.Receipt>(chargeKey(challengeId), receipt)).record.value;
            },
            async read(challengeId) {
              return (await store.get<Receipt.Receipt>(chargeKey(challengeId)))?.value;
            },
          },
        });
      case "tempo":
        return tempoMethod({ recipient: mpp.tempoRecipient as `0x${string}` });
      default:
        return stripeMethod({ secretKey: mpp.stripeSecretKey!, networkId: mpp.stripeNetworkId! });
    }
  });
  return createMppRail({ realm: mpp.realm, secretKey, methods });
}

/**
 * A secret generated once and kept under DATA_DIR (mode 0600), so signed challenges and links stay valid across
 * restarts; with the memory store, one per process.
 */
/**
 * A secret every process of the deployment shares, made once: under DATA_DIR for the file store (see
 * persistentSecret), in the store itself for a store several machines share (Redis, Postgres), so that a preview
 * link or an MPP challenge made by one process verifies in every other.
 */
export async function deploymentSecret(config: ServerConfig, store: Store, name: string): Promise<string> {
  if (config.store === "file" || config.store === "memory") return persistentSecret(config, name);
  const made = randomBytes(32).toString("base64url");
  const { record } = await store.create<{ secret: string }>(`deployment_secrets:${name}`, { secret: made });
  return record.value.secret;
}

export function persistentSecret(config: ServerConfig, name: string): string {
  if (config.store === "memory") return randomBytes(32).toString("base64url");
  const file = join(config.dataDir, name);
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(config.dataDir, { recursive: true });
    const secret = randomBytes(32).toString("base64url");
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    } catch (error) {
      // Another process sharing DATA_DIR wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    for (let attempt = 0; attempt < 100; attempt++) {
      const stored = readFileSync(file, "utf8").trim();
      if (stored) return stored;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
    throw new Error(`${file} stays empty`);
  }
}

const safe = (key: string) => key.replace(/[^A-Za-z0-9._:-]/g, "_");
const nonceKey = (key: string) => `x402:nonces:${safe(key)}`;
const chargeKey = (challengeId: string) => `mpp:test-charges:${safe(challengeId)}`;

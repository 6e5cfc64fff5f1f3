import { EXAMPLE_ORDER_REQUESTS } from "@mailpiece/orders";
import type { BlobStore, PrintJob, PrintProvider } from "@mailpiece/ports";
import { BASE_SEPOLIA, createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { expect } from "vitest";
import type { CampaignRecord } from "./campaign-record.ts";
import { createMailpieceCore } from "./core.ts";
import type { CreateOrderOutcome } from "./create-machine-order.ts";
import type { OrderRecord } from "./order-record.ts";
import { x402Pay } from "./x402-pay.fixture.ts";

const RESOURCE = "https://mailpiece.test/api/machine/orders";
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const HEADER = "recipient_name,line1,city,state,zip,venue";

/** A campaign request to these recipients (all in Springfield, IL), with these bulk fields. */
export function campaignBody(names: string[], bulk: Record<string, unknown> = {}) {
  const rows = names.map((name, i) => `${name},${i + 1} Main St,Springfield,IL,62701,the park`);
  const example = structuredClone(EXAMPLE_ORDER_REQUESTS.bulk);
  return {
    ...example,
    request_id: crypto.randomUUID(),
    bulk: { ...example.bulk, csv_content: [HEADER, ...rows].join("\n"), ...bulk },
  };
}

/** A printer that accepts every job and remembers what it was given. */
function recordingPrinter(jobs: PrintJob[]): PrintProvider {
  const view = (reference: string) => ({
    reference,
    status: "submitted" as const,
    submitted_at: new Date(0).toISOString(),
    tracking_number: null,
    tracking_url: null,
    events: [],
  });
  return {
    name: "recording",
    simulated: true,
    capabilities: {
      origin_country: "US",
      countries: ["US"],
      mailpiece_types: ["letter", "postcard"],
      postcard_sizes: ["4x6", "6x9", "11x6"],
      mail_classes: ["standard", "priority", "express"],
      certified: true,
      registered: [],
      international_postcards: null,
      color: true,
      double_sided: true,
    },
    async submit(job, { idempotencyKey }) {
      jobs.push(job);
      return { ...view(idempotencyKey), idempotent_replay: false };
    },
    lookup: async () => ({ outcome: "not_found" }),
    status: async (reference) => view(reference),
    cancel: async (reference) => view(reference),
  };
}

/** A core over memory stores, the local x402 facilitator and a recording printer; every blob put is noted. */
export function setup() {
  const store = createMemoryStore();
  const memory = createMemoryBlobStore();
  const puts: { key: string; contentType: string | undefined; bytes: Uint8Array }[] = [];
  const blobs: BlobStore = {
    ...memory,
    put(key, bytes, options) {
      puts.push({ key, contentType: options?.contentType, bytes });
      return memory.put(key, bytes, options);
    },
  };
  const rail = createX402Rail({
    network: BASE_SEPOLIA,
    payTo: PAY_TO,
    facilitator: createLocalFacilitator({ network: BASE_SEPOLIA }),
  });
  const jobs: PrintJob[] = [];
  const core = createMailpieceCore({
    store,
    blobs,
    rails: { x402: rail },
    printProviders: [recordingPrinter(jobs)],
  });
  const create = (body: unknown, headers = new Headers()) =>
    core.createOrder({
      raw: JSON.stringify(body),
      body,
      clientKey: crypto.randomUUID(),
      payment: {
        rail,
        credential: headers.get(rail.credentialHeader) ?? undefined,
        resourceUrl: (id) => `${RESOURCE}/${id}`,
      },
    });
  const pay = async (body: unknown) => {
    const unpaid = kind(await create(body), "payment_required");
    return kind(await create(body, await x402Pay(unpaid.challenge)), "accepted");
  };
  const keys = async (prefix: string) =>
    (await store.list(prefix, { limit: 1000 })).records.map((r) => r.key);
  const campaign = async (id: string) => (await store.get<CampaignRecord>(`campaigns:${id}`))?.value;
  const order = async (id: string) => (await store.get<OrderRecord>(`orders:${id}`))?.value;
  return { core, store, blobs, puts, jobs, create, pay, keys, campaign, order };
}

/** The outcome, asserted to be of kind `k`. */
export function kind<K extends CreateOrderOutcome["kind"]>(outcome: CreateOrderOutcome, k: K) {
  expect(outcome.kind, JSON.stringify(outcome).slice(0, 500)).toBe(k);
  return outcome as Extract<CreateOrderOutcome, { kind: K }>;
}

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PdfWork } from "@mailpiece/pdf-work";
import type { PrintJob, PrintProvider, Store } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { createMailpieceCore } from "../core.ts";
import { documentKeeper } from "../document-retention.ts";
import { workspaceCredits } from "../workspaces/credits.ts";
import type { ProjectOrderContext } from "./place-order.ts";

/** A spec 3 address object in New York (or wherever `overrides` says), under an alias or two. */
export const address = (name: string, overrides: Record<string, unknown> = {}) => ({
  name,
  street1: "350 Fifth Avenue",
  city: "New York",
  province: "NY",
  zip: "10118",
  ...overrides,
});

/**
 * A core with a simulated printer (accepts after 1 s, in transit after 2 s, delivered after 3 s), a test workspace
 * with `testCreditsCents` of credits, and the context of Projects API orders over the same store, blobs, clock, ids,
 * job queue and credits, for composing the template and handwritten use cases as the core does. `jobs` holds every
 * print job submitted. `pdf` stands in for the document workers, `store` for the memory store.
 */
export async function sendsSetup(options: { testCreditsCents?: number; pdf?: PdfWork; store?: Store } = {}) {
  let now = Date.UTC(2026, 10, 24, 12);
  const clock = { now: () => now };
  const store = options.store ?? createMemoryStore();
  const printer = createSimulatedPrinter({
    store,
    clock,
    pace: { acceptAfterMs: 1_000, inTransitAfterMs: 2_000, deliverAfterMs: 3_000 },
  });
  const jobs: PrintJob[] = [];
  const recording: PrintProvider = {
    ...printer,
    name: printer.name,
    simulated: printer.simulated,
    capabilities: printer.capabilities,
    submit(job, submitOptions) {
      jobs.push(job);
      return printer.submit(job, submitOptions);
    },
  };
  const core = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    clock,
    printProviders: [recording],
    config: { testCreditsCents: options.testCreditsCents ?? 10_000 },
  });
  const workspace = await core.workspaces.create("Acme");
  const principal = await core.workspaces.authenticate(workspace.test_api_key);
  const orders: ProjectOrderContext = {
    store: core.store,
    blobs: core.blobs,
    clock: core.clock,
    ids: core.ids,
    config: core.config,
    jobs: core.jobs,
    credits: workspaceCredits(core.store),
    documents: documentKeeper({
      store: core.store,
      blobs: core.blobs,
      jobs: core.jobs,
      clock: core.clock,
      retentionMs: core.config.documentRetentionMs,
    }),
    ...(options.pdf ? { pdf: options.pdf } : {}),
  };
  const advance = (ms: number) => {
    now += ms;
  };
  return {
    core,
    principal,
    orders,
    jobs,
    advance,
    balance: () => core.workspaces.balance(principal.workspace_id, "test"),
    /** Runs fulfilment rounds a second apart, `rounds` times. */
    async fulfil(rounds: number) {
      for (let round = 0; round < rounds; round++) {
        await core.fulfil();
        advance(1_000);
      }
    },
    /** The principal of a second workspace. */
    async stranger() {
      const other = await core.workspaces.create("Other");
      return core.workspaces.authenticate(other.test_api_key);
    },
  };
}

/**
 * A memory store whose `create` of an order fails while `crashing(true)` holds: the process stops between an order's
 * reservation and its record. `inner` is the store underneath.
 */
export function orderCrashStore() {
  const inner = createMemoryStore();
  let failing = false;
  const store: Store = {
    ...inner,
    name: inner.name,
    capabilities: inner.capabilities,
    get: (key) => inner.get(key),
    put: (key, value, options) => inner.put(key, value, options),
    delete: (key, options) => inner.delete(key, options),
    list: (prefix, options) => inner.list(prefix, options),
    close: () => inner.close(),
    create(key, value, options) {
      if (failing && key.startsWith("orders:")) throw new Error("the process stopped here");
      return inner.create(key, value, options);
    },
  };
  return {
    store,
    inner,
    crashing(on: boolean) {
      failing = on;
    },
  };
}

/** The text of a PDF as pdftotext reads it, in content order. */
export function pdfText(pdf: Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), "mailpiece-send-"));
  try {
    const file = join(dir, "document.pdf");
    writeFileSync(file, pdf);
    return execFileSync("pdftotext", ["-enc", "UTF-8", "-raw", file, "-"], { encoding: "utf8" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

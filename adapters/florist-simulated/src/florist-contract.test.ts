import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FloristProviderContractOptions, floristProviderContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { FloristOrder, FloristProvider, Store } from "@mailpiece/ports";
import { createFileStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll } from "vitest";
import { createSimulatedFlorist } from "./simulated-florist.ts";
import { FLORIST_TEST_PHRASES } from "./test-phrases.ts";

const scripted = (phrase: string) => (order: FloristOrder) => ({
  ...order,
  recipient: { ...order.recipient, address1: `${order.recipient.address1} ${phrase}` },
});

/** What every variant shares: the scripted test addresses and places the default rules do not cover. */
const common: Omit<FloristProviderContractOptions, "create"> = {
  scripts: {
    lostAnswer: scripted(FLORIST_TEST_PHRASES.submitTimeout),
    deliveryFails: scripted(FLORIST_TEST_PHRASES.deliveryFails),
  },
  uncovered: [
    { zip: "99501", country: "US" },
    { zip: "96813", country: "US" },
    { zip: "00901", country: "US" },
    { zip: "10118", country: "CA" },
  ],
};

registerSuite(
  floristProviderContract({
    ...common,
    name: "simulated florist on a memory store",
    async create({ clock }) {
      return createSimulatedFlorist({ store: createMemoryStore({ clock }), clock });
    },
  }),
  { timeoutMs: 60_000 },
);

registerSuite(
  floristProviderContract({
    ...common,
    name: "simulated florist with its own rules over Christmas, fixed delays, in Los Angeles",
    // Wednesday 23 December 2026, 23:30 in Los Angeles: past the cutoff, the day before Christmas Eve.
    startAt: Date.parse("2026-12-24T07:30:00Z"),
    uncovered: [
      { zip: "99501", country: "US" },
      { zip: "90401", country: "MX" },
    ],
    recipient: {
      name: "Grace Hopper",
      phone: "+1 310 555 0100",
      address1: "200 Santa Monica Pier",
      city: "Santa Monica",
      state: "CA",
      zipcode: "90401-3130",
      country: "US",
    },
    async create({ clock }) {
      return createSimulatedFlorist({
        store: createMemoryStore({ clock }),
        clock,
        name: "christmas",
        pace: { outForDeliveryAfterMs: 7_200_000, deliverAfterMs: 18_000_000 },
        rules: {
          timeZone: "America/Los_Angeles",
          sameDayCutoffHour: 11,
          maxDaysAhead: 14,
          closedWeekdays: [0, 6],
          blackoutDates: ["2026-12-28", "2026-12-31"],
          uncoveredZipPrefixes: ["995"],
        },
      });
    },
  }),
  { timeoutMs: 60_000 },
);

const roots: string[] = [];
const stores = new WeakMap<FloristProvider, Store>();

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

registerSuite(
  floristProviderContract({
    ...common,
    name: "simulated florist on a file store",
    async create({ clock }) {
      const root = await mkdtemp(join(tmpdir(), "mailpiece-florist-"));
      roots.push(root);
      const store = await createFileStore({ dir: join(root, "records"), clock });
      const florist = createSimulatedFlorist({ store, clock });
      stores.set(florist, store);
      return florist;
    },
    async dispose(florist) {
      await stores.get(florist)?.close();
    },
  }),
  { timeoutMs: 60_000 },
);

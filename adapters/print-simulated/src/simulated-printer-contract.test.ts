import {
  PRINT_HANDWRITTEN_TESTS,
  PRINT_RETURN_RECEIPT_TESTS,
  printProviderContract,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { createSimulatedPrinter } from "./simulated-printer.ts";

registerSuite(
  printProviderContract({
    name: "simulated printer on a memory store",
    async create({ clock }) {
      return createSimulatedPrinter({ store: createMemoryStore({ clock }), clock });
    },
    advance: (ms, { clock }) => clock.advance(ms),
  }),
);

registerSuite(
  printProviderContract({
    name: "simulated printer shaped like a first provider (4x6 postcards abroad with a US return address)",
    async create({ clock }) {
      return createSimulatedPrinter({
        store: createMemoryStore({ clock }),
        clock,
        name: "first",
        pace: { acceptAfterMs: 300_000, inTransitAfterMs: DAY, deliverAfterMs: 5 * DAY },
        capabilities: {
          origin_country: "US",
          countries: ["US", "CA", "GB"],
          mailpiece_types: ["letter", "postcard"],
          postcard_sizes: ["4x6", "6x9", "11x6"],
          mail_classes: ["standard"],
          certified: true,
          registered: [],
          international_postcards: { sizes: ["4x6"], return_address: "domestic" },
          color: true,
          double_sided: true,
        },
      });
    },
  }),
  // It declares neither handwritten mail nor return receipts.
  { notApplicable: [...PRINT_HANDWRITTEN_TESTS, ...PRINT_RETURN_RECEIPT_TESTS] },
);

const DAY = 86_400_000;

import { createEmbeddedAddressProvider, loadSample } from "@mailpiece/address-embedded";
import { createTestCheckout } from "@mailpiece/checkout-test";
import { serveOnLoopback } from "@mailpiece/conformance";
import type { CoreConfig } from "@mailpiece/core";
import { createMailpieceCore } from "@mailpiece/core";
import { createMppRail, testMethod } from "@mailpiece/rail-mpp";
import { BASE_SEPOLIA, createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { createMcpApp } from "./mcp-app.ts";

const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

/**
 * A server on 127.0.0.1 with the MCP app over a core with both rails (MPP test method, x402 local facilitator), the
 * test checkout payments and the embedded address sample.
 */
export async function startMcpServer(
  options: { requestsPerMinute?: number; core?: Partial<CoreConfig> } = {},
) {
  const { core: coreConfig, ...appOptions } = options;
  const store = createMemoryStore();
  const core = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    rails: {
      mpp: createMppRail({
        realm: "127.0.0.1",
        secretKey: "an-mpp-secret-of-at-least-thirty-two-bytes",
        methods: [testMethod()],
      }),
      x402: createX402Rail({
        network: BASE_SEPOLIA,
        payTo: PAY_TO,
        facilitator: createLocalFacilitator({ network: BASE_SEPOLIA }),
      }),
    },
    addresses: createEmbeddedAddressProvider(await loadSample()),
    checkoutPayments: createTestCheckout(),
    config: { previewSecret: "a-preview-secret-of-at-least-32-bytes!", ...coreConfig },
  });
  let app: ReturnType<typeof createMcpApp> | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  const base = running.url;
  app = createMcpApp(core, { publicUrl: base, version: "test", ...appOptions });
  return { running, base, app, core };
}

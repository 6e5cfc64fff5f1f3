import { createRequire } from "node:module";
import { createEmbeddedAddressProvider, loadSample } from "@mailpiece/address-embedded";
import { createTestCheckout } from "@mailpiece/checkout-test";
import {
  DEFAULT_SUITE_ADDRESSES,
  type LoopbackServer,
  makePdf,
  pdfDataUrl,
  serveOnLoopback,
} from "@mailpiece/conformance";
import { createMailpieceCore, type MailpieceCore } from "@mailpiece/core";
import { createMachineApp } from "@mailpiece/machine";
import type { CheckoutCharge } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { H3 } from "h3";
import { createUcpApp, type UcpAppOptions } from "./ucp-app.ts";

/** A zod schema, as far as the tests use one. */
interface SdkSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
}

/** The schemas that @ucp-js/sdk ships (its CommonJS build: the ESM one does not load on Node). */
export const ucpSchemas = createRequire(import.meta.url)("@ucp-js/sdk") as Record<
  | "CheckoutResponseSchema"
  | "UcpDiscoveryProfileSchema"
  | "CheckoutCreateRequestSchema"
  | "PaymentInstrumentSchema",
  SdkSchema
>;

/** Platform profiles served by the test's platform: by path. */
export const PLATFORM_PROFILES: Record<string, unknown> = {
  "/agent.json": {
    ucp: {
      version: "2026-01-11",
      capabilities: [
        {
          name: "dev.ucp.shopping.checkout",
          version: "2026-01-11",
          spec: "https://ucp.dev/specification/checkout",
          schema: "https://ucp.dev/schemas/shopping/checkout.json",
        },
        {
          name: "dev.ucp.shopping.fulfillment",
          version: "2026-01-11",
          extends: "dev.ucp.shopping.checkout",
          spec: "https://ucp.dev/specification/fulfillment",
          schema: "https://ucp.dev/schemas/shopping/fulfillment.json",
        },
      ],
    },
  },
  "/older.json": {
    ucp: {
      version: "2025-10-01",
      capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2025-10-01" }],
    },
  },
  "/newer.json": {
    ucp: {
      version: "2027-03-01",
      capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2027-03-01" }],
    },
  },
  "/no-checkout.json": {
    ucp: { version: "2026-01-11", capabilities: [{ name: "dev.ucp.shopping.cart", version: "2026-01-11" }] },
  },
  "/not-ucp.json": { hello: "world" },
};

export interface UcpTestServer {
  /** The deployment: machine API and UCP on one app. */
  base: string;
  /** The platform that serves the agent's profile. */
  platform: string;
  core: MailpieceCore;
  /** Charges the checkout payments received, in order. */
  charges: CheckoutCharge[];
  /** Paths of the profile requests the platform answered. */
  profileRequests: string[];
  pdf: string;
  close(): Promise<void>;
}

/**
 * A deployment on 127.0.0.1 with the machine API and the UCP surface over one core (memory store, the embedded
 * address sample, the test checkout payments), and a platform on another loopback port serving profiles. The UCP app
 * fetches profiles with the real safe fetcher, the platform admitted through profileHosts.
 */
export async function startUcpServer(options: Partial<UcpAppOptions> = {}): Promise<UcpTestServer> {
  const profileRequests: string[] = [];
  const platform: LoopbackServer = await serveOnLoopback((request) => {
    const path = new URL(request.url).pathname;
    profileRequests.push(path);
    const profile = PLATFORM_PROFILES[path];
    return profile ? Response.json(profile) : new Response("no such profile", { status: 404 });
  });
  const charges: CheckoutCharge[] = [];
  const payments = createTestCheckout();
  const core = createMailpieceCore({
    store: createMemoryStore(),
    blobs: createMemoryBlobStore(),
    rails: {},
    addresses: createEmbeddedAddressProvider(await loadSample()),
    checkoutPayments: {
      ...payments,
      charge(request) {
        charges.push(request);
        return payments.charge(request);
      },
    },
    config: { previewSecret: "a-preview-secret-of-at-least-32-bytes!" },
  });
  let app: (H3 & { close?: () => Promise<void> }) | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  const ucp = createUcpApp(core, {
    publicUrl: running.url,
    version: "test",
    profileHosts: [new URL(platform.url).host],
    ...options,
  });
  app = new H3();
  app.mount("", createMachineApp(core, { publicUrl: running.url, maxBodyBytes: 8 * 1024 * 1024 }));
  app.mount("", ucp);
  return {
    base: running.url,
    platform: platform.url,
    core,
    charges,
    profileRequests,
    pdf: pdfDataUrl(await makePdf(2)),
    async close() {
      await ucp.close();
      await running.close();
      await platform.close();
      await core.close();
    },
  };
}

/** A mail order member: a PDF to the sample's New York address, from the same building. */
export function mailpiece(pdf: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const { us } = DEFAULT_SUITE_ADDRESSES;
  return {
    pdf,
    sender_name: "Ada Sender",
    sender_address_type: "Address",
    sender_address_id: us.id,
    sender_address_text: us.text,
    recipient_name: "Grace Recipient",
    recipient_address_type: "Address",
    recipient_address_id: us.id,
    recipient_address_text: us.text,
    ...overrides,
  };
}

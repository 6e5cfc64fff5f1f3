import { createTestCheckout } from "@mailpiece/checkout-test";
import { letterOrder, serveOnLoopback } from "@mailpiece/conformance";
import type { CoreConfig } from "@mailpiece/core";
import { createMailpieceCore } from "@mailpiece/core";
import { canonicalJson } from "@mailpiece/idempotency";
import { createMachineApp } from "@mailpiece/machine";
import type { CheckoutCharge, CheckoutPayments } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { H3 } from "h3";
import { createCheckoutApp } from "./checkout-app.ts";

/**
 * The checkout page and the machine API (which serves the PDF previews) on 127.0.0.1, over a core with the test
 * checkout payments, counting the charges that moved money; its clock can be moved forward.
 */
export async function startCheckoutServer(config: Partial<CoreConfig> = {}) {
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const test = createTestCheckout({ clock });
  const charges: CheckoutCharge[] = [];
  const payments: CheckoutPayments = {
    name: test.name,
    simulated: true,
    async charge(request) {
      const receipt = await test.charge(request);
      charges.push(request);
      return receipt;
    },
    saveMethod: (request) => test.saveMethod(request),
    async chargeSaved(request) {
      const receipt = await test.chargeSaved(request);
      charges.push({ ...request, token: "" });
      return receipt;
    },
  };
  const core = createMailpieceCore({
    store: createMemoryStore(),
    blobs: createMemoryBlobStore(),
    clock,
    checkoutPayments: payments,
    config: { previewSecret: "a-preview-secret-of-at-least-32-bytes!", ...config },
  });
  let app: H3 | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  const base = running.url;
  app = new H3()
    .mount("", createMachineApp(core, { publicUrl: base, maxBodyBytes: 1024 * 1024 }))
    .mount("", createCheckoutApp(core, { publicUrl: base }));
  /** A letter draft without a buyer; its checkout page URL and session id. */
  const draft = async (overrides: Record<string, unknown> = {}) => {
    const { buyer_name: _n, buyer_email: _e, ...body } = letterOrder(overrides);
    const view = await core.createDraft({ body, raw: canonicalJson(body), clientKey: crypto.randomUUID() });
    return { ...view, url: `${base}/checkout/${view.checkout_session.id}` };
  };
  return {
    base,
    core,
    draft,
    /** Charges that moved money, in order. */
    paidCharges: () => charges,
    advance: (ms: number) => {
      offset += ms;
    },
    close: () => running.close(),
  };
}

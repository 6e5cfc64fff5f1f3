import { createTestCheckout } from "@mailpiece/checkout-test";
import { serveOnLoopback } from "@mailpiece/conformance";
import type { CoreConfig, CoreDeps, KeyMode, MailpieceCore, Permission } from "@mailpiece/core";
import { createMailpieceCore } from "@mailpiece/core";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import type { H3 } from "h3";
import type { V1AppOptions } from "./v1-app.ts";
import { createV1App } from "./v1-app.ts";

export const HOUR = 60 * 60 * 1000;
/** The simulated printer's pace: accepted, in transit and delivered this long after submission (move the clock). */
export const SIMULATED_PACE = { acceptAfterMs: 1_000, inTransitAfterMs: 2_000, deliverAfterMs: 3_000 };
export const TEST_CREDITS_CENTS = 5_000;

/** A New York address of the spec 3 address object, under the fields' own names. */
export const address = (name: string) => ({
  name,
  line1: "350 Fifth Avenue",
  city: "New York",
  state: "NY",
  postal_code: "10118",
});

/** The same address under some of the fields' aliases. */
export const aliasedAddress = (name: string) => ({
  name,
  address_line1: "350 Fifth Avenue",
  addressCity: "New York",
  state: "NY",
  postalCode: "10118",
});

/**
 * The Projects API on 127.0.0.1 over a core on memory stores. One clock drives the core (key overlap) and the
 * app's rate limits; `advance` moves it, so nothing waits. Unexpected errors are collected.
 */
export async function startV1Server(
  options: Partial<Omit<V1AppOptions, "publicUrl">> & {
    core?: Partial<CoreConfig>;
    /** The core the app is given, made from the real one (to stand in for a refusal no public use case makes). */
    wrap?: (core: MailpieceCore) => MailpieceCore;
    /** Where the core sends webhook deliveries (a stand-in receiver), and how it checks receiver URLs. */
    webhooks?: Pick<CoreDeps, "webhookSender" | "checkWebhookUrl" | "webhookOptions">;
  } = {},
) {
  const { core: coreConfig, wrap, webhooks, ...appOptions } = options;
  let now = Date.UTC(2026, 10, 24, 12);
  const clock = { now: () => now };
  const store = createMemoryStore();
  const core: MailpieceCore = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    clock,
    checkoutPayments: createTestCheckout(),
    printProviders: [createSimulatedPrinter({ store, clock, pace: SIMULATED_PACE })],
    ...webhooks,
    config: { keyOverlapMs: 24 * HOUR, testCreditsCents: TEST_CREDITS_CENTS, ...coreConfig },
  });
  const unexpected: unknown[] = [];
  let app: H3 | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  const base = running.url;
  app = createV1App(wrap ? wrap(core) : core, {
    publicUrl: base,
    onUnexpectedError: (error) => unexpected.push(error),
    ...appOptions,
  });
  /** Every answer so far (status line, headers, body), to check what the API ever said. */
  const transcript: Promise<string>[] = [];
  /** A request to /api/v1 + `path` with `key` as bearer (none when undefined). */
  const call = async (path: string, key?: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      ...init,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
    const copy = response.clone();
    transcript.push(
      copy.text().then((text) => `${copy.status} ${JSON.stringify([...copy.headers])}\n${text}`),
    );
    return response;
  };
  /** A POST of `body` as JSON. */
  const post = (path: string, key: string | undefined, body: unknown) =>
    call(path, key, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** A new workspace and its first test key. */
  const workspace = (name = "Acme Mailroom") => core.workspaces.create(name);
  /**
   * A key of `mode` with `permissions` in the workspace of `key`, made in-process by a caller holding the legacy
   * pair letters:write + letters:read, which may act in every mode: it stands for an operator-issued key, as in the
   * core's own tests (no public use case issues one). The mode's current keys start their overlap.
   */
  const keyWith = async (key: string, mode: KeyMode, permissions: Permission[]) => {
    const caller = await core.workspaces.authenticate(key);
    const legacy = { ...caller, permissions: ["letters:write", "letters:read"] as Permission[] };
    return (await core.workspaces.rotateKey(legacy, mode, permissions)).api_key;
  };
  return {
    base,
    workspace,
    keyWith,
    core,
    store,
    unexpected,
    /** Everything every answer said, as one text. */
    said: async () => (await Promise.all(transcript)).join("\n"),
    call,
    post,
    advance(ms: number) {
      now += ms;
    },
    close: () => running.close(),
  };
}

export type V1Server = Awaited<ReturnType<typeof startV1Server>>;

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedAddressProvider, loadSample } from "@mailpiece/address-embedded";
import {
  type HttpTarget,
  type MCP_SUITE_TEST_NAMES,
  mcpSuite,
  runSuite,
  type Suite,
  servePlatformProfiles,
  type UCP_SUITE_TEST_NAMES,
  ucpSuite,
  urlTarget,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { createMailpieceCore } from "@mailpiece/core";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutPayments } from "./checkout.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createRails } from "./rails.ts";
import { createServerApp } from "./server-app.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

// The platform whose UCP profiles the deployment fetches, on 127.0.0.1, admitted by UCP_PROFILE_HOSTS.
const platforms = await servePlatformProfiles();

// The reference deployment in-process: every surface on one app over a memory store, the simulated rails and card
// payments of a default configuration, and the embedded address sample.
const PUBLIC_URL = "http://127.0.0.1:3000";
const config = loadConfig({ STORE: "memory", UCP_PROFILE_HOSTS: platforms.host });
const memory = createMemoryStore();
const core = createMailpieceCore({
  store: memory,
  blobs: createMemoryBlobStore(),
  rails: createRails(config, memory).rails,
  addresses: createEmbeddedAddressProvider(await loadSample()),
  checkoutPayments: checkoutPayments(config.checkout, memory),
  config: {
    previewSecret: "a-test-preview-secret-of-at-least-32-bytes",
    // The suites create a few unpaid orders and drafts per run, and this file runs them several times.
    unpaidRateLimit: { limit: 10_000, windowMs: 60 * 60 * 1000 },
  },
});
const app = createServerApp(core, {
  publicUrl: PUBLIC_URL,
  maxBodyBytes: 8 * 1024 * 1024,
  logger: createLogger("silent"),
  version: "test",
  ucp: { profileHosts: config.ucp.profileHosts },
});

/** The app through its fetch, each request with the Host of the public URL (the MCP endpoints check it). */
const inProcess: HttpTarget = {
  label: "in-process",
  fetch: async (path, init) => {
    const headers = new Headers(init?.headers);
    headers.set("host", new URL(PUBLIC_URL).host);
    return app.fetch(new Request(`${PUBLIC_URL}${path}`, { ...init, headers }));
  },
};

afterAll(async () => {
  await app.close();
  await core.close();
  await platforms.close();
});

const TIMEOUT = 60_000;
// On the reference server every test applies: registerSuite fails a test that answers "not applicable".
registerSuite(mcpSuite(inProcess), { timeoutMs: TIMEOUT });
registerSuite(ucpSuite(inProcess, { platformProfile: platforms.publish }), { timeoutMs: TIMEOUT });

describe("over HTTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-conformance-agent-"));
  let running: RunningServer | undefined;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: "0",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        FULFILMENT_INTERVAL_MS: "0",
        UNPAID_ORDERS_PER_HOUR: "1000",
        UCP_PROFILE_HOSTS: platforms.host,
      }),
    );
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const target: HttpTarget = {
    label: "HTTP",
    fetch: (path, init) => urlTarget(running!.url).fetch(path, init),
  };
  registerSuite(mcpSuite(target), { timeoutMs: TIMEOUT });
  registerSuite(ucpSuite(target, { platformProfile: platforms.publish }), { timeoutMs: TIMEOUT });
});

/** A target whose answers to the requests `matches` picks are rewritten by `change` (status and headers kept). */
function alteredTarget(
  target: HttpTarget,
  matches: (path: string, init?: RequestInit) => boolean,
  change: (text: string) => string,
): HttpTarget {
  return {
    label: `${target.label}, altered`,
    async fetch(path, init) {
      const response = await target.fetch(path, init);
      if (!matches(path, init)) return response;
      const text = change(await response.text());
      const headers = new Headers(response.headers);
      headers.delete("content-length");
      return new Response(text, { status: response.status, headers });
    },
  };
}

/** The names of the tests of a suite's run that failed, and of those that did not apply. */
async function failures(suite: Suite): Promise<{ failed: string[]; notApplicable: string[] }> {
  const report = await runSuite(suite);
  const named = (status: string) => report.outcomes.filter((o) => o.status === status).map((o) => o.name);
  return { failed: named("failed"), notApplicable: named("not_applicable") };
}

describe("the suites fail a deployment that breaks the rule a test checks, and only that test", () => {
  it(
    "MCP: tool names listed without the svc. prefix fail the listing test alone",
    async () => {
      const unprefixed = alteredTarget(
        inProcess,
        (_path, init) => typeof init?.body === "string" && init.body.includes('"method":"tools/list"'),
        (text) => text.replaceAll('"name":"svc.', '"name":"'),
      );
      const { failed, notApplicable } = await failures(mcpSuite(unprefixed));
      expect(failed).toEqual([
        "the tools of spec 1 are listed with the svc. prefix and JSON object input schemas",
      ] satisfies (typeof MCP_SUITE_TEST_NAMES)[number][]);
      // svc.search_addresses is no longer listed under its name, so its check says it does not apply.
      expect(notApplicable).toEqual([
        "svc.search_addresses answers suggestions, and a Container leads to single addresses",
      ]);
    },
    4 * TIMEOUT,
  );

  it(
    "UCP: a business profile of another version fails the version test alone",
    async () => {
      const otherVersion = alteredTarget(
        inProcess,
        (path) => path === "/.well-known/ucp",
        (text) => {
          const profile = JSON.parse(text) as { ucp: { version: string } };
          profile.ucp.version = "2025-10-01";
          return JSON.stringify(profile);
        },
      );
      const { failed, notApplicable } = await failures(
        ucpSuite(otherVersion, { platformProfile: platforms.publish }),
      );
      expect(failed).toEqual([
        "the business profile at /.well-known/ucp names UCP version 2026-01-11",
      ] satisfies (typeof UCP_SUITE_TEST_NAMES)[number][]);
      expect(notApplicable).toEqual([]);
    },
    4 * TIMEOUT,
  );
});

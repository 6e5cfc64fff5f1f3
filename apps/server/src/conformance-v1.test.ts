import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestCheckout } from "@mailpiece/checkout-test";
import type { HttpTarget, Suite, V1SuiteTestName } from "@mailpiece/conformance";
import {
  appTarget,
  isNotApplicable,
  NEEDS_WEBHOOK_URL,
  urlTarget,
  V1_SUITE_TEST_NAMES,
  v1Suite,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { createMailpieceCore } from "@mailpiece/core";
import { systemClock } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { createServerApp } from "./server-app.ts";
import { startServer } from "./start.ts";

const ADMIN_TOKEN = "an-operator-token-of-at-least-32-characters";
const SUITE_TIMEOUT_MS = 60_000;

/** The suite's tests, each failing when it answers notApplicable: on the reference server every check applies. */
function everyCheckApplies<Name extends string>(suite: Suite<Name>): Suite<Name> {
  return {
    name: suite.name,
    tests: suite.tests.map((test) => ({
      ...test,
      run: async () => {
        const result = await test.run();
        expect(isNotApplicable(result) ? result.notApplicable : "applies").toBe("applies");
      },
    })),
  };
}

/** What each test of a suite answered: "passed", the notApplicable reason, or the failure message. */
async function outcomes(suite: Suite<V1SuiteTestName>): Promise<Map<V1SuiteTestName, string>> {
  const answered = new Map<V1SuiteTestName, string>();
  for (const test of suite.tests) {
    try {
      const result = await test.run();
      answered.set(test.name, isNotApplicable(result) ? `n/a: ${result.notApplicable}` : "passed");
    } catch (error) {
      answered.set(test.name, `failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return answered;
}

/** The names whose outcome does not start with `prefix`. */
function except(answered: Map<V1SuiteTestName, string>, prefix: string): V1SuiteTestName[] {
  return [...answered].filter(([, outcome]) => !outcome.startsWith(prefix)).map(([name]) => name);
}

/** A target whose answers to matching requests are replaced: a deployment that breaks one rule. */
function changedTarget(
  target: HttpTarget,
  change: (path: string, init: RequestInit | undefined, response: Response) => Promise<Response>,
): HttpTarget {
  return {
    label: `${target.label}, changed`,
    fetch: async (path, init) => change(path, init, await target.fetch(path, init)),
  };
}

// The reference server's app in-process, over a core on memory stores with the simulated printer and test card
// payments. Webhook receivers are checked by the https rule only, and nothing is delivered (no worker runs).
const RECEIVER = "https://receiver.example.test/mailpiece-conformance";
const store = createMemoryStore();
const core = createMailpieceCore({
  store,
  blobs: createMemoryBlobStore(),
  checkoutPayments: createTestCheckout(),
  printProviders: [createSimulatedPrinter({ store, clock: systemClock })],
  config: { previewSecret: "a-test-preview-secret-of-at-least-32-bytes" },
});
const app = createServerApp(core, {
  publicUrl: "http://127.0.0.1:3000",
  maxBodyBytes: 512 * 1024,
  logger: createLogger("silent"),
  version: "test",
  adminToken: ADMIN_TOKEN,
});
const inProcess = appTarget(app);
const keyOf = async (name: string) => (await core.workspaces.create(name)).test_api_key;

registerSuite(
  everyCheckApplies(
    v1Suite(inProcess, { apiKey: await keyOf("Conformance"), adminToken: ADMIN_TOKEN, webhookUrl: RECEIVER }),
  ),
  { timeoutMs: SUITE_TIMEOUT_MS },
);

// The same suite against the reference server listening on a random port, on the embedded file store. The webhook
// check registers a loopback receiver, admitted as a private host (nothing listens there).
const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-conformance-v1-"));
const running = await startServer(
  loadConfig({
    PORT: "0",
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ADMIN_TOKEN,
    WEBHOOK_PRIVATE_HOSTS: "127.0.0.1:9",
  }),
);
afterAll(async () => {
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
});
const httpKey = (await running.core.workspaces.create("Conformance over HTTP")).test_api_key;
describe("over HTTP", () => {
  registerSuite(
    everyCheckApplies(
      v1Suite(urlTarget(running.url), {
        apiKey: httpKey,
        adminToken: ADMIN_TOKEN,
        webhookUrl: "https://127.0.0.1:9/mailpiece-conformance",
      }),
    ),
    { timeoutMs: SUITE_TIMEOUT_MS },
  );
});

describe("what the suite answers where a check does not apply", () => {
  it("runs the keyless checks without a key, and answers notApplicable for the others", async () => {
    const answered = await outcomes(v1Suite(inProcess, {}));
    const keyless: V1SuiteTestName[] = [
      "a request without a key is 401 with WWW-Authenticate: Bearer",
      "a malformed or unknown key is 401 unauthorized and never repeated",
      "an unknown path is 404 and another method 405 with Allow, without a key",
      "every answer is marked Cache-Control: no-store",
      "test-mode drafts need an Idempotency-Key",
      "a test mail draft has a PDF preview, a zero-dollar quote and fake tracking events",
      "a test form draft previews a workflow's answers",
      "a test order shows its fake lifecycle; an unknown one is 404",
      "a test mail draft with bad fields is 422 with every issue at its path",
    ];
    expect(except(answered, "passed")).toEqual(V1_SUITE_TEST_NAMES.filter((name) => !keyless.includes(name)));
    for (const name of except(answered, "passed")) {
      expect(answered.get(name)).toBe("n/a: needs an API key: pass apiKey");
    }
  }, 120_000);

  it("with a live key, answers notApplicable for every check that mails or pays, and runs the others", async () => {
    const { id } = await core.workspaces.create("Live conformance");
    const live = await core.workspaces.enableLive(id);
    const answered = await outcomes(
      v1Suite(inProcess, { apiKey: live!.api_key, adminToken: ADMIN_TOKEN, webhookUrl: RECEIVER }),
    );
    const paying: V1SuiteTestName[] = [
      "an order needs an Idempotency-Key; a retry answers the same order; the key with another body is refused",
      "an order reads back with its timeline, funds and metadata",
      "an order's document.pdf is its PDF",
      "a template send with a missing variable is 422 at variables.<name>",
      "a handwritten card is sent and its proof is a PDF",
      "an approved draft is released once: a second release answers the same order",
    ];
    expect(except(answered, "passed")).toEqual(paying);
    for (const name of paying) {
      expect(answered.get(name)).toBe("n/a: paying check: runs only with a test-mode key");
    }
    // Nothing of the live workspace was spent.
    expect(await core.workspaces.balance(id, "live")).toMatchObject({
      available_cents: 0,
      reserved_cents: 0,
    });
  }, 120_000);

  it("registers no webhook endpoint without a webhook URL, and says why", async () => {
    const key = await keyOf("Without receiver");
    const suite = v1Suite(inProcess, { apiKey: key, adminToken: ADMIN_TOKEN });
    const run = (name: V1SuiteTestName) => suite.tests.find((test) => test.name === name)!.run();
    expect(
      await run("webhook endpoints refuse a URL that is not https, registering nothing"),
    ).toBeUndefined();
    expect(
      await run("webhook endpoints show their whsec_ secret once, rotate it and are disabled by DELETE"),
    ).toEqual({ notApplicable: NEEDS_WEBHOOK_URL });
    const listed = await app.fetch(
      new Request("http://127.0.0.1:3000/api/v1/webhook-endpoints", {
        headers: { authorization: `Bearer ${key}` },
      }),
    );
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  }, 120_000);

  it("answers notApplicable for the release without the admin token, and for mail the credits do not cover", async () => {
    const release = "an approved draft is released once: a second release answers the same order";
    const withoutToken = v1Suite(inProcess, { apiKey: await keyOf("Without token") });
    expect(await withoutToken.tests.find((test) => test.name === release)!.run()).toEqual({
      notApplicable: "needs the operator's admin token: pass adminToken",
    });
    // A deployment whose workspaces start with 1.50 of test credits: less than any letter or card costs.
    const poorStore = createMemoryStore();
    const poorCore = createMailpieceCore({
      store: poorStore,
      blobs: createMemoryBlobStore(),
      checkoutPayments: createTestCheckout(),
      printProviders: [createSimulatedPrinter({ store: poorStore, clock: systemClock })],
      config: { testCreditsCents: 150 },
    });
    const poorApp = createServerApp(poorCore, {
      publicUrl: "http://127.0.0.1:3000",
      maxBodyBytes: 512 * 1024,
      logger: createLogger("silent"),
      version: "test",
      adminToken: ADMIN_TOKEN,
    });
    const { id, test_api_key: key } = await poorCore.workspaces.create("Poor");
    const suite = v1Suite(appTarget(poorApp), { apiKey: key, adminToken: ADMIN_TOKEN });
    const paying: V1SuiteTestName[] = [
      "an order needs an Idempotency-Key; a retry answers the same order; the key with another body is refused",
      "an order reads back with its timeline, funds and metadata",
      "a handwritten card is sent and its proof is a PDF",
      release,
    ];
    for (const name of paying) {
      expect(await suite.tests.find((test) => test.name === name)!.run(), name).toEqual({
        notApplicable: "insufficient test credits",
      });
    }
    expect(await poorCore.workspaces.balance(id, "test")).toMatchObject({
      available_cents: 150,
      reserved_cents: 0,
    });
  }, 120_000);
});

describe("the suite fails where a deployment breaks a rule", () => {
  it("fails only the webhook check when the endpoint list shows the signing secret", async () => {
    const leaking = changedTarget(inProcess, async (path, init, response) => {
      if (path !== "/api/v1/webhook-endpoints" || (init?.method ?? "GET") !== "GET") return response;
      const body = (await response.json()) as { data: Record<string, unknown>[] };
      const data = body.data.map((endpoint) => ({ ...endpoint, signing_secret: "whsec_leaked" }));
      return Response.json({ ...body, data }, { status: response.status, headers: response.headers });
    });
    const answered = await outcomes(
      v1Suite(leaking, { apiKey: await keyOf("Leaking"), adminToken: ADMIN_TOKEN, webhookUrl: RECEIVER }),
    );
    const check = "webhook endpoints show their whsec_ secret once, rotate it and are disabled by DELETE";
    expect(except(answered, "passed")).toEqual([check]);
    expect(answered.get(check)).toMatch(/signing_secret/);
  }, 120_000);

  it("fails only the option-rule check when an unavailable combination is quoted instead of refused", async () => {
    const lenient = changedTarget(inProcess, async (path, init, response) => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      } catch {
        // Not a JSON body: answered as it was.
      }
      if (path !== "/api/v1/letters/quotes" || body.mail_class !== "priority" || body.certified !== true) {
        return response;
      }
      return Response.json(
        { object: "quote", quote_id: "qt_silently_changed", price_cents: 2000 },
        { status: 200 },
      );
    });
    const answered = await outcomes(
      v1Suite(lenient, { apiKey: await keyOf("Lenient"), adminToken: ADMIN_TOKEN, webhookUrl: RECEIVER }),
    );
    expect(except(answered, "passed")).toEqual([
      "unavailable letter option combinations are 422 at their field, never changed",
    ]);
  }, 120_000);
});

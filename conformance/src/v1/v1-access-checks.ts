import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  expectCents,
  expectError,
  expectIssueAt,
  expectJson,
  expectList,
  expectNoStore,
  expectNotShown,
} from "./v1-checks.ts";
import type { V1Check, V1Context } from "./v1-context.ts";
import { BILLING_RAILS, spec3 } from "./v1-fixtures.ts";

const AUTHENTICATION = "Authentication";
const ERRORS = "Errors";
const KEYS = "Credits, webhooks and keys";

/** A bearer value of the right shape that no deployment issued. */
const unknownKey = () => `svc_test_${randomBytes(24).toString("base64url")}`;

/** Bearer keys, refusals, the error shape, caching, the key list and the credits. */
export function accessChecks(context: V1Context) {
  const { client } = context;
  return {
    "a request without a key is 401 with WWW-Authenticate: Bearer": {
      requirement: spec3(AUTHENTICATION, "Every /api/v1 call carries `Authorization: Bearer <API_KEY>`."),
      gate: "keyless",
      run: async () => {
        for (const [path, method] of [
          ["/api/v1/credits/balance", "GET"],
          ["/api/v1/api-keys", "GET"],
          ["/api/v1/letters/quotes", "POST"],
        ] as const) {
          const answer = await client.send(path, {
            key: null,
            method,
            ...(method === "POST" ? { body: { document_id: "doc_1" } } : {}),
          });
          expectError(answer, 401, "unauthorized");
          assert.match(
            answer.headers.get("www-authenticate") ?? "",
            /^Bearer\b/i,
            `${method} ${path}: the 401 names the Bearer scheme`,
          );
        }
      },
    },

    "a malformed or unknown key is 401 unauthorized and never repeated": {
      requirement: spec3(ERRORS, "unauthorized | 401 | missing or invalid bearer key"),
      gate: "keyless",
      run: async () => {
        const unknown = unknownKey();
        const attempts: [string, string][] = [
          ["a key of the right shape that was never issued", `Bearer ${unknown}`],
          ["a bearer value that is not a key", "Bearer not-a-key"],
          ["another scheme", `Basic ${Buffer.from(`${unknown}:`).toString("base64")}`],
          ["no value", "Bearer"],
        ];
        if (context.apiKey !== undefined)
          attempts.push(["the key with a character more", `Bearer ${context.apiKey}x`]);
        for (const [what, header] of attempts) {
          const answer = await client.send("/api/v1/credits/balance", {
            key: null,
            headers: { authorization: header },
          });
          // The answer is searched for the keys first, so that a failure never prints one.
          expectNotShown(answer, unknown, what);
          if (context.apiKey !== undefined) expectNotShown(answer, context.apiKey, what);
          expectError(answer, 401, "unauthorized");
        }
      },
    },

    "an unknown path is 404 and another method 405 with Allow, without a key": {
      requirement: spec3(ERRORS, "not_found | 404 | unknown route or resource outside the workspace"),
      gate: "keyless",
      run: async () => {
        for (const path of ["/api/v1/no-such-resource", "/api/v1/letters/quotes/extra/segments"]) {
          expectError(await client.send(path, { key: null }), 404, "not_found");
        }
        for (const [method, path, allowed] of [
          ["DELETE", "/api/v1/credits/balance", "GET"],
          ["GET", "/api/v1/letters/quotes", "POST"],
        ] as const) {
          const answer = await client.send(path, { key: null, method });
          expectError(answer, 405, "method_not_allowed");
          const allow = (answer.headers.get("allow") ?? "").split(",").map((m) => m.trim().toUpperCase());
          assert.ok(
            allow.includes(allowed),
            `${method} ${path}: Allow lists ${allowed} (got ${allow.join(", ")})`,
          );
        }
      },
    },

    "every answer is marked Cache-Control: no-store": {
      requirement: spec3(
        KEYS,
        "Key rotation body {mode: test or live}; response mode, api_key (shown once), api_key_prefix.",
      ),
      gate: "keyless",
      run: async () => {
        const answers = [
          ["a 401", await client.send("/api/v1/credits/balance", { key: null })],
          ["a 404", await client.send("/api/v1/no-such-resource", { key: null })],
          ["a 405", await client.send("/api/v1/credits/balance", { key: null, method: "DELETE" })],
          ["a test-mode refusal", await client.send("/v1/test/mail_drafts", { key: null, body: {} })],
        ] as const;
        for (const [what, answer] of answers) expectNoStore(answer, what);
        if (context.apiKey === undefined) return;
        expectNoStore(await client.send("/api/v1/api-keys"), "the key list");
        expectNoStore(await client.send("/api/v1/credits/balance"), "the balance");
        expectNoStore(await client.send("/api/v1/letters/quotes", { body: {} }), "a 422");
      },
    },

    "error bodies are {error, message, issues} with the path of each issue": {
      requirement: spec3(ERRORS, "Body shape `{error: <code>}` plus HTTP status; 4xx for request problems"),
      gate: "keyed",
      run: async () => {
        const issues = expectError(
          await client.send("/api/v1/letters/quotes", { body: { document_id: 5, color: "yes" } }),
          422,
        );
        expectIssueAt(issues, "document_id");
        expectIssueAt(issues, "color");
        const missing = expectError(await client.send("/api/v1/letters/quotes", { body: {} }), 422);
        expectIssueAt(missing, "document_id");
        const malformed = await client.send("/api/v1/letters/quotes", {
          body: '{"document_id":',
          headers: { "content-type": "application/json" },
        });
        expectError(malformed, 400);
      },
    },

    "the key list shows prefixes and status, never a key": {
      requirement: spec3("Endpoints", "GET | /api-keys | list prefixes and status"),
      gate: "keyed",
      run: async () => {
        const answer = await client.send("/api/v1/api-keys");
        const keys = expectList(answer, "the key list");
        assert.ok(keys.length > 0, "the workspace's keys are listed");
        const apiKey = context.apiKey!;
        expectNotShown(answer, apiKey, "the key list");
        for (const key of keys) {
          assert.equal(typeof key.api_key_prefix, "string", "every key shows its prefix");
          assert.equal(typeof key.status, "string", "every key shows its status");
          assert.ok(key.mode === "test" || key.mode === "live", "every key names its mode");
          assert.ok(!("api_key" in key), "a listed key never carries the key");
        }
        assert.ok(
          keys.some((key) => {
            const prefix = key.api_key_prefix as string;
            return prefix.length > 0 && prefix.length < apiKey.length && apiKey.startsWith(prefix);
          }),
          "the calling key is listed by a prefix of it",
        );
      },
    },

    "a key rotation with an unknown mode is 422 at mode and issues no key": {
      requirement: spec3(KEYS, "Key rotation body {mode: test or live}"),
      gate: "keyed",
      run: async () => {
        const ids = async () =>
          expectList(await client.send("/api/v1/api-keys"), "the key list")
            .map((key) => key.id)
            .sort();
        const before = await ids();
        const refused = await client.send("/api/v1/api-keys/rotate", { body: { mode: "sandbox" } });
        expectIssueAt(expectError(refused, 422), "mode");
        assert.ok(!("api_key" in (refused.json ?? {})), "no key is shown");
        assert.deepEqual(await ids(), before, "no key was issued");
      },
    },

    "the credit balance shows the key's mode with both modes' snapshots": {
      requirement: spec3(
        KEYS,
        "Credit balance: mode (test or live), billing_rail (...), available_cents, reserved_cents, currency, status, test and live snapshots, auto_refill policies.",
      ),
      gate: "keyed",
      run: async () => {
        const balance = expectJson(await client.send("/api/v1/credits/balance"), 200, "the balance");
        assert.ok(balance.mode === "test" || balance.mode === "live", `mode: ${String(balance.mode)}`);
        assert.ok(
          BILLING_RAILS.includes(balance.billing_rail as string),
          `billing_rail: ${String(balance.billing_rail)}`,
        );
        expectCents(balance.available_cents, "available_cents");
        expectCents(balance.reserved_cents, "reserved_cents");
        assert.equal(typeof balance.currency, "string", "currency");
        assert.equal(typeof balance.status, "string", "status");
        for (const mode of ["test", "live"] as const) {
          const snapshot = balance[mode] as Record<string, unknown> | undefined;
          assert.ok(snapshot && typeof snapshot === "object", `a ${mode} snapshot`);
          expectCents(snapshot.available_cents, `${mode}.available_cents`);
          expectCents(snapshot.reserved_cents, `${mode}.reserved_cents`);
        }
        const own = balance[balance.mode as "test" | "live"] as Record<string, unknown>;
        assert.equal(
          own.available_cents,
          balance.available_cents,
          "the key's mode's snapshot is its balance",
        );
        assert.ok("auto_refill" in balance, "the balance shows its auto-refill policies");
      },
    },

    "the credit ledger lists credit movements in integer cents": {
      requirement: spec3(
        "Endpoints",
        "GET | /credits/balance, /credits/payment-methods, /credits/auto-refill, /credits/ledger | reads",
      ),
      gate: "keyed",
      run: async () => {
        const entries = expectList(await client.send("/api/v1/credits/ledger"), "the ledger");
        for (const entry of entries) {
          assert.equal(typeof entry.id, "string", `every movement has an id: ${JSON.stringify(entry)}`);
          assert.ok(Number.isSafeInteger(entry.amount_cents), "every movement is integer cents");
          assert.equal(typeof entry.created_at, "string", "every movement is dated");
        }
      },
    },
  } satisfies Record<string, V1Check>;
}

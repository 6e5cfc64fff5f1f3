import assert from "node:assert/strict";
import { notApplicable } from "../kit.ts";
import {
  expectError,
  expectInvalid,
  expectIssueAt,
  expectJson,
  expectList,
  expectNotShown,
  shown,
} from "./v1-checks.ts";
import type { Answer, Json } from "./v1-client.ts";
import type { V1Check, V1Context } from "./v1-context.ts";
import { spec3, WEBHOOK_EVENT_TYPE } from "./v1-fixtures.ts";

const WEBHOOKS = "Credits, webhooks and keys";

/** Why the endpoint check does not run: the suite registers only a receiver it was given. */
export const NEEDS_WEBHOOK_URL =
  "needs an https receiver URL of yours to register: pass webhookUrl (--webhook-url)";

/** The plain-http URL the refusal check sends; `.invalid` never resolves, should a deployment keep it anyway. */
const REFUSED_URL = "http://receiver.invalid/mailpiece-conformance";

/** Asserts an endpoint listing never shows a secret, and answers the endpoint `id` as listed. */
function listedEndpoint(answer: Answer, id: unknown, secrets: readonly string[]): Json {
  const endpoints = expectList(answer, "the endpoint list");
  for (const secret of secrets) expectNotShown(answer, secret, "the endpoint list");
  for (const endpoint of endpoints) {
    assert.ok(!("signing_secret" in endpoint), "a listed endpoint carries no signing_secret");
  }
  const found = endpoints.find((endpoint) => endpoint.id === id);
  assert.ok(found, "the endpoint is listed");
  return found;
}

/**
 * Webhook endpoints and events, and the return-receipt export. Without `webhookUrl`, no endpoint is registered: a
 * deployment delivers test-mode events to every endpoint of the workspace, and the suite never points one at a
 * receiver that its user did not name.
 */
export function webhookChecks(context: V1Context, webhookUrl: string | undefined) {
  const { client } = context;
  const endpointIds = async (): Promise<unknown[]> =>
    expectList(await client.send("/api/v1/webhook-endpoints"), "the endpoint list").map((e) => e.id);
  return {
    "webhook endpoints refuse a URL that is not https, registering nothing": {
      requirement: spec3(
        WEBHOOKS,
        "Webhook endpoint: id, url (https only), status, created_at; create or rotate also returns signing_secret once (prefix whsec_).",
      ),
      gate: "keyed",
      run: async () => {
        const before = await endpointIds();
        const plain = webhookUrl?.replace(/^https:/, "http:") ?? REFUSED_URL;
        const refused = await client.send("/api/v1/webhook-endpoints", { body: { url: plain } });
        expectIssueAt(expectInvalid(refused), "url");
        assert.deepEqual(await endpointIds(), before, "the refused endpoint is not listed");
      },
    },

    "webhook endpoints show their whsec_ secret once, rotate it and are disabled by DELETE": {
      requirement: spec3(
        WEBHOOKS,
        "Webhook endpoint: id, url (https only), status, created_at; create or rotate also returns signing_secret once (prefix whsec_).",
      ),
      gate: "keyed",
      run: async () => {
        if (webhookUrl === undefined) return notApplicable(NEEDS_WEBHOOK_URL);
        const created = await client.send("/api/v1/webhook-endpoints", { body: { url: webhookUrl } });
        const endpoint = expectJson(created, [200, 201], "the new endpoint");
        let disabled = false;
        try {
          assert.equal(typeof endpoint.id, "string", "id");
          assert.equal(endpoint.url, webhookUrl, "url");
          assert.equal(typeof endpoint.status, "string", "status");
          assert.equal(typeof endpoint.created_at, "string", "created_at");
          const secret = endpoint.signing_secret;
          assert.ok(
            typeof secret === "string" && /^whsec_./.test(secret),
            "the signing secret is shown, whsec_",
          );
          listedEndpoint(await client.send("/api/v1/webhook-endpoints"), endpoint.id, [secret]);
          const rotated = expectJson(
            await client.send(`/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: "POST" }),
            [200, 201],
            "the rotation",
          );
          const fresh = rotated.signing_secret;
          assert.ok(
            typeof fresh === "string" && /^whsec_./.test(fresh),
            "a rotation shows the new whsec_ secret",
          );
          assert.notEqual(fresh, secret, "a rotation makes a new secret");
          const removed = expectJson(
            await client.send(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: "DELETE" }),
            200,
            "the disabling",
          );
          disabled = true;
          assert.equal(removed.status, "disabled", "DELETE disables the endpoint");
          assert.ok(!("signing_secret" in removed), "the disabled endpoint shows no secret");
          const listed = listedEndpoint(await client.send("/api/v1/webhook-endpoints"), endpoint.id, [
            secret,
            fresh,
          ]);
          assert.equal(listed.status, "disabled", "the list shows it disabled");
        } finally {
          if (!disabled) await client.send(`/api/v1/webhook-endpoints/${endpoint.id}`, { method: "DELETE" });
        }
      },
    },

    "webhook events are listed with types of the pattern service.{kind}.{status}": {
      requirement: spec3(
        "Events",
        "Event type pattern `service.{letter|postcard|handwritten}.{status}` with statuses accepted, in_transit, delivered, returned, failed, canceled (handwritten has no returned).",
      ),
      gate: "keyed",
      run: async () => {
        const events = expectList(await client.send("/api/v1/webhook-events"), "the events");
        for (const event of events) {
          assert.equal(
            typeof event.id,
            "string",
            `every event has an id: ${JSON.stringify(event).slice(0, 300)}`,
          );
          assert.match(String(event.type), WEBHOOK_EVENT_TYPE, "every event type follows the pattern");
        }
        expectError(
          await client.send(`/api/v1/webhook-events/evt_${"0".repeat(32)}/replay`, { method: "POST" }),
          404,
        );
      },
    },

    "the return-receipt export is a zip archive with its manifest": {
      requirement: spec3(
        "Endpoints",
        "GET | /return-receipts/export.zip | bulk export, up to 500 receipts, archive with manifest.csv and the receipt PDFs",
      ),
      gate: "keyed",
      run: async () => {
        const archive = await client.send("/api/v1/return-receipts/export.zip");
        assert.equal(archive.status, 200, shown(archive));
        assert.match(
          archive.headers.get("content-type") ?? "",
          /^application\/zip/,
          "served as application/zip",
        );
        assert.equal(new TextDecoder().decode(archive.bytes.slice(0, 2)), "PK", "a zip archive");
        assert.ok(
          new TextDecoder().decode(archive.bytes).includes("manifest.csv"),
          "the archive holds manifest.csv",
        );
        expectError(await client.send(`/api/v1/letters/ord_${"0".repeat(32)}/return-receipt.pdf`), 404);
      },
    },
  } satisfies Record<string, V1Check>;
}

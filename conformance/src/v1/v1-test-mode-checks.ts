import assert from "node:assert/strict";
import { mortgageFormFields } from "../machine/fixtures.ts";
import { expectError, expectInvalid, expectIssueAt, expectJson, expectPdf } from "./v1-checks.ts";
import type { Json } from "./v1-client.ts";
import { once, type V1Check, type V1Context } from "./v1-context.ts";
import { spec3, TEST_MODE_EVENTS, testMailDraft } from "./v1-fixtures.ts";

const TEST_MODE = "Test-mode draft endpoints ({base_url})";

/** Checks a test-mode draft or order: zero dollars, known lifecycle events, a preview link. */
function expectTestPiece(piece: Json, what: string): void {
  assert.equal(typeof piece.id, "string", `${what}: id`);
  const quote = piece.quote as Json | undefined;
  if (quote !== undefined) assert.equal(quote.price_cents, 0, `${what}: a zero-dollar quote`);
  assert.ok(Array.isArray(piece.events) && piece.events.length > 0, `${what}: fake lifecycle events`);
  for (const event of piece.events as Json[]) {
    assert.equal(typeof event.id, "string", `${what}: every event has an id`);
    assert.ok(
      TEST_MODE_EVENTS.includes(event.type as string),
      `${what}: a lifecycle event type: ${String(event.type)}`,
    );
  }
  assert.equal(typeof piece.preview_pdf_url, "string", `${what}: preview_pdf_url`);
}

/** The keyless test-mode drafts at /v1/test. */
export function testModeChecks(context: V1Context) {
  const { client } = context;
  const create = (path: string, body: unknown, idempotencyKey?: string) =>
    client.send(path, {
      key: null,
      body,
      headers: idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey },
    });

  /** The suite's test-mode mail draft, made once. */
  const mailDraft = once(async () => {
    const key = crypto.randomUUID();
    const draft = expectJson(
      await create("/v1/test/mail_drafts", testMailDraft(), key),
      [200, 201],
      "a test draft",
    );
    return { key, draft };
  });

  return {
    "test-mode drafts need an Idempotency-Key": {
      requirement: spec3(
        "Errors",
        "Missing idempotency key is also the first listed error of the test-mode drafts.",
      ),
      gate: "keyless",
      run: async () => {
        expectError(await create("/v1/test/mail_drafts", testMailDraft()), 400, "idempotency_key_required");
        expectError(
          await create("/v1/test/form_drafts", {
            workflow_slug: "mortgage-servicing-error-packet",
            answers: {},
          }),
          400,
          "idempotency_key_required",
        );
      },
    },

    "a test mail draft has a PDF preview, a zero-dollar quote and fake tracking events": {
      requirement: spec3(
        TEST_MODE,
        "POST | /v1/test/mail_drafts | ... header Idempotency-Key (uuid); response includes preview_pdf_url, a zero-dollar quote, fake tracking events",
      ),
      gate: "keyless",
      run: async () => {
        const { key, draft } = await mailDraft();
        expectTestPiece(draft, "the draft");
        const again = expectJson(
          await create("/v1/test/mail_drafts", testMailDraft(), key),
          [200, 201],
          "the retry",
        );
        assert.equal(again.id, draft.id, "a retry with the same Idempotency-Key answers the same draft");
        expectPdf(await client.sendToUrl(draft.preview_pdf_url as string), "the preview");
      },
    },

    "a test form draft previews a workflow's answers": {
      requirement: spec3(
        TEST_MODE,
        "POST | /v1/test/form_drafts | workflow_slug, answers (object) | same header",
      ),
      gate: "keyless",
      run: async () => {
        const draft = expectJson(
          await create(
            "/v1/test/form_drafts",
            { workflow_slug: "mortgage-servicing-error-packet", answers: mortgageFormFields() },
            crypto.randomUUID(),
          ),
          [200, 201],
          "a test form draft",
        );
        expectTestPiece(draft, "the form draft");
        expectPdf(await client.sendToUrl(draft.preview_pdf_url as string), "the packet's preview");
      },
    },

    "a test order shows its fake lifecycle; an unknown one is 404": {
      requirement: spec3(TEST_MODE, "GET | /v1/test/orders/{id} | none | fake lifecycle events"),
      gate: "keyless",
      run: async () => {
        const { draft } = await mailDraft();
        assert.equal(typeof draft.order_id, "string", "the draft names its test order");
        const order = expectJson(
          await client.send(`/v1/test/orders/${draft.order_id}`, { key: null }),
          200,
          "the order",
        );
        expectTestPiece(order, "the test order");
        assert.equal(typeof order.status, "string", "the order's status");
        const ids = (order.events as Json[]).map((event) => event.id);
        for (const event of draft.events as Json[]) {
          assert.ok(ids.includes(event.id), `the order keeps the draft's event ${String(event.id)}`);
        }
        expectError(await client.send(`/v1/test/orders/tord_${"0".repeat(32)}`, { key: null }), 404);
      },
    },

    "a test mail draft with bad fields is 422 with every issue at its path": {
      requirement: spec3(
        TEST_MODE,
        "letter_text (string) with sender {name} and recipient {name}; or pdf_url (https) with mail_class",
      ),
      gate: "keyless",
      run: async () => {
        const issues = expectInvalid(
          await create(
            "/v1/test/mail_drafts",
            { letter_text: "Hello", sender: { name: "" } },
            crypto.randomUUID(),
          ),
        );
        expectIssueAt(issues, "recipient", "recipient.name");
        expectIssueAt(issues, "sender.name");
      },
    },
  } satisfies Record<string, V1Check>;
}

import assert from "node:assert/strict";
import { notApplicable } from "../kit.ts";
import {
  expectInvalid,
  expectIssueAt,
  expectJson,
  expectList,
  expectOk,
  expectPdf,
  shown,
} from "./v1-checks.ts";
import type { Json } from "./v1-client.ts";
import { INSUFFICIENT_CREDITS, type V1Check, type V1Context } from "./v1-context.ts";
import { senderAddress, spec3, tag, usAddress } from "./v1-fixtures.ts";

const ENDPOINTS = "Endpoints";

/** A template with one declared variable, `first_name`. */
function templateBody(): Json {
  return {
    name: `Conformance ${tag()}`,
    body: "Dear {{first_name}},\n\nThank you for your letter.\n\nAda",
    variables: [{ name: "first_name" }],
  };
}

/** Templates, handwritten mail, drafts and approvals. */
export function workflowChecks(context: V1Context) {
  const { client } = context;
  const patch = (path: string, body: Json) => client.send(path, { method: "PATCH", body });
  const post = (path: string) => client.send(path, { method: "POST" });
  const createTemplate = async () =>
    expectJson(
      await client.send("/api/v1/templates", { body: templateBody() }),
      [200, 201],
      "a new template",
    );
  const archive = (id: unknown) => client.send(`/api/v1/templates/${id}`, { method: "DELETE" });

  /** A letter draft saved from a new quote; `discard` cleans it away. */
  const saveDraft = async (metadata: Json) => {
    const { quote, body } = await context.letterBody(metadata);
    const draft = expectJson(
      await client.send("/api/v1/drafts", { body: { type: "letter", ...body } }),
      [200, 201],
      "a saved draft",
    );
    assert.equal(typeof draft.id, "string", "the draft has an id");
    return { quote, body, draft, discard: () => post(`/api/v1/drafts/${draft.id}/discard`) };
  };

  return {
    "templates are created, versioned on PATCH and archived": {
      requirement: spec3(ENDPOINTS, "GET, PATCH, DELETE | /templates/{template_id} | read, update, archive"),
      gate: "keyed",
      run: async () => {
        const template = await createTemplate();
        try {
          assert.equal(typeof template.id, "string", "the template has an id");
          assert.equal(template.version, 1, "a new template is version 1");
          const renamed = `${template.name as string} (v2)`;
          const updated = expectJson(
            await patch(`/api/v1/templates/${template.id}`, { name: renamed }),
            200,
            "the update",
          );
          assert.equal(updated.version, 2, "an update makes version 2");
          const read = expectJson(await client.send(`/api/v1/templates/${template.id}`), 200, "the template");
          assert.equal(read.name, renamed);
          assert.equal(read.version, 2);
          expectList(await client.send("/api/v1/templates"), "the templates");
        } finally {
          const archived = await archive(template.id);
          assert.ok(archived.status >= 200 && archived.status < 300, `DELETE archives: ${shown(archived)}`);
        }
      },
    },

    "a template send with a missing variable is 422 at variables.<name>": {
      requirement: spec3(
        "Errors",
        "Ineligible option combinations, expired quotes and malformed addresses return descriptive error codes.",
      ),
      gate: "mailing",
      run: async () => {
        const template = await createTemplate();
        try {
          const refused = await context.sendOnce(
            `/api/v1/templates/${template.id}/send`,
            { variables: {}, recipient: usAddress("Conformance Recipient"), sender: senderAddress() },
            crypto.randomUUID(),
          );
          expectIssueAt(expectInvalid(refused), "variables.first_name");
        } finally {
          await archive(template.id);
        }
      },
    },

    "a handwritten card is sent and its proof is a PDF": {
      requirement: spec3(
        ENDPOINTS,
        "POST | /handwritten and /handwritten/drafts | send handwritten mail; prepare draft ... GET | /handwritten/{order_id} and /handwritten/{order_id}/document.pdf | read, proof PDF",
      ),
      gate: "mailing",
      run: async () => {
        const body = {
          message: "Thank you for everything.\n\nAda",
          recipient: usAddress("Conformance Recipient"),
          sender: senderAddress(),
          metadata: { conformance: tag() },
        };
        const sent = await context.sendOnce("/api/v1/handwritten", body, crypto.randomUUID());
        if (sent.status === 402 && sent.json?.error === "insufficient_credits")
          return notApplicable(INSUFFICIENT_CREDITS);
        const card = expectOk(sent, "the handwritten card");
        assert.equal(card.object, "handwritten");
        assert.equal(card.mailpiece_type, "handwritten");
        assert.equal(card.tracking_number, null, "handwritten mail has no carrier tracking");
        const read = expectJson(await client.send(`/api/v1/handwritten/${card.id}`), 200, "the card");
        assert.equal(read.id, card.id);
        assert.deepEqual(read.metadata, body.metadata, "the metadata is stored and returned");
        expectPdf(await client.send(`/api/v1/handwritten/${card.id}/document.pdf`), "the proof");
      },
    },

    "drafts are saved without spending and revised with immutable revisions": {
      requirement: spec3(
        ENDPOINTS,
        "GET, PATCH | /drafts/{draft_id} | read with immutable revisions; save new revision (invalidates approval)",
      ),
      gate: "keyed",
      run: async () => {
        const before = await context.balance();
        const first = tag();
        const saved = await saveDraft({ conformance: first });
        try {
          const { draft } = saved;
          assert.equal(draft.state, "draft");
          assert.equal(draft.current_revision, 1);
          const requested = expectJson(
            await post(`/api/v1/drafts/${draft.id}/request-approval`),
            200,
            "the approval request",
          );
          assert.equal(requested.state, "approval_requested");
          const revised = expectJson(
            await patch(`/api/v1/drafts/${draft.id}`, { metadata: { conformance: "second" } }),
            200,
            "the new revision",
          );
          assert.equal(revised.current_revision, 2, "a PATCH saves revision 2");
          const approval = revised.approval as Json | null;
          assert.ok(
            approval === null || (approval.state !== "pending" && approval.state !== "approved"),
            `a new revision invalidates the approval: ${JSON.stringify(approval)}`,
          );
          const old = expectJson(
            await client.send(`/api/v1/drafts/${draft.id}?revision=1`),
            200,
            "revision 1",
          );
          assert.deepEqual(
            ((old.revision as Json).body as Json).metadata,
            { conformance: first },
            "revision 1 stays as it was saved",
          );
          const after = await context.balance();
          assert.equal(after.available_cents, before.available_cents, "saving and revising spend nothing");
          assert.equal(after.reserved_cents, before.reserved_cents, "saving and revising reserve nothing");
        } finally {
          await saved.discard();
        }
      },
    },

    "an approved draft is released once: a second release answers the same order": {
      requirement: spec3(
        ENDPOINTS,
        "POST | /drafts/{draft_id}/request-approval, /withdraw, /discard, /refresh, /release | approval workflow; release sends the approved revision once, retries return the same order",
      ),
      gate: "approving",
      run: async () => {
        const saved = await saveDraft({ conformance: tag() });
        const { draft, quote } = saved;
        let released = false;
        try {
          const before = await context.balance();
          const poor = context.coverage(before, quote.price_cents as number);
          if (poor) return poor;
          expectJson(await post(`/api/v1/drafts/${draft.id}/request-approval`), 200, "the approval request");
          const workspace = await context.workspaceId();
          const approved = expectJson(
            await context.admin(`/admin/api/workspaces/${workspace}/approvals/${draft.id}/approve`, {}),
            200,
            "the approval",
          );
          assert.equal(approved.state, "approved", "the person's approval");
          const first = expectOk(await post(`/api/v1/drafts/${draft.id}/release`), "the release");
          released = true;
          assert.equal(first.idempotent_replay, false, "the first release makes the order");
          assert.equal(first.mailpiece_type, "letter", "the release sends the draft's letter");
          const second = expectOk(await post(`/api/v1/drafts/${draft.id}/release`), "the second release");
          assert.equal(second.id, first.id, "the second release answers the same order");
          assert.equal(second.idempotent_replay, true, "the second release is a replay");
          const after = await context.balance();
          assert.equal(
            after.available_cents,
            (before.available_cents as number) - (first.price_cents as number),
            "the price was reserved once",
          );
        } finally {
          if (!released) await saved.discard();
        }
      },
    },

    "approvals are expense summaries without addresses, documents or metadata": {
      requirement: spec3(
        ENDPOINTS,
        "GET | /approvals and /approvals/{draft_id} | expense-only summaries (no documents, addresses, metadata or tracking)",
      ),
      gate: "keyed",
      run: async () => {
        const secret = `merger-${tag()}`;
        const saved = await saveDraft({ project: secret });
        try {
          const { draft, quote, body } = saved;
          expectJson(await post(`/api/v1/drafts/${draft.id}/request-approval`), 200, "the approval request");
          const one = await client.send(`/api/v1/approvals/${draft.id}`);
          const summary = expectJson(one, 200, "the approval");
          assert.equal(summary.draft_id, draft.id);
          assert.ok(
            Number.isSafeInteger(summary.price_cents),
            "the summary shows the price in integer cents",
          );
          assert.equal(summary.price_cents, quote.price_cents, "the summary's price is the draft's");
          const listed = await client.send("/api/v1/approvals?state=pending&limit=100");
          const items = expectList(listed, "the approvals");
          const recipient = body.recipient as Json;
          for (const [what, answer] of [
            ["the approval", one],
            ["the approvals list", listed],
          ] as const) {
            for (const hidden of [
              secret,
              recipient.name,
              recipient.line1,
              recipient.postal_code,
              quote.document_id,
            ]) {
              assert.ok(!answer.text.includes(String(hidden)), `${what} does not show ${String(hidden)}`);
            }
          }
          for (const item of [summary, ...items]) {
            for (const field of Object.keys(item)) {
              assert.ok(
                !/recipient|sender|address|metadata|document|tracking/.test(field),
                `an approval summary has no ${field}`,
              );
            }
          }
        } finally {
          await saved.discard();
        }
      },
    },
  } satisfies Record<string, V1Check>;
}

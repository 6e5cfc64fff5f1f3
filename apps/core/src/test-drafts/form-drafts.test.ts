import { mortgageFormFields as mortgageAnswers } from "@mailpiece/conformance";
import { describe, expect, it } from "vitest";
import { key, marked, pageTexts, previewBytes, refusal, testDrafts } from "./test-drafts.fixture.ts";

const MORTGAGE = "mortgage-servicing-error-packet";

describe("form drafts", () => {
  it("builds the workflow's packet with TEST MODE on every page, quoted at zero with its certified mail", async () => {
    const { service } = testDrafts();
    const draft = await service.createFormDraft({
      idempotencyKey: key(1),
      body: { workflow_slug: MORTGAGE, answers: mortgageAnswers(), simulate: "returned" },
    });
    expect(draft).toMatchObject({
      object: "test_form_draft",
      source: "form",
      workflow_slug: MORTGAGE,
      sender: { name: "Jordan Avery Public" },
      recipient: { name: "Acme Mortgage Servicing, Notice of Error Department" },
      certified: true,
      simulate: "returned",
      price_cents: 0,
      status: "queued",
    });
    expect(draft.quote.line_items.map((item) => item.code)).toEqual([
      "letter_base",
      "bw_pages",
      "certified_mail",
    ]);
    expect(draft.quote.line_items.every((item) => item.amount_cents === 0)).toBe(true);
    const pages = pageTexts(await previewBytes(service, draft.preview_pdf_path));
    expect(pages).toHaveLength(draft.page_count);
    expect(pages.filter(marked)).toHaveLength(draft.page_count);
    // The window shows the form's own sender and recipient, with their addresses.
    expect(pages[0]).toContain("Jordan Avery Public");
    expect(pages[0]).toContain("12 Elm Street");
    expect(pages[0]).toContain("PO Box 4000");
  });

  it("finds a workflow by its alias, and answers the same draft to a retry", async () => {
    const { service } = testDrafts();
    const body = { workflow_slug: "respa-notice-of-error", answers: mortgageAnswers() };
    const first = await service.createFormDraft({ idempotencyKey: key(1), body });
    expect(first.workflow_slug).toBe(MORTGAGE);
    const again = await service.createFormDraft({ idempotencyKey: key(1), body });
    expect(again).toMatchObject({ id: first.id, idempotent_replay: true });
  });

  it("refuses answers the workflow refuses: every issue at answers.<field>, nothing stored", async () => {
    const { service, keys } = testDrafts();
    const answers = { ...mortgageAnswers(), mortgage_account_number: "1", payment_enclosed: "Yes" };
    delete (answers as Record<string, unknown>).sender_name;
    const error = await refusal(
      service.createFormDraft({ idempotencyKey: key(1), body: { workflow_slug: MORTGAGE, answers } }),
    );
    expect(error.code).toBe("validation_failed");
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toContain("answers.sender_name");
    expect(paths).toContain("answers.mortgage_account_number");
    expect(paths.every((path) => path.startsWith("answers"))).toBe(true);
    expect(await keys()).toEqual([]);
  });

  it("refuses an unknown workflow, a body of the wrong shape and bad attachments", async () => {
    const { service, keys } = testDrafts();
    const unknown = await refusal(
      service.createFormDraft({
        idempotencyKey: key(1),
        body: { workflow_slug: "no-such-form", answers: {} },
      }),
    );
    expect(unknown.issues.map((issue) => `${issue.path} ${issue.code}`)).toEqual([
      "workflow_slug form_unknown",
    ]);
    const shape = await refusal(
      service.createFormDraft({
        idempotencyKey: key(2),
        body: { workflow_slug: 7, answers: [], attachments: {}, letter_text: "x" },
      }),
    );
    expect(shape.issues.map((issue) => `${issue.path} ${issue.code}`)).toEqual([
      "letter_text unknown_field",
      "workflow_slug invalid_type",
      "answers invalid_type",
      "attachments invalid_type",
    ]);
    const missing = await refusal(service.createFormDraft({ idempotencyKey: key(3), body: {} }));
    expect(missing.issues.map((issue) => `${issue.path} ${issue.code}`)).toEqual([
      "workflow_slug required",
      "answers required",
    ]);
    const attachment = await refusal(
      service.createFormDraft({
        idempotencyKey: key(4),
        body: {
          workflow_slug: MORTGAGE,
          answers: mortgageAnswers(),
          attachments: [{ id: "supporting_records", file_name: "a.pdf", base64: "bm90IGEgcGRm" }],
        },
      }),
    );
    expect(attachment.code).toBe("validation_failed");
    expect(attachment.issues.every((issue) => issue.path.startsWith("attachments[0]"))).toBe(true);
    expect(await keys()).toEqual([]);
  });
});

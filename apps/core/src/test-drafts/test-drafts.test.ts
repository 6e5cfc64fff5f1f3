import { createInlinePdfWork, PdfWorkError } from "@mailpiece/pdf-work";
import { describe, expect, it } from "vitest";
import { documentWorkBusy } from "../pdf-work.ts";
import { lifecycleAt } from "./lifecycle.ts";
import {
  busyPdfWork,
  DAY,
  HOUR,
  key,
  MINUTE,
  marked,
  PREVIEW_TTL_MS,
  pageTexts,
  previewBytes,
  refusal,
  START,
  testDrafts,
} from "./test-drafts.fixture.ts";

const LETTER = {
  letter_text: "Dear Ana,\n\nThis is a test of the letter flow.\n\nKind regards,\nJordan",
  sender: { name: "Jordan Avery" },
  recipient: { name: "Ana Rivera" },
};

describe("letter_text drafts", () => {
  it("typesets the letter with the names in the window and TEST MODE on every page, at no cost", async () => {
    const { service } = testDrafts();
    const draft = await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    expect(draft).toMatchObject({
      id: "tdr_00000000000040008000000000000001",
      object: "test_mail_draft",
      order_id: "tord_00000000000040008000000000000001",
      mode: "test",
      status: "queued",
      source: "letter_text",
      mailpiece_type: "letter",
      sender: { name: "Jordan Avery" },
      recipient: { name: "Ana Rivera" },
      mail_class: "standard",
      certified: false,
      simulate: "delivered",
      price_cents: 0,
      currency: "usd",
      tracking_number: null,
      tracking_url: null,
      warnings: [],
      idempotent_replay: false,
      created_at: "2026-03-10T09:00:00.000Z",
    });
    expect(draft.quote).toMatchObject({ mode: "test", price_cents: 0, currency: "usd" });
    expect(draft.quote.line_items.map((item) => [item.code, item.quantity, item.amount_cents])).toEqual([
      ["letter_base", 1, 0],
      ["bw_pages", draft.page_count, 0],
    ]);
    expect(draft.events.map((event) => event.type)).toEqual(["mail.order.created", "mail.order.paid"]);
    expect(draft.preview_pdf_path).toMatch(
      /^\/v1\/test\/previews\/[0-9a-f]{64}\.pdf\?expires=\d+&sig=[0-9a-f]{64}$/,
    );
    expect(Date.parse(draft.preview_expires_at ?? "")).toBeGreaterThanOrEqual(START + PREVIEW_TTL_MS);

    const pages = pageTexts(await previewBytes(service, draft.preview_pdf_path));
    expect(pages).toHaveLength(draft.page_count);
    for (const page of pages) expect(marked(page)).toBe(true);
    expect(pages[0]).toContain("Jordan Avery");
    expect(pages[0]).toContain("Ana Rivera");
    expect(pages[0]).toContain("This is a test of the letter flow.");
  });

  it("watermarks every page of a letter of several pages", async () => {
    const { service } = testDrafts();
    const body = Array.from({ length: 150 }, (_, i) => `Line ${i + 1} of a long test letter.`).join("\n");
    const draft = await service.createMailDraft({
      idempotencyKey: key(1),
      body: { ...LETTER, letter_text: body },
    });
    expect(draft.page_count).toBeGreaterThanOrEqual(3);
    expect(draft.quote.line_items.find((item) => item.code === "bw_pages")?.quantity).toBe(draft.page_count);
    const pages = pageTexts(await previewBytes(service, draft.preview_pdf_path));
    expect(pages).toHaveLength(draft.page_count);
    expect(pages.filter(marked)).toHaveLength(draft.page_count);
  });

  it("quotes certified, priority and express letters at zero, with their line items", async () => {
    const { service } = testDrafts();
    const codes = async (mail_class: string, n: number) => {
      const draft = await service.createMailDraft({
        idempotencyKey: key(n),
        body: { ...LETTER, mail_class },
      });
      expect(draft.quote.line_items.every((item) => item.unit_cents === 0 && item.amount_cents === 0)).toBe(
        true,
      );
      expect(draft.price_cents).toBe(0);
      return { codes: draft.quote.line_items.map((item) => item.code), certified: draft.certified };
    };
    expect(await codes("certified", 1)).toEqual({
      codes: ["letter_base", "bw_pages", "certified_mail"],
      certified: true,
    });
    expect(await codes("usps_priority", 2)).toEqual({
      codes: ["letter_base", "bw_pages", "priority_mail"],
      certified: false,
    });
    expect(await codes("carrier_express", 3)).toEqual({
      codes: ["letter_base", "bw_pages", "express_mail"],
      certified: false,
    });
  });

  it("stores only the draft, its key, its PDF and the client's count: nothing is charged or sent", async () => {
    const { service, keys, blobs } = testDrafts();
    const draft = await service.createMailDraft({
      idempotencyKey: key(1),
      body: LETTER,
      clientKey: "203.0.113.9",
    });
    const stored = await keys();
    expect(stored.filter((name) => !name.startsWith("ratelimit:test_drafts:"))).toEqual([
      "test-drafts:draft:00000000000040008000000000000001",
      `test-drafts:idem:request:${key(1)}`,
    ]);
    const sha = /previews\/([0-9a-f]{64})\.pdf/.exec(draft.preview_pdf_path ?? "")?.[1];
    expect(await blobs.head(`documents:${sha}`)).toMatchObject({ contentType: "application/pdf" });
  });
});

describe("the fake lifecycle", () => {
  it("advances with the clock: a later GET shows more events, with the same ids", async () => {
    const { service, clock } = testDrafts();
    const draft = await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    const first = await service.getOrder(draft.order_id);
    expect(first).toMatchObject({
      id: draft.order_id,
      object: "test_order",
      draft_id: draft.id,
      status: "queued",
      events: draft.events,
      next_event_at: "2026-03-10T09:01:00.000Z",
    });
    clock.advance(5 * MINUTE);
    const accepted = await service.getOrder(draft.order_id);
    expect(accepted?.status).toBe("accepted");
    expect(accepted?.events.slice(0, 2)).toEqual(draft.events);
    expect(accepted?.tracking_number).toMatch(/^TEST\d{20}$/);
    expect(accepted?.tracking_status).toBe("pre_transit");
    clock.advance(3 * DAY);
    const delivered = await service.getOrder(draft.id);
    expect(delivered?.id).toBe(draft.order_id);
    expect(delivered?.status).toBe("delivered");
    expect(delivered?.events.map((event) => event.type)).toEqual([
      "mail.order.created",
      "mail.order.paid",
      "mail.order.submitted",
      "mail.order.provider_accepted",
      "mail.order.mailed",
      "mail.order.tracking_updated",
      "mail.order.tracking_updated",
      "mail.order.delivered",
    ]);
    expect(delivered?.events.slice(0, accepted?.events.length)).toEqual(accepted?.events);
    expect(delivered?.next_event_at).toBeNull();
    expect(delivered?.tracking_number).toBe(accepted?.tracking_number);
  });

  it("follows the failure asked for with simulate", async () => {
    const { service, clock } = testDrafts();
    const finals: Record<string, string | undefined> = {};
    for (const [n, simulate] of (["provider_rejected", "returned", "failed"] as const).entries()) {
      const draft = await service.createMailDraft({
        idempotencyKey: key(n + 1),
        body: { ...LETTER, simulate },
      });
      expect(draft.simulate).toBe(simulate);
      const expected = lifecycleAt(
        { order_id: draft.order_id, created_at: START, simulate },
        START + 10 * DAY,
      );
      clock.set(START + 10 * DAY);
      const order = await service.getOrder(draft.order_id);
      expect(order?.events).toEqual(expected.events);
      finals[simulate] = order?.status;
      clock.set(START);
    }
    expect(finals).toEqual({ provider_rejected: "failed", returned: "returned", failed: "failed" });
  });

  it("answers undefined for ids it does not know", async () => {
    const { service } = testDrafts();
    await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    for (const id of [
      "tord_00000000000040008000000000000002",
      "tdr_0000000000004000800000000000000",
      "ord_00000000000040008000000000000001",
      "TORD_00000000000040008000000000000001",
      "",
      "../test-drafts:draft:00000000000040008000000000000001",
    ]) {
      expect(await service.getOrder(id)).toBeUndefined();
    }
  });
});

describe("Idempotency-Key", () => {
  it("is the first error reported when missing or not a UUID, before the body is looked at", async () => {
    const { service, keys } = testDrafts();
    for (const header of [
      undefined,
      null,
      "",
      "   ",
      "not-a-uuid",
      `${key(1)}x`,
      "6f1f5e2b7c034d0e9a55000000000001",
    ]) {
      for (const body of [LETTER, { nonsense: true }, "not even an object"]) {
        const error = await refusal(
          service.createMailDraft({ idempotencyKey: header, body, clientKey: "198.51.100.1" }),
        );
        expect(error.code).toBe("idempotency_key_required");
        expect(error.message).toMatch(/Idempotency-Key/);
        const formError = await refusal(service.createFormDraft({ idempotencyKey: header, body }));
        expect(formError.code).toBe("idempotency_key_required");
      }
    }
    expect(await keys()).toEqual([]);
  });

  it("answers the same draft to the same key and body, without making it again", async () => {
    const { service, clock, keys } = testDrafts();
    const first = await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    const stored = await keys();
    clock.advance(HOUR);
    // Key order and the key's case do not matter.
    const reordered = { recipient: LETTER.recipient, sender: LETTER.sender, letter_text: LETTER.letter_text };
    const again = await service.createMailDraft({ idempotencyKey: key(1).toUpperCase(), body: reordered });
    expect(again.id).toBe(first.id);
    expect(again.idempotent_replay).toBe(true);
    expect(again.created_at).toBe(first.created_at);
    expect(again.status).toBe("in_transit");
    expect(await keys()).toEqual(stored);
  });

  it("refuses the same key with another body (request_id_conflict), changing nothing", async () => {
    const { service, keys } = testDrafts();
    await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    const stored = await keys();
    const error = await refusal(
      service.createMailDraft({
        idempotencyKey: key(1),
        body: { ...LETTER, letter_text: "Another letter." },
      }),
    );
    expect(error.code).toBe("request_id_conflict");
    expect(error.message).toMatch(/Idempotency-Key/);
    // A form draft under a mail draft's key is another request too.
    const form = await refusal(
      service.createFormDraft({ idempotencyKey: key(1), body: { workflow_slug: "x", answers: {} } }),
    );
    expect(form.code).toBe("request_id_conflict");
    expect(await keys()).toEqual(stored);
  });

  it("two requests racing with one key and body make one draft", async () => {
    const { service, keys } = testDrafts();
    const [a, b] = await Promise.all([
      service.createMailDraft({ idempotencyKey: key(1), body: LETTER }),
      service.createMailDraft({ idempotencyKey: key(1), body: LETTER }),
    ]);
    expect(a.id).toBe(b.id);
    expect([a.idempotent_replay, b.idempotent_replay].sort()).toEqual([false, true]);
    expect((await keys()).filter((name) => name.startsWith("test-drafts:draft:"))).toHaveLength(1);
  });
});

describe("refusals", () => {
  const cases: [string, unknown, string[]][] = [
    ["not an object", [LETTER], [" invalid_type"]],
    ["no document", { sender: LETTER.sender, recipient: LETTER.recipient }, [" document_source_required"]],
    [
      "both documents",
      { ...LETTER, pdf_url: "https://files.example.com/a.pdf" },
      [" document_source_conflict"],
    ],
    ["a letter without names", { letter_text: "Hi" }, ["sender required", "recipient required"]],
    [
      "bad names",
      { ...LETTER, sender: { name: "" }, recipient: { name: "Ana\nRivera", street: "1 Main St" } },
      ["sender.name too_short", "recipient.street unknown_field", "recipient.name invalid_format"],
    ],
    ["a long name", { ...LETTER, sender: { name: "x".repeat(256) } }, ["sender.name too_long"]],
    ["a blank letter", { ...LETTER, letter_text: " \n " }, ["letter_text too_short"]],
    ["a letter too long", { ...LETTER, letter_text: "x".repeat(20_001) }, ["letter_text too_long"]],
    ["an http URL", { pdf_url: "http://files.example.com/a.pdf" }, ["pdf_url pdf_url_not_https"]],
    ["not a URL", { pdf_url: "files.example.com/a.pdf" }, ["pdf_url invalid_format"]],
    ["a URL that is not a string", { pdf_url: 7 }, ["pdf_url invalid_type"]],
    [
      "unknown values and fields",
      { ...LETTER, mail_class: "overnight", simulate: "lost", color: true },
      ["color unknown_field", "mail_class invalid_enum", "simulate invalid_enum"],
    ],
  ];
  for (const [name, body, expected] of cases) {
    it(`${name}: validation_failed with every issue at its path, and nothing stored`, async () => {
      const { service, keys } = testDrafts();
      const error = await refusal(service.createMailDraft({ idempotencyKey: key(1), body }));
      expect(error.code).toBe("validation_failed");
      const issues = error.issues;
      expect(issues.map((issue) => `${issue.path} ${issue.code}`)).toEqual(expected);
      for (const issue of issues) expect(issue.message.length).toBeGreaterThan(10);
      expect(await keys()).toEqual([]);
    });
  }

  it("limits each client's drafts, counting in the store; a refused request stores nothing else", async () => {
    const { service, keys } = testDrafts({ rateLimit: { limit: 2, windowMs: HOUR } });
    await service.createMailDraft({ idempotencyKey: key(1), body: LETTER, clientKey: "203.0.113.9" });
    await service.createMailDraft({ idempotencyKey: key(2), body: LETTER, clientKey: "203.0.113.9" });
    const stored = (await keys()).filter((name) => name.startsWith("test-drafts:"));
    const error = await refusal(
      service.createMailDraft({ idempotencyKey: key(3), body: LETTER, clientKey: "203.0.113.9" }),
    );
    expect(error).toMatchObject({ code: "rate_limited" });
    expect((error as unknown as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    expect((await keys()).filter((name) => name.startsWith("test-drafts:"))).toEqual(stored);
    // Another client has its own budget; an unnamed caller (an embedding) is not limited.
    await service.createMailDraft({ idempotencyKey: key(4), body: LETTER, clientKey: "198.51.100.7" });
    await service.createMailDraft({ idempotencyKey: key(5), body: LETTER });
  });

  it("busy document workers are thrown on as busy (503 with Retry-After at the surface); nothing is stored", async () => {
    const busy = new PdfWorkError("pdf_work_busy", "busy", { retryAfterSeconds: 4 });
    const { service, keys } = testDrafts({ pdf: busyPdfWork(busy) });
    const error = await refusal(service.createMailDraft({ idempotencyKey: key(1), body: LETTER }));
    expect(documentWorkBusy(error)).toEqual({ retryAfterSeconds: 4 });
    expect(await keys()).toEqual([]);
  });

  it("a letter too complex for the deadline is an issue at letter_text", async () => {
    const late = new PdfWorkError("pdf_work_deadline", "late");
    const { service } = testDrafts({ pdf: busyPdfWork(late) });
    const error = await refusal(service.createMailDraft({ idempotencyKey: key(1), body: LETTER }));
    expect(error.code).toBe("validation_failed");
    expect(error.issues).toMatchObject([{ path: "letter_text", code: "document_too_complex" }]);
  });
});

describe("preview links", () => {
  it("expire, refuse tampering, and a later GET signs a fresh one for the same PDF", async () => {
    const { service, clock } = testDrafts({ pdf: createInlinePdfWork() });
    const draft = await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    const url = new URL(draft.preview_pdf_path ?? "", "http://127.0.0.1");
    const sha = url.pathname.slice("/v1/test/previews/".length, -".pdf".length);
    const [expires, sig] = [url.searchParams.get("expires"), url.searchParams.get("sig")];
    const tampered = `${sig?.slice(0, -1)}${sig?.endsWith("0") ? "1" : "0"}`;
    expect((await refusal(service.openPreview(sha, expires, tampered))).code).toBe("preview_link_invalid");
    expect((await refusal(service.openPreview(sha, String(Number(expires) + 60), sig))).code).toBe(
      "preview_link_invalid",
    );
    clock.advance(PREVIEW_TTL_MS + 2 * MINUTE);
    const expired = await refusal(service.openPreview(sha, expires, sig));
    expect(expired.code).toBe("preview_link_invalid");
    expect(expired.message).toMatch(/expired/);
    const later = await service.getOrder(draft.order_id);
    expect(later?.preview_pdf_path).not.toBe(draft.preview_pdf_path);
    expect(later?.preview_pdf_path).toContain(`/v1/test/previews/${sha}.pdf?`);
    const bytes = await previewBytes(service, later?.preview_pdf_path ?? null);
    expect(pageTexts(bytes).every(marked)).toBe(true);
  });

  it("without a signer, drafts carry no link and no link opens", async () => {
    const { service } = testDrafts({ previews: undefined });
    const draft = await service.createMailDraft({ idempotencyKey: key(1), body: LETTER });
    expect(draft.preview_pdf_path).toBeNull();
    expect(draft.preview_expires_at).toBeNull();
    const error = await refusal(service.openPreview("a".repeat(64), "9999999999", "b".repeat(64)));
    expect(error.code).toBe("preview_link_invalid");
  });
});

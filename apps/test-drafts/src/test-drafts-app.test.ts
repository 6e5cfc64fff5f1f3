import { mortgageFormFields as mortgageAnswers } from "@mailpiece/conformance";
import { PdfWorkError } from "@mailpiece/pdf-work";
import { afterEach, describe, expect, it } from "vitest";
import {
  busyPdfWork,
  clientPdf,
  DAY,
  key,
  marked,
  pageTexts,
  startPdfServer,
} from "../../core/src/test-drafts/test-drafts.fixture.ts";
import { startTestDraftsServer, type TestDraftsServer } from "./test-server.fixture.ts";

let server: TestDraftsServer | undefined;

afterEach(async () => {
  await server?.close();
  expect(server?.unexpected ?? []).toEqual([]);
  server = undefined;
});

const LETTER = {
  letter_text: "Dear Ana,\n\nThis letter only tests the flow.\n\nJordan",
  sender: { name: "Jordan Avery" },
  recipient: { name: "Ana Rivera" },
};

interface Answer {
  id: string;
  object: string;
  order_id: string;
  status: string;
  mode: string;
  price_cents: number;
  quote: { price_cents: number; currency: string; line_items: { code: string; amount_cents: number }[] };
  preview_pdf_url: string | null;
  events: { id: string; type: string; created_at: string; data: Record<string, unknown> }[];
  idempotent_replay?: boolean;
}

async function errorOf(response: Response) {
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as {
    error: string;
    message: string;
    issues?: { path: string; code: string; message: string }[];
    retry_after_seconds?: number;
  };
}

/** The pages of the PDF at a preview URL, fetched over HTTP. */
async function previewPages(url: string | null): Promise<string[]> {
  expect(url).not.toBeNull();
  const response = await fetch(url!);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/pdf");
  expect(response.headers.get("cache-control")).toBe("private, no-store");
  return pageTexts(new Uint8Array(await response.arrayBuffer()));
}

describe("POST /v1/test/mail_drafts", () => {
  it("answers 201 with the draft: a zero-dollar quote, fake events and a watermarked preview", async () => {
    server = await startTestDraftsServer();
    const response = await server.post("/mail_drafts", key(1), LETTER);
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const draft = (await response.json()) as Answer;
    expect(draft).toMatchObject({
      id: "tdr_00000000000040008000000000000001",
      object: "test_mail_draft",
      order_id: "tord_00000000000040008000000000000001",
      mode: "test",
      status: "queued",
      price_cents: 0,
      idempotent_replay: false,
    });
    expect(draft.quote).toMatchObject({ price_cents: 0, currency: "usd" });
    expect(draft.events.map((event) => event.type)).toEqual(["mail.order.created", "mail.order.paid"]);
    expect(draft).not.toHaveProperty("preview_pdf_path");
    expect(draft.preview_pdf_url?.startsWith(`${server.base}/v1/test/previews/`)).toBe(true);
    const pages = await previewPages(draft.preview_pdf_url);
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.every(marked)).toBe(true);
    expect(pages[0]).toContain("Ana Rivera");
  });

  it("answers a retry with the same key and body 200 with the same draft; another body is 409", async () => {
    server = await startTestDraftsServer();
    const first = (await (await server.post("/mail_drafts", key(1), LETTER)).json()) as Answer;
    const again = await server.post("/mail_drafts", key(1), LETTER);
    expect(again.status).toBe(200);
    expect((await again.json()) as Answer).toMatchObject({ id: first.id, idempotent_replay: true });
    const other = await server.post("/mail_drafts", key(1), { ...LETTER, simulate: "failed" });
    expect(other.status).toBe(409);
    expect((await errorOf(other)).error).toBe("idempotency_conflict");
  });

  it("reports a missing or malformed Idempotency-Key first: before the media type, the JSON and the body", async () => {
    server = await startTestDraftsServer();
    for (const header of [undefined, "", "12345", "not-a-uuid-at-all"]) {
      for (const [body, type] of [
        [LETTER, "application/json"],
        ["{not json", "application/json"],
        ["letter_text=hi", "application/x-www-form-urlencoded"],
        [{ unknown: 1 }, "application/json"],
      ] as const) {
        const response = await server.post("/mail_drafts", header, body, { "content-type": type });
        expect(response.status).toBe(400);
        const error = await errorOf(response);
        expect(error.error).toBe("idempotency_key_required");
        expect(error.message).toMatch(/Idempotency-Key/);
      }
    }
    const form = await server.post("/form_drafts", undefined, { workflow_slug: "x", answers: {} });
    expect((await errorOf(form)).error).toBe("idempotency_key_required");
    expect(await server.keys()).toEqual([]);
  });

  it("refuses bodies it cannot read: 415, 400 invalid_json, 413", async () => {
    server = await startTestDraftsServer({ app: { maxBodyBytes: 1024 } });
    const type = await server.post("/mail_drafts", key(1), "letter_text=hi", {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(type.status).toBe(415);
    expect((await errorOf(type)).error).toBe("unsupported_media_type");
    for (const body of ["{not json", "", "   "]) {
      const response = await server.post("/mail_drafts", key(1), body);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).error).toBe("invalid_json");
    }
    const large = await server.post("/mail_drafts", key(1), { ...LETTER, letter_text: "x".repeat(2000) });
    expect(large.status).toBe(413);
    expect((await errorOf(large)).error).toBe("payload_too_large");
    expect(await server.keys()).toEqual([]);
  });

  it("answers 422 with every issue at its path", async () => {
    server = await startTestDraftsServer();
    const response = await server.post("/mail_drafts", key(1), {
      letter_text: "Hello",
      sender: { name: "" },
      mail_class: "overnight",
    });
    expect(response.status).toBe(422);
    const error = await errorOf(response);
    expect(error.error).toBe("validation_failed");
    expect(error.issues?.map((issue) => `${issue.path} ${issue.code}`)).toEqual([
      "sender.name too_short",
      "recipient required",
      "mail_class invalid_enum",
    ]);
  });

  it("limits each client: 429 with Retry-After and retry_after_seconds", async () => {
    server = await startTestDraftsServer({ deps: { rateLimit: { limit: 2, windowMs: 60 * 60 * 1000 } } });
    expect((await server.post("/mail_drafts", key(1), LETTER)).status).toBe(201);
    expect((await server.post("/mail_drafts", key(2), LETTER)).status).toBe(201);
    const limited = await server.post("/mail_drafts", key(3), LETTER);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await errorOf(limited);
    expect(error.error).toBe("rate_limited");
    expect(error.retry_after_seconds).toBe(Number(limited.headers.get("retry-after")));
  });

  it("answers 503 service_busy with Retry-After when the document workers are full", async () => {
    const busy = new PdfWorkError("pdf_work_busy", "busy", { retryAfterSeconds: 3 });
    server = await startTestDraftsServer({ deps: { pdf: busyPdfWork(busy) } });
    const response = await server.post("/mail_drafts", key(1), LETTER);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await errorOf(response)).toEqual({
      error: "service_busy",
      message: "Documents are being prepared for other requests; nothing was stored. Try again in 3 s.",
    });
    // The attempt counts against the client's limit; nothing of a draft is stored.
    expect((await server.keys()).filter((name) => !name.startsWith("ratelimit:"))).toEqual([]);
  });

  it("downloads a pdf_url from an allowed HTTPS host (a local server) and watermarks every page", async () => {
    const files = await startPdfServer({ "/two.pdf": { body: clientPdf(2) } });
    try {
      server = await startTestDraftsServer({ deps: { fetchDocument: files.fetchDocument } });
      const response = await server.post("/mail_drafts", key(1), {
        pdf_url: files.url("/two.pdf"),
        mail_class: "certified",
      });
      expect(response.status).toBe(201);
      const draft = (await response.json()) as Answer;
      expect(draft.quote.line_items.map((item) => item.code)).toContain("certified_mail");
      const pages = await previewPages(draft.preview_pdf_url);
      expect(pages).toHaveLength(2);
      expect(pages.every(marked)).toBe(true);
      expect(pages[1]).toContain("CLIENT PAGE 2");
    } finally {
      await files.close();
    }
  });
});

describe("POST /v1/test/form_drafts", () => {
  it("answers 201 with the watermarked packet, and 422 with issues at answers.<field>", async () => {
    server = await startTestDraftsServer();
    const created = await server.post("/form_drafts", key(1), {
      workflow_slug: "mortgage-servicing-error-packet",
      answers: mortgageAnswers(),
    });
    expect(created.status).toBe(201);
    const draft = (await created.json()) as Answer;
    expect(draft.object).toBe("test_form_draft");
    expect((await previewPages(draft.preview_pdf_url)).every(marked)).toBe(true);
    const refused = await server.post("/form_drafts", key(2), {
      workflow_slug: "mortgage-servicing-error-packet",
      answers: { ...mortgageAnswers(), mortgage_account_number: "1" },
    });
    expect(refused.status).toBe(422);
    expect((await errorOf(refused)).issues?.map((issue) => issue.path)).toEqual([
      "answers.mortgage_account_number",
    ]);
  });
});

describe("GET /v1/test/orders/{id}", () => {
  it("shows more fake events as time passes, by the order's id or the draft's", async () => {
    server = await startTestDraftsServer();
    const draft = (await (
      await server.post("/mail_drafts", key(1), { ...LETTER, simulate: "returned" })
    ).json()) as Answer;
    const now = (await (await server.call(`/orders/${draft.order_id}`)).json()) as Answer;
    expect(now).toMatchObject({
      id: draft.order_id,
      object: "test_order",
      status: "queued",
      events: draft.events,
    });
    server.clock.advance(10 * DAY);
    const later = await server.call(`/orders/${draft.id}`);
    expect(later.status).toBe(200);
    const order = (await later.json()) as Answer;
    expect(order.status).toBe("returned");
    expect(order.events.slice(0, 2)).toEqual(draft.events);
    expect(order.events.map((event) => event.type)).toContain("mail.order.delivery_attempted");
    expect((await server.call(`/orders/${draft.order_id}`, { method: "HEAD" })).status).toBe(200);
  });

  it("is 404 for an unknown id", async () => {
    server = await startTestDraftsServer();
    for (const id of ["tord_00000000000040008000000000000009", "nope", "%2e%2e"]) {
      const response = await server.call(`/orders/${id}`);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).error).toBe("not_found");
    }
  });
});

describe("preview links", () => {
  it("refuse a tampered or expired link with 403 preview_link_invalid; the order answers a fresh one", async () => {
    server = await startTestDraftsServer();
    const draft = (await (await server.post("/mail_drafts", key(1), LETTER)).json()) as Answer;
    const url = new URL(draft.preview_pdf_url!);
    url.searchParams.set("sig", "0".repeat(64));
    const tampered = await fetch(url);
    expect(tampered.status).toBe(403);
    expect((await errorOf(tampered)).error).toBe("preview_link_invalid");
    server.clock.advance(DAY);
    const expired = await fetch(draft.preview_pdf_url!);
    expect(expired.status).toBe(403);
    expect((await errorOf(expired)).message).toMatch(/expired/);
    const order = (await (await server.call(`/orders/${draft.order_id}`)).json()) as Answer;
    expect((await previewPages(order.preview_pdf_url)).every(marked)).toBe(true);
  });
});

describe("routing and errors", () => {
  it("answers 405 with Allow for another method, 204 to OPTIONS and 404 for unknown paths", async () => {
    server = await startTestDraftsServer();
    const wrong = await server.call("/mail_drafts");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
    expect((await errorOf(wrong)).error).toBe("method_not_allowed");
    const remove = await server.call("/orders/tord_x", { method: "DELETE" });
    expect(remove.status).toBe(405);
    expect(remove.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    const options = await server.call("/form_drafts", { method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("POST, OPTIONS");
    for (const path of ["", "/", "/letters", "/orders", "/mail_drafts/x"]) {
      const response = await server.call(path);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).error).toBe("not_found");
    }
  });

  it("needs no credential and ignores one", async () => {
    server = await startTestDraftsServer();
    const response = await server.post("/mail_drafts", key(1), LETTER, {
      authorization: "Bearer svc_test_whatever",
    });
    expect(response.status).toBe(201);
  });

  it("answers an unexpected failure 500 internal_error, revealing nothing, and reports it", async () => {
    server = await startTestDraftsServer({
      wrap: (service) => ({
        ...service,
        getOrder: async () => {
          throw new Error("database password is hunter2");
        },
      }),
    });
    const response = await server.call("/orders/tord_00000000000040008000000000000001");
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error).toEqual({
      error: "internal_error",
      message:
        "Something failed on our side; nothing was stored. Try again later; if it persists, contact support.",
    });
    expect(server.unexpected).toHaveLength(1);
    server.unexpected.length = 0;
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultCoreConfig } from "../config.ts";
import {
  clientPdf,
  key,
  marked,
  pageTexts,
  previewBytes,
  refusal,
  startPdfServer,
  testDrafts,
} from "./test-drafts.fixture.ts";

let files: Awaited<ReturnType<typeof startPdfServer>>;

beforeAll(async () => {
  files = await startPdfServer({
    "/three-pages.pdf": { body: clientPdf(3) },
    "/a4.pdf": { body: clientPdf(1, [595.28, 841.89]) },
    "/many-pages.pdf": { body: clientPdf(5) },
    "/not-a-pdf.pdf": { body: "<html>hello</html>" },
    "/gone.pdf": { status: 410, body: "gone" },
  });
});

afterAll(() => files.close());

const issuesOf = async (promise: Promise<unknown>) =>
  (await refusal(promise)).issues.map((issue) => `${issue.path} ${issue.code}`);

describe("pdf_url drafts", () => {
  it("fetches the PDF with the deployment's fetcher, checks it and watermarks every page", async () => {
    const { service } = testDrafts({ fetchDocument: files.fetchDocument });
    const draft = await service.createMailDraft({
      idempotencyKey: key(1),
      body: { pdf_url: files.url("/three-pages.pdf"), mail_class: "certified" },
    });
    expect(draft).toMatchObject({
      source: "pdf_url",
      page_count: 3,
      mail_class: "certified",
      certified: true,
      sender: null,
      recipient: null,
      price_cents: 0,
    });
    expect(draft.quote.line_items.map((item) => [item.code, item.quantity])).toEqual([
      ["letter_base", 1],
      ["bw_pages", 3],
      ["certified_mail", 1],
    ]);
    const pages = pageTexts(await previewBytes(service, draft.preview_pdf_path));
    expect(pages).toHaveLength(3);
    pages.forEach((page, index) => {
      expect(marked(page)).toBe(true);
      expect(page).toContain(`CLIENT PAGE ${index + 1}`);
    });
    expect(files.requests).toContain("/three-pages.pdf");
  });

  it("refuses what the letter preflight refuses, at pdf_url", async () => {
    const { service, keys } = testDrafts({
      fetchDocument: files.fetchDocument,
      config: defaultCoreConfig({ maxPdfPages: 4 }),
    });
    const draft = (path: string, n: number) =>
      service.createMailDraft({ idempotencyKey: key(n), body: { pdf_url: files.url(path) } });
    expect(await issuesOf(draft("/a4.pdf", 1))).toEqual(["pdf_url pdf_page_size_unsupported"]);
    expect(await issuesOf(draft("/many-pages.pdf", 2))).toEqual(["pdf_url pdf_too_many_pages"]);
    expect(await issuesOf(draft("/not-a-pdf.pdf", 3))).toEqual(["pdf_url pdf_unreadable"]);
    expect(await issuesOf(draft("/gone.pdf", 4))).toEqual(["pdf_url pdf_download_failed"]);
    expect(await keys()).toEqual([]);
  });

  it("refuses a host the deployment does not allow, and every URL when it downloads none", async () => {
    const allowing = testDrafts({ fetchDocument: files.fetchDocument });
    const other = await refusal(
      allowing.service.createMailDraft({
        idempotencyKey: key(1),
        body: { pdf_url: "https://elsewhere.example.test/a.pdf" },
      }),
    );
    expect(other.issues).toEqual([
      {
        path: "pdf_url",
        code: "pdf_host_not_allowed",
        message:
          "PDFs are downloaded only from the HTTPS hosts this deployment allows; elsewhere.example.test is not one of them.",
      },
    ]);
    const none = testDrafts();
    expect(
      await issuesOf(
        none.service.createMailDraft({
          idempotencyKey: key(1),
          body: { pdf_url: files.url("/three-pages.pdf") },
        }),
      ),
    ).toEqual(["pdf_url pdf_host_not_allowed"]);
    expect(await none.keys()).toEqual([]);
  });
});

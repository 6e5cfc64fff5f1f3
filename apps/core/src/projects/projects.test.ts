import { letterOrder, makePdf, pdfDataUrl } from "@mailpiece/conformance";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "../core.ts";
import { CoreError } from "../errors.ts";

const HOUR = 60 * 60 * 1000;

async function setup() {
  let now = Date.UTC(2026, 10, 24, 12);
  const core = createMailpieceCore({
    store: createMemoryStore(),
    blobs: createMemoryBlobStore(),
    clock: { now: () => now },
  });
  const workspace = await core.workspaces.create("Acme");
  const principal = await core.workspaces.authenticate(workspace.test_api_key);
  /** A ready document: intent, upload, completion. */
  const ready = async (bytes: Uint8Array, pages: number, owner = principal) => {
    const intent = await core.projects.createUploadIntent(owner, {
      content_type: "application/pdf",
      byte_size: bytes.byteLength,
    });
    const token = new URL(intent.upload_path, "http://x").searchParams.get("token")!;
    await core.projects.uploadDocument({
      document_id: intent.document_id,
      token,
      content_type: "application/pdf",
      bytes,
    });
    return core.projects.completeDocument(owner, intent.document_id, { page_count: pages });
  };
  return {
    core,
    principal,
    ready,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

async function issuesOf(
  promise: Promise<unknown>,
): Promise<{ code: string; issues: { path: string; code: string }[] }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(CoreError.isInstance(error), String(error)).toBe(true);
  const core = error as CoreError;
  return { code: core.code, issues: (core.issues ?? []).map(({ path, code }) => ({ path, code })) };
}

describe("Projects API documents", () => {
  it("declares, uploads once with the declared size and type, and completes with the PDF's page count", async () => {
    const { core, principal } = await setup();
    const pdf = await makePdf(3);
    const intent = await core.projects.createUploadIntent(principal, {
      content_type: "application/pdf",
      byte_size: pdf.byteLength,
      page_count: 3,
    });
    expect(intent).toMatchObject({
      upload_method: "PUT",
      required_headers: { "content-type": "application/pdf" },
    });
    expect(intent.document_id).toMatch(/^doc_[0-9a-f]{32}$/);
    const token = new URL(intent.upload_path, "http://x").searchParams.get("token")!;
    const upload = (overrides: Record<string, unknown>) =>
      core.projects.uploadDocument({
        document_id: intent.document_id,
        token,
        content_type: "application/pdf",
        bytes: pdf,
        ...overrides,
      });
    expect((await issuesOf(upload({ token: `${token}x` }))).code).toBe("not_found");
    expect((await issuesOf(upload({ content_type: "image/png" }))).issues[0]!.code).toBe(
      "content_type_mismatch",
    );
    expect((await issuesOf(upload({ bytes: pdf.subarray(1) }))).issues[0]!.code).toBe("byte_size_mismatch");
    expect(
      (await issuesOf(core.projects.completeDocument(principal, intent.document_id, { page_count: 3 })))
        .issues[0]!.code,
    ).toBe("document_not_uploaded");
    expect((await upload({})).status).toBe("uploaded");
    expect((await issuesOf(upload({}))).issues[0]!.code).toBe("upload_already_filled");
    const wrong = await issuesOf(
      core.projects.completeDocument(principal, intent.document_id, { page_count: 2 }),
    );
    expect(wrong.issues).toEqual([{ path: "page_count", code: "page_count_mismatch" }]);
    const done = await core.projects.completeDocument(principal, intent.document_id, { page_count: 3 });
    expect(done).toMatchObject({ status: "ready", page_count: 3, expires_at: null });
    expect(
      (await core.projects.completeDocument(principal, intent.document_id, { page_count: 3 })).status,
    ).toBe("ready");
  });

  it("refuses a bad intent with every issue, an expired upload URL, and bytes that are not a PDF", async () => {
    const { core, principal, advance } = await setup();
    const bad = await issuesOf(
      core.projects.createUploadIntent(principal, {
        content_type: "text/plain",
        byte_size: 0,
        page_count: 0,
        x: 1,
      }),
    );
    expect(bad.issues.map((i) => i.path).sort()).toEqual(["byte_size", "content_type", "page_count", "x"]);
    const text = new TextEncoder().encode("hello, not a pdf");
    const intent = await core.projects.createUploadIntent(principal, {
      content_type: "application/pdf",
      byte_size: text.byteLength,
    });
    const token = new URL(intent.upload_path, "http://x").searchParams.get("token")!;
    const put = () =>
      core.projects.uploadDocument({
        document_id: intent.document_id,
        token,
        content_type: "application/pdf",
        bytes: text,
      });
    expect((await issuesOf(put())).issues[0]!.code).toBe("upload_not_pdf");
    advance(2 * HOUR);
    expect((await issuesOf(put())).issues[0]!.code).toBe("upload_url_expired");
  });

  it("keeps each workspace's and each mode's documents to itself", async () => {
    const { core, ready } = await setup();
    const document = await ready(await makePdf(1), 1);
    const other = await core.workspaces.authenticate((await core.workspaces.create("Other")).test_api_key);
    expect((await issuesOf(core.projects.getDocument(other, document.id))).code).toBe("not_found");
    const quote = await issuesOf(core.projects.createQuote(other, "letter", { document_id: document.id }));
    expect(quote.issues).toEqual([{ path: "document_id", code: "document_not_found" }]);
  });
});

describe("Projects API quotes", () => {
  it("quotes a letter at the price the machine API gives the same piece, with the options resolved", async () => {
    const { core, principal, ready } = await setup();
    const pdf = await makePdf(3);
    const document = await ready(pdf, 3);
    const quote = await core.projects.createQuote(principal, "letter", {
      document_id: document.id,
      mail_class: "carrier_first_class",
      color: true,
      certified: true,
      certified_return_receipt: true,
    });
    expect(quote).toMatchObject({
      mailpiece_type: "letter",
      postcard_size: null,
      page_count: 3,
      mail_class: "standard",
      color: true,
      certified: true,
      certified_return_receipt: true,
      return_receipt_format: "electronic",
      standalone_address_page: false,
      currency: "usd",
      destination_country_code: "US",
    });
    expect(quote.quote_id).toMatch(/^qt_[0-9a-f]{32}$/);
    // One price book: the machine API prices the same PDF with the same options alike.
    const machine = await core.validateOrder({
      body: letterOrder({
        letter: undefined,
        pdf: pdfDataUrl(pdf),
        color: true,
        certified: true,
        certified_return_receipt: true,
      }),
    });
    expect(quote.price_cents).toBe((machine as { quote: { price_cents: number } }).quote.price_cents);
    expect(Date.parse(quote.expires_at)).toBeGreaterThan(Date.now() - 365 * 24 * HOUR);
  });

  it("refuses unavailable combinations instead of changing them, and documents that do not fit the piece", async () => {
    const { core, principal, ready } = await setup();
    const letter = await ready(await makePdf(2), 2);
    const refused = async (kind: "letter" | "postcard", body: Record<string, unknown>) =>
      (await issuesOf(core.projects.createQuote(principal, kind, { document_id: letter.id, ...body })))
        .issues;
    expect(await refused("letter", { mail_class: "priority", certified: true })).toContainEqual({
      path: "mail_class",
      code: "mail_class_certified_conflict",
    });
    expect(await refused("letter", { destination_country_code: "DE", certified: true })).toContainEqual({
      path: "certified",
      code: "proof_mail_not_available",
    });
    expect(await refused("letter", { page_count: 5 })).toEqual([
      { path: "page_count", code: "page_count_mismatch" },
    ]);
    // A US letter PDF is not a postcard.
    const asPostcard = await refused("postcard", { postcard_size: "4x6" });
    expect(asPostcard.every((issue) => issue.path === "document_id")).toBe(true);
    expect(asPostcard.length).toBeGreaterThan(0);
    const card = await ready(await makePdf(2, [450, 306]), 2);
    const quote = await core.projects.createQuote(principal, "postcard", {
      document_id: card.id,
      postcard_size: "4x6",
    });
    expect(quote).toMatchObject({
      mailpiece_type: "postcard",
      postcard_size: "4x6",
      color: true,
      certified: false,
    });
    expect(
      (
        await issuesOf(
          core.projects.createQuote(principal, "postcard", {
            document_id: card.id,
            postcard_size: "4x6",
            certified: true,
          }),
        )
      ).issues,
    ).toContainEqual({ path: "certified", code: "option_not_available_for_postcards" });
  });
});

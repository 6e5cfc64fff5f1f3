import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { MAX_ATTACHMENT_BYTES, MAX_PDF_BYTES } from "./limits.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

type Kind = keyof typeof EXAMPLE_ORDER_REQUESTS;
const example = (kind: Kind, patch: Record<string, unknown> = {}): Record<string, unknown> => {
  const body: Record<string, unknown> = { ...structuredClone(EXAMPLE_ORDER_REQUESTS[kind]), ...patch };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
};

function issuesOf(body: unknown) {
  const result = validateOrderRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

function documentOf(body: unknown) {
  const result = validateOrderRequest(body);
  if (!result.ok) throw new Error(`expected a valid order, got ${JSON.stringify(result.issues)}`);
  return result.order.document;
}

const PDF = "data:application/pdf;base64,JVBERi0xLjQKJSVFT0YK";
const PNG = "data:image/png;base64,iVBORw0KGgo=";
const letterObject = (patch: Record<string, unknown>) =>
  example("letter", { letter: { body: "Hello", ...patch } });

describe("exactly one document source", () => {
  it("none is document_source_required at the body", () => {
    expect(issuesOf(example("letter", { letter: undefined }))).toEqual([
      { path: "", code: "document_source_required" },
    ]);
  });
  it("several is document_source_conflict naming them", () => {
    const result = validateOrderRequest(
      example("letter", { pdf: PDF, form: EXAMPLE_ORDER_REQUESTS.form.form }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: "", code: "document_source_conflict" },
    ]);
    expect(result.issues[0]?.message).toContain("pdf, form and letter");
  });
});

describe("pdf", () => {
  it("a data URL must be application/pdf with valid base64", () => {
    for (const pdf of [
      "data:application/pdf;base64,!!!",
      "data:image/png;base64,JVBERi0=",
      "data:application/pdf,JVBERi0=",
    ]) {
      expect(issuesOf(example("pdf", { pdf }))).toEqual([{ path: "pdf", code: "invalid_data_url" }]);
    }
  });
  it("data URL base64 may be wrapped across lines", () => {
    expect(
      documentOf(example("pdf", { pdf: "data:application/pdf;base64,JVBERi0x\r\nLjQKJSVFT0YK" })),
    ).toEqual({
      kind: "pdf",
      source: { type: "data_url", base64: "JVBERi0xLjQKJSVFT0YK" },
    });
  });
  it("a data URL over 100 MB is pdf_too_large", { timeout: 120_000 }, () => {
    const base64 = "A".repeat(Math.ceil((MAX_PDF_BYTES + 3) / 3) * 4);
    expect(issuesOf(example("pdf", { pdf: `data:application/pdf;base64,${base64}` }))).toEqual([
      { path: "pdf", code: "pdf_too_large" },
    ]);
  });
  it("a URL must be https", () => {
    for (const pdf of ["http://example.com/a.pdf", "ftp://example.com/a.pdf", "file:///etc/a.pdf"]) {
      expect(issuesOf(example("pdf", { pdf }))).toEqual([{ path: "pdf", code: "pdf_url_not_https" }]);
    }
  });
  it("any other string is invalid_pdf_source", () => {
    for (const pdf of ["JVBERi0xLjQK", "a.pdf", "https://", "https:// exa mple"]) {
      expect(issuesOf(example("pdf", { pdf }))).toEqual([{ path: "pdf", code: "invalid_pdf_source" }]);
    }
  });
  it("an upload token object has only upload_token, at least one character", () => {
    expect(issuesOf(example("pdf", { pdf: { upload_token: "" } }))).toEqual([
      { path: "pdf.upload_token", code: "too_short" },
    ]);
    expect(issuesOf(example("pdf", { pdf: { upload_token: "t", note: 1 } }))).toEqual([
      { path: "pdf.note", code: "unknown_property" },
    ]);
    expect(issuesOf(example("pdf", { pdf: {} }))).toEqual([{ path: "pdf.upload_token", code: "required" }]);
  });
  it("a download object needs download_url and file_id", () => {
    expect(issuesOf(example("pdf", { pdf: { download_url: "https://example.com/a.pdf" } }))).toEqual([
      { path: "pdf.file_id", code: "required" },
    ]);
    expect(issuesOf(example("pdf", { pdf: { file_id: "f" } }))).toEqual([
      { path: "pdf.download_url", code: "required" },
    ]);
  });
  it("download_url is an https URI", () => {
    expect(
      issuesOf(example("pdf", { pdf: { download_url: "http://example.com/a.pdf", file_id: "f" } })),
    ).toEqual([{ path: "pdf.download_url", code: "pdf_url_not_https" }]);
    expect(
      issuesOf(example("pdf", { pdf: { download_url: "https://exa mple.com/a", file_id: "f" } })),
    ).toEqual([{ path: "pdf.download_url", code: "invalid_format" }]);
  });
});

describe("letter", () => {
  it("a letter string is 1 to 20000 characters and not blank", () => {
    expect(issuesOf(example("letter", { letter: "" }))).toEqual([{ path: "letter", code: "too_short" }]);
    expect(issuesOf(example("letter", { letter: "x".repeat(20001) }))).toEqual([
      { path: "letter", code: "too_long" },
    ]);
    expect(issuesOf(example("letter", { letter: " \n " }))).toEqual([{ path: "letter", code: "too_short" }]);
    documentOf(example("letter", { letter: "x".repeat(20000) }));
  });
  it("a letter object needs a body of 1 to 20000 characters", () => {
    expect(issuesOf(example("letter", { letter: { title: "T" } }))).toEqual([
      { path: "letter.body", code: "required" },
    ]);
    expect(issuesOf(letterObject({ body: "" }))).toEqual([{ path: "letter.body", code: "too_short" }]);
    expect(issuesOf(letterObject({ body: "b".repeat(20001) }))).toEqual([
      { path: "letter.body", code: "too_long" },
    ]);
    expect(issuesOf(letterObject({ body: "   " }))).toEqual([{ path: "letter.body", code: "too_short" }]);
  });
  it("the title is at most 200 characters", () => {
    expect(issuesOf(letterObject({ title: "t".repeat(201) }))).toEqual([
      { path: "letter.title", code: "too_long" },
    ]);
  });
  it("takes no unknown properties", () => {
    expect(issuesOf(letterObject({ text: "Hi" }))).toEqual([
      { path: "letter.text", code: "unknown_property" },
    ]);
  });
  it("format is text, html, markdown or rtf", () => {
    expect(issuesOf(letterObject({ format: "pdf" }))).toEqual([
      { path: "letter.format", code: "invalid_enum" },
    ]);
    expect(issuesOf(example("letter", { format: "docx" }))).toEqual([
      { path: "format", code: "invalid_enum" },
    ]);
  });
  it("top-level format without a letter is format_requires_letter", () => {
    expect(issuesOf(example("pdf", { format: "html" }))).toEqual([
      { path: "format", code: "format_requires_letter" },
    ]);
  });
  it("top-level format and a different letter.format conflict", () => {
    expect(issuesOf({ ...letterObject({ format: "markdown" }), format: "html" })).toEqual([
      { path: "letter.format", code: "format_conflict" },
    ]);
    expect(documentOf({ ...letterObject({ format: "html" }), format: "html" })).toMatchObject({
      format: "html",
    });
    expect(documentOf({ ...letterObject({}), format: "rtf" })).toMatchObject({ format: "rtf" });
  });
  it("render: paper letter, font_size integer 9 to 14, margin_in 0.5 to 1.5, font times or helvetica", () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ paper: "a4" }, "letter.render.paper", "invalid_enum"],
      [{ font_size: 8 }, "letter.render.font_size", "out_of_range"],
      [{ font_size: 15 }, "letter.render.font_size", "out_of_range"],
      [{ font_size: 10.5 }, "letter.render.font_size", "invalid_type"],
      [{ margin_in: 0.4 }, "letter.render.margin_in", "out_of_range"],
      [{ margin_in: 1.6 }, "letter.render.margin_in", "out_of_range"],
      [{ font: "comic" }, "letter.render.font", "invalid_enum"],
      [{ colour: "red" }, "letter.render.colour", "unknown_property"],
    ];
    for (const [render, path, code] of cases) {
      expect(issuesOf(letterObject({ render }))).toEqual([{ path, code }]);
    }
    expect(
      documentOf(letterObject({ render: { paper: "letter", font_size: 9, margin_in: 1.5 } })),
    ).toMatchObject({
      render: { paper: "letter", font_size: 9, margin_in: 1.5, font: "times" },
    });
  });
});

describe("letter signature", () => {
  it("a string is a typed signature of at most 2000 characters", () => {
    expect(documentOf(letterObject({ signature: "Ada" }))).toMatchObject({
      signature: { mode: "typed", text: "Ada" },
    });
    expect(issuesOf(letterObject({ signature: "s".repeat(2001) }))).toEqual([
      { path: "letter.signature", code: "too_long" },
    ]);
  });
  it("a blank typed signature is signature_text_required", () => {
    expect(issuesOf(letterObject({ signature: "  " }))).toEqual([
      { path: "letter.signature", code: "signature_text_required" },
    ]);
    expect(issuesOf(letterObject({ signature: { mode: "typed" } }))).toEqual([
      { path: "letter.signature.text", code: "signature_text_required" },
    ]);
  });
  it("a drawn signature needs an image", () => {
    expect(issuesOf(letterObject({ signature: { mode: "drawn", text: "Ada" } }))).toEqual([
      { path: "letter.signature", code: "signature_image_required" },
    ]);
  });
  it("signature images are PNG or JPEG base64 data URLs", () => {
    for (const dataUrl of ["data:image/gif;base64,R0lGOD==", "data:image/png;base64,@@", "https://x/y.png"]) {
      expect(issuesOf(letterObject({ signature: { mode: "drawn", dataUrl } }))).toEqual([
        { path: "letter.signature.dataUrl", code: "invalid_data_url" },
      ]);
    }
    expect(issuesOf(letterObject({ signature: { printDataUrl: "data:text/plain;base64,SGk=" } }))).toEqual([
      { path: "letter.signature.printDataUrl", code: "invalid_data_url" },
    ]);
  });
  it("a drawn signature keeps its images and text; mode defaults to drawn when an image is given", () => {
    expect(documentOf(letterObject({ signature: { printDataUrl: PNG, text: "Ada" } }))).toMatchObject({
      signature: { mode: "drawn", printDataUrl: PNG, text: "Ada" },
    });
    expect(
      documentOf(letterObject({ signature: { mode: "drawn", dataUrl: "data:image/jpeg;base64,/9j/4AAQ" } })),
    ).toMatchObject({ signature: { mode: "drawn", dataUrl: "data:image/jpeg;base64,/9j/4AAQ" } });
  });
  it("the signature object takes mode typed or drawn and no other properties", () => {
    expect(issuesOf(letterObject({ signature: { mode: "stamp", text: "A" } }))).toEqual([
      { path: "letter.signature.mode", code: "invalid_enum" },
    ]);
    expect(issuesOf(letterObject({ signature: { text: "A", font: "x" } }))).toEqual([
      { path: "letter.signature.font", code: "unknown_property" },
    ]);
    expect(issuesOf(letterObject({ signature: { text: "t".repeat(2001) } }))).toEqual([
      { path: "letter.signature.text", code: "too_long" },
    ]);
  });
});

describe("form", () => {
  const form = (patch: Record<string, unknown>) =>
    example("form", { form: { ...structuredClone(EXAMPLE_ORDER_REQUESTS.form.form), ...patch } });
  const attachment = (patch: Record<string, unknown>) =>
    form({ attachments: [{ id: "a", base64: "SGk=", ...patch }] });

  it("needs slug (min 1) and fields (object), takes no other properties", () => {
    expect(issuesOf(form({ slug: "" }))).toEqual([{ path: "form.slug", code: "too_short" }]);
    expect(issuesOf(form({ slug: "  " }))).toEqual([{ path: "form.slug", code: "too_short" }]);
    expect(issuesOf(form({ fields: [] }))).toEqual([{ path: "form.fields", code: "invalid_type" }]);
    expect(issuesOf(form({ recipient: "x" }))).toEqual([
      { path: "form.recipient", code: "unknown_property" },
    ]);
    expect(issuesOf(example("form", { form: { slug: "s" } }))).toEqual([
      { path: "form.fields", code: "required" },
    ]);
  });
  it("refuses an attachment whose content_type and data URL disagree, and keeps one that agrees", () => {
    expect(
      issuesOf(attachment({ content_type: "application/pdf", base64: "data:image/png;base64,SGk=" })),
    ).toEqual([{ path: "form.attachments[0].content_type", code: "attachment_content_mismatch" }]);
    expect(issuesOf(attachment({ content_type: "Image/PNG", base64: "data:image/png;base64,SGk=" }))).toEqual(
      [],
    );
  });

  it("attachments need id and base64", () => {
    expect(issuesOf(form({ attachments: [{ base64: "SGk=" }] }))).toEqual([
      { path: "form.attachments[0].id", code: "required" },
    ]);
    expect(issuesOf(form({ attachments: [{ id: "a" }] }))).toEqual([
      { path: "form.attachments[0].base64", code: "required" },
    ]);
    expect(issuesOf(attachment({ id: "" }))).toEqual([{ path: "form.attachments[0].id", code: "too_short" }]);
  });
  it("attachment file_name is 1 to 255 characters; content_type is a MIME type", () => {
    expect(issuesOf(attachment({ file_name: "" }))).toEqual([
      { path: "form.attachments[0].file_name", code: "too_short" },
    ]);
    expect(issuesOf(attachment({ file_name: "f".repeat(256) }))).toEqual([
      { path: "form.attachments[0].file_name", code: "too_long" },
    ]);
    expect(issuesOf(attachment({ content_type: "pdf" }))).toEqual([
      { path: "form.attachments[0].content_type", code: "invalid_format" },
    ]);
  });
  it("attachment base64 is raw base64 or a base64 data URL", () => {
    expect(issuesOf(attachment({ base64: "not base64!" }))).toEqual([
      { path: "form.attachments[0].base64", code: "invalid_base64" },
    ]);
    expect(issuesOf(attachment({ base64: "data:application/pdf;base64,***" }))).toEqual([
      { path: "form.attachments[0].base64", code: "invalid_data_url" },
    ]);
    expect(
      documentOf(attachment({ base64: "data:image/png;base64,iVBORw0KGgo=", label: "Photo" })),
    ).toMatchObject({
      attachments: [{ id: "a", label: "Photo", content_type: "image/png", base64: "iVBORw0KGgo=" }],
    });
  });
  it("attachments together decode to at most 12 MB", () => {
    const half = "A".repeat((MAX_ATTACHMENT_BYTES / 2 / 3) * 4 + 4);
    expect(
      issuesOf(
        form({
          attachments: [
            { id: "a", base64: half },
            { id: "b", base64: half },
          ],
        }),
      ),
    ).toEqual([{ path: "form.attachments", code: "attachments_too_large" }]);
    documentOf(form({ attachments: [{ id: "a", base64: half }] }));
  });
  it("attachments default to none", () => {
    expect(documentOf(form({ attachments: undefined }))).toMatchObject({ kind: "form", attachments: [] });
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { checkAttachments } from "./attachments.ts";
import { loadWorkflow } from "./load-workflow.ts";
import { base64, builtin, JPEG_BASE64, keys, MORTGAGE, makePdf, makePng } from "./test-support.ts";

const mortgage = builtin(MORTGAGE);
const MB = 1024 * 1024;
let pdf: string;

beforeAll(async () => {
  pdf = base64(await makePdf(["A record"]));
});

const record = (overrides: Record<string, unknown> = {}) => ({
  id: "supporting_records",
  file_name: "record.pdf",
  base64: pdf,
  ...overrides,
});

/** Bytes that start like a PDF, of the given size. */
function fakePdf(bytes: number): string {
  const buffer = Buffer.alloc(bytes, 0x20);
  buffer.write("%PDF-1.7\n", 0, "latin1");
  return buffer.toString("base64");
}

describe("checkAttachments", () => {
  it("accepts PDF, PNG and JPEG copies by extension, content type and bytes", () => {
    const { issues, files } = checkAttachments(mortgage, [
      record(),
      record({ file_name: "scan.PNG", content_type: "image/png", base64: base64(makePng(3, 3)) }),
      record({ file_name: "photo.jpg", base64: `data:image/jpeg;base64,${JPEG_BASE64}` }),
      record({ file_name: "photo2.jpeg", content_type: "image/jpeg; charset=binary", base64: JPEG_BASE64 }),
    ]);
    expect(issues).toEqual([]);
    expect(files.map((f) => [f.file_name, f.kind])).toEqual([
      ["record.pdf", "pdf"],
      ["scan.PNG", "png"],
      ["photo.jpg", "jpeg"],
      ["photo2.jpeg", "jpeg"],
    ]);
  });

  it("no attachments at all is fine for an optional slot", () => {
    expect(checkAttachments(mortgage, undefined).issues).toEqual([]);
    expect(checkAttachments(mortgage, []).issues).toEqual([]);
  });

  it("the id names the slot; an unknown slot is refused", () => {
    expect(keys(checkAttachments(mortgage, [record({ id: "exhibits" })]).issues)).toEqual([
      "form.attachments[0].id attachment_unknown_slot",
    ]);
    expect(keys(checkAttachments(mortgage, [record({ id: undefined })]).issues)).toEqual([
      "form.attachments[0].id required",
    ]);
  });

  it("refuses a file name whose extension the slot does not take", () => {
    expect(keys(checkAttachments(mortgage, [record({ file_name: "record.docx" })]).issues)).toEqual([
      "form.attachments[0].file_name attachment_type_not_allowed",
    ]);
  });

  it("takes the type from the bytes: a file name without an extension is typed by its contents", () => {
    const { issues, files } = checkAttachments(mortgage, [
      record({ file_name: "record", content_type: "application/pdf" }),
      record({ file_name: "supporting_records", base64: base64(makePng(2, 2)) }),
      record({ file_name: "scan", base64: `data:image/jpeg;base64,${JPEG_BASE64}` }),
    ]);
    expect(issues).toEqual([]);
    expect(files.map((f) => [f.file_name, f.kind])).toEqual([
      ["record", "pdf"],
      ["supporting_records", "png"],
      ["scan", "jpeg"],
    ]);
  });

  it("refuses PNG bytes named scan.pdf and declared application/pdf, at the file name and the content type", () => {
    const png = base64(makePng(2, 2));
    expect(
      keys(
        checkAttachments(mortgage, [
          record(),
          record(),
          record({ file_name: "scan.pdf", content_type: "application/pdf", base64: png }),
        ]).issues,
      ),
    ).toEqual([
      "form.attachments[2].file_name attachment_content_mismatch",
      "form.attachments[2].content_type attachment_content_mismatch",
    ]);
  });

  it("refuses a PDF declared image/png, whatever the file name says", () => {
    expect(keys(checkAttachments(mortgage, [record({ content_type: "image/png" })]).issues)).toEqual([
      "form.attachments[0].content_type attachment_content_mismatch",
    ]);
    expect(
      keys(checkAttachments(mortgage, [record({ file_name: "record", content_type: "image/png" })]).issues),
    ).toEqual(["form.attachments[0].content_type attachment_content_mismatch"]);
    expect(
      keys(checkAttachments(mortgage, [record({ content_type: "application/octet-stream" })]).issues),
    ).toEqual(["form.attachments[0].content_type attachment_content_mismatch"]);
  });

  it("refuses a data URL whose MIME type is not the type of its bytes", () => {
    expect(
      keys(checkAttachments(mortgage, [record({ base64: `data:image/png;base64,${pdf}` })]).issues),
    ).toEqual(["form.attachments[0].base64 attachment_content_mismatch"]);
    expect(
      keys(
        checkAttachments(mortgage, [
          record({
            file_name: "record",
            content_type: "application/pdf",
            base64: `data:image/png;base64,${pdf}`,
          }),
        ]).issues,
      ),
    ).toEqual(["form.attachments[0].base64 attachment_content_mismatch"]);
  });

  it("refuses a file name that names another type than the bytes", () => {
    expect(keys(checkAttachments(mortgage, [record({ base64: base64(makePng(2, 2)) })]).issues)).toEqual([
      "form.attachments[0].file_name attachment_content_mismatch",
    ]);
    expect(keys(checkAttachments(mortgage, [record({ file_name: "photo.jpg" })]).issues)).toEqual([
      "form.attachments[0].file_name attachment_content_mismatch",
    ]);
  });

  it("refuses contents that are not a PDF, PNG or JPEG file, whatever the name and declared type say", () => {
    const text = Buffer.from("Just some text, not a PDF.").toString("base64");
    expect(
      keys(checkAttachments(mortgage, [record({ content_type: "application/pdf", base64: text })]).issues),
    ).toEqual(["form.attachments[0].base64 attachment_type_not_allowed"]);
  });

  it("refuses text that is not base64, and empty files", () => {
    expect(keys(checkAttachments(mortgage, [record({ base64: "not base64!" })]).issues)).toEqual([
      "form.attachments[0].base64 invalid_base64",
    ]);
    expect(
      keys(checkAttachments(mortgage, [record({ base64: "data:application/pdf,%25PDF" })]).issues),
    ).toEqual(["form.attachments[0].base64 invalid_base64"]);
    expect(keys(checkAttachments(mortgage, [record({ base64: "" })]).issues)).toEqual([
      "form.attachments[0].base64 invalid_base64",
    ]);
  });

  it("needs a file name and takes no other properties", () => {
    expect(keys(checkAttachments(mortgage, [record({ file_name: undefined })]).issues)).toEqual([
      "form.attachments[0].file_name required",
    ]);
    expect(keys(checkAttachments(mortgage, [record({ url: "https://x" })]).issues)).toEqual([
      "form.attachments[0].url unknown_property",
    ]);
    expect(keys(checkAttachments(mortgage, [record({ label: 7 })]).issues)).toEqual([
      "form.attachments[0].label invalid_type",
    ]);
  });

  it("takes an array of objects", () => {
    expect(keys(checkAttachments(mortgage, { id: "supporting_records" }).issues)).toEqual([
      "form.attachments invalid_type",
    ]);
    expect(keys(checkAttachments(mortgage, ["record.pdf"]).issues)).toEqual([
      "form.attachments[0] invalid_type",
    ]);
  });

  it("counts files per slot: at most 20 supporting records", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => record({ file_name: `r${i}.pdf` }));
    expect(checkAttachments(mortgage, twenty).issues).toEqual([]);
    expect(keys(checkAttachments(mortgage, [...twenty, record()]).issues)).toEqual([
      "form.attachments attachment_too_many",
    ]);
  });

  it("limits all attachments together to 12 MB after base64 decoding", () => {
    const seven = fakePdf(7 * MB);
    expect(
      checkAttachments(mortgage, [record({ base64: fakePdf(6 * MB) }), record({ base64: fakePdf(6 * MB) })])
        .issues,
    ).toEqual([]);
    expect(
      keys(checkAttachments(mortgage, [record({ base64: seven }), record({ base64: seven })]).issues),
    ).toEqual(["form.attachments attachments_too_large"]);
  });

  it("counts decoded bytes, not base64 characters", () => {
    // 12 MB decoded is 16 MB of base64 text: still within the limit.
    expect(checkAttachments(mortgage, [record({ base64: fakePdf(12 * MB) })]).issues).toEqual([]);
  });

  it("limits each file to its slot's max_file_bytes", () => {
    const small = loadWorkflow({
      ...structuredClone(mortgage),
      attachments: {
        max_total_bytes: 12 * MB,
        slots: [{ ...mortgage.attachments.slots[0], max_file_bytes: 1000 }],
      },
    });
    expect(checkAttachments(small, [record({ base64: fakePdf(1000) })]).issues).toEqual([]);
    expect(keys(checkAttachments(small, [record({ base64: fakePdf(1001) })]).issues)).toEqual([
      "form.attachments[0] attachment_too_large",
    ]);
  });
});

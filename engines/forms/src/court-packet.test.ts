import { beforeAll, describe, expect, it } from "vitest";
import type { FormAttachmentInput } from "./attachments.ts";
import {
  base64,
  builtin,
  COURT,
  courtAnswers,
  evaluate,
  JPEG_BASE64,
  keys,
  makePdf,
  makePng,
  pdfAttachment,
} from "./test-support.ts";

const workflow = builtin(COURT);
let motion: FormAttachmentInput;
let exhibit: FormAttachmentInput;

beforeAll(async () => {
  motion = pdfAttachment("primary_document", "motion.pdf", await makePdf(["MOTION"]));
  exhibit = pdfAttachment("supporting_documents", "exhibit-a.pdf", await makePdf(["EXHIBIT A"]));
});

function run(change: (fields: Record<string, unknown>) => void, attachments?: FormAttachmentInput[]) {
  const fields = courtAnswers();
  change(fields);
  return evaluate(workflow, fields, attachments ?? [motion]);
}

describe("court-document-mailing-packets", () => {
  it("accepts the complete answer set with the primary document", () => {
    const result = run(() => {});
    expect(result.issues).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.certified_required).toBe(false);
    expect(result.attachments.map((a) => a.file_name)).toEqual(["motion.pdf"]);
  });

  describe("required fields", () => {
    const required = workflow.fields.filter((f) => f.required === true).map((f) => f.id);
    it.each(required)("%s is required", (id) => {
      expect(keys(run((f) => delete f[id]).issues)).toEqual([`form.fields.${id} required`]);
    });
    it("optional fields may be left out", () => {
      const result = run((f) => {
        for (const id of ["case_caption", "sender_role", "filing_deadline", "packet_notes"]) delete f[id];
      });
      expect(result.ok).toBe(true);
    });
  });

  describe("case_number is shown for an existing case only", () => {
    it("required for 'Yes — an existing case'", () => {
      expect(keys(run((f) => delete f.case_number).issues)).toEqual(["form.fields.case_number required"]);
    });
    it.each([
      "No — this may start a new case or matter",
      "Not applicable — correspondence or another recipient",
    ])("hidden for '%s'", (status) => {
      const result = run((f) => (f.case_status = status));
      expect(result.ok).toBe(true);
      expect(result.active_fields).not.toContain("case_number");
      expect(keys(result.warnings)).toEqual(["form.fields.case_number hidden_field_ignored"]);
    });
    it("the choice must carry its em dash", () => {
      expect(keys(run((f) => (f.case_status = "Yes - an existing case")).issues)).toEqual([
        "form.fields.case_status invalid_choice",
      ]);
    });
  });

  describe("document_type and case_status take exactly one of their choices", () => {
    it.each(["document_type", "case_status"])("%s", (id) => {
      expect(keys(run((f) => (f[id] = "Other")).issues)).toEqual([`form.fields.${id} invalid_choice`]);
    });
  });

  describe("attachments", () => {
    it("primary_document is required", () => {
      expect(keys(run(() => {}, []).issues)).toEqual(["form.attachments attachment_required"]);
      expect(keys(run(() => {}, [exhibit]).issues)).toEqual(["form.attachments attachment_required"]);
    });
    it("primary_document takes exactly one file", () => {
      expect(keys(run(() => {}, [motion, { ...motion, file_name: "motion-2.pdf" }]).issues)).toEqual([
        "form.attachments attachment_too_many",
      ]);
    });
    it("primary_document is a PDF only, judged by the bytes", () => {
      const png = { id: "primary_document", file_name: "motion.png", base64: base64(makePng(4, 4)) };
      expect(keys(run(() => {}, [png]).issues)).toEqual([
        "form.attachments[0].base64 attachment_type_not_allowed",
      ]);
      const named = { ...png, file_name: "motion.pdf", content_type: "application/pdf" };
      expect(keys(run(() => {}, [named]).issues)).toEqual([
        "form.attachments[0].base64 attachment_type_not_allowed",
      ]);
    });
    it("supporting_documents take PDF, JPEG and PNG files, at most 20, printed after the primary document in the given order", () => {
      const jpeg = { id: "supporting_documents", file_name: "exhibit-b.JPEG", base64: JPEG_BASE64 };
      const png = { id: "supporting_documents", file_name: "exhibit-c.png", base64: base64(makePng(4, 4)) };
      const result = run(() => {}, [exhibit, jpeg, motion, png]);
      expect(result.ok).toBe(true);
      expect(result.attachments.map((a) => a.file_name)).toEqual([
        "motion.pdf",
        "exhibit-a.pdf",
        "exhibit-b.JPEG",
        "exhibit-c.png",
      ]);
      const twenty = Array.from({ length: 20 }, (_, i) => ({ ...exhibit, file_name: `e${i}.pdf` }));
      expect(run(() => {}, [motion, ...twenty]).ok).toBe(true);
      expect(keys(run(() => {}, [motion, ...twenty, exhibit]).issues)).toEqual([
        "form.attachments attachment_too_many",
      ]);
    });
  });
});

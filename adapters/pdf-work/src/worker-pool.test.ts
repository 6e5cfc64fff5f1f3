import { FormsError } from "@mailpiece/forms";
import { manualClock } from "@mailpiece/ports";
import { PostcardError } from "@mailpiece/postcard";
import { TypesetterError } from "@mailpiece/typesetter";
import { afterAll, describe, expect, it } from "vitest";
import { createInlinePdfWork } from "./inline-pdf-work.ts";
import type { PacketFormInput } from "./pdf-work.ts";
import {
  courtAnswers,
  datedWorkflow,
  handMadePdf,
  PACKET_ADDRESSES,
  pdfAttachment,
  postcard4x6,
  RENDER,
  rejectionOf,
  shortCard,
  shortLetter,
} from "./test-support.ts";
import { createPdfWorkerPool } from "./worker-pool.ts";

// Threads start on demand; the generous deadline only guards a loaded machine.
const pool = createPdfWorkerPool({ threads: 2, deadlineMs: 55_000 });
const inline = createInlinePdfWork();
afterAll(() => pool.close());

const THREADS = { timeout: 60_000 };

async function packetInput(): Promise<PacketFormInput> {
  const motion = await inline.typesetLetter({
    format: "text",
    body: "MOTION TO CONTINUE HEARING",
    render: RENDER,
  });
  return {
    fields: courtAnswers("2026-03-01"),
    attachments: [pdfAttachment("primary_document", "motion.pdf", motion.pdf)],
  };
}

describe("createPdfWorkerPool: the same results as inline", () => {
  it("typesets a letter to identical bytes and the same page count", THREADS, async () => {
    const viaPool = await pool.typesetLetter(shortLetter());
    const viaInline = await inline.typesetLetter(shortLetter());
    expect(viaPool.page_count).toBe(viaInline.page_count);
    expect(viaPool.pdf).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(viaPool.pdf).equals(Buffer.from(viaInline.pdf))).toBe(true);
  });

  it("typesets a handwritten card to identical bytes", THREADS, async () => {
    const viaPool = await pool.typesetHandwritten(shortCard());
    const viaInline = await inline.typesetHandwritten(shortCard());
    expect(viaPool).toMatchObject({ page_count: 1, font_size: viaInline.font_size });
    expect(viaPool.pdf).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(viaPool.pdf).equals(Buffer.from(viaInline.pdf))).toBe(true);
  });

  it("inspects a PDF, and the caller's bytes stay readable afterwards", THREADS, async () => {
    const pdf = handMadePdf([
      { width: 612, height: 792 },
      { width: 420, height: 595 },
    ]);
    const framed = new Uint8Array(pdf.byteLength + 16);
    framed.set(pdf, 8);
    const view = framed.subarray(8, 8 + pdf.byteLength);
    const info = await pool.inspectPdf(view);
    expect(info).toEqual(await inline.inspectPdf(pdf));
    expect(info.page_count).toBe(2);
    expect(view.byteLength).toBe(pdf.byteLength);
    expect(Buffer.from(view).equals(Buffer.from(pdf))).toBe(true);
  });

  it("checks a good postcard and one with ink in the address zone", THREADS, async () => {
    const good = await pool.checkPostcard(postcard4x6(), "4x6");
    expect(good).toEqual(await inline.checkPostcard(postcard4x6(), "4x6"));
    expect(good.ok).toBe(true);
    const inked = await pool.checkPostcard(postcard4x6(true), "4x6", { tolerancePt: 1 });
    expect(inked).toEqual(await inline.checkPostcard(postcard4x6(true), "4x6", { tolerancePt: 1 }));
    expect(inked.problems.map((problem) => problem.code)).toEqual(["postcard_address_zone_not_empty"]);
  });

  it("builds a form packet, the clock read in the caller and rebuilt in the worker", THREADS, async () => {
    const workflow = datedWorkflow();
    const input = await packetInput();
    const options = { ...PACKET_ADDRESSES, clock: manualClock(Date.UTC(2026, 5, 1)) };
    const viaPool = await pool.buildPacket(workflow, input, options);
    const viaInline = await inline.buildPacket(workflow, input, options);
    expect(viaPool.page_count).toBe(viaInline.page_count);
    expect(Buffer.from(viaPool.pdf).equals(Buffer.from(viaInline.pdf))).toBe(true);
  });

  it("watermarks a PDF to identical bytes, and the caller's bytes stay readable", THREADS, async () => {
    const letter = await inline.typesetLetter(shortLetter());
    const framed = new Uint8Array(letter.pdf.byteLength + 16);
    framed.set(letter.pdf, 8);
    const view = framed.subarray(8, 8 + letter.pdf.byteLength);
    const viaPool = await pool.watermarkPdf(view, { text: "TEST MODE" });
    const viaInline = await inline.watermarkPdf(letter.pdf, { text: "TEST MODE" });
    expect(viaPool.page_count).toBe(letter.page_count);
    expect(viaPool.pdf).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(viaPool.pdf).equals(Buffer.from(viaInline.pdf))).toBe(true);
    expect(Buffer.from(view).equals(Buffer.from(letter.pdf))).toBe(true);
  });
});

describe("createPdfWorkerPool: engine errors cross the thread", () => {
  it("inspectPdf of garbage: TypesetterError pdf_unreadable", THREADS, async () => {
    const garbage = new TextEncoder().encode("this is not a PDF at all");
    const error = await rejectionOf(pool.inspectPdf(garbage));
    const expected = await rejectionOf(inline.inspectPdf(garbage));
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(TypesetterError);
    expect(error).toMatchObject({ code: "pdf_unreadable", message: (expected as Error).message });
  });

  it("an invalid letter: TypesetterError invalid_letter_input with its field", THREADS, async () => {
    const letter = { ...shortLetter(), render: { ...RENDER, font_size: 30 } };
    const error = await rejectionOf(pool.typesetLetter(letter));
    const expected = (await rejectionOf(inline.typesetLetter(letter))) as TypesetterError;
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_letter_input", field: "render", message: expected.message });
  });

  it(
    "a card too long for its page: TypesetterError message_too_long_for_card on message",
    THREADS,
    async () => {
      const card = {
        ...shortCard(),
        message: Array.from({ length: 40 }, (_, i) => `Line ${i + 1}`).join("\n"),
      };
      const error = await rejectionOf(pool.typesetHandwritten(card));
      const expected = (await rejectionOf(inline.typesetHandwritten(card))) as TypesetterError;
      expect(TypesetterError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: "message_too_long_for_card",
        field: "message",
        message: expected.message,
      });
      expect((error as TypesetterError).issues).toEqual(expected.issues);
    },
  );

  it("a bad postcard size: PostcardError invalid_postcard_size with its field", THREADS, async () => {
    const error = await rejectionOf(pool.checkPostcard(postcard4x6(), "5x7" as never));
    expect(PostcardError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_postcard_size", field: "size" });
  });

  it(
    "refused answers: FormsError form_invalid with every issue (the clock says the date is ahead)",
    THREADS,
    async () => {
      const workflow = datedWorkflow();
      const input = await packetInput();
      const options = { ...PACKET_ADDRESSES, clock: manualClock(Date.UTC(2026, 0, 1)) };
      const error = await rejectionOf(pool.buildPacket(workflow, input, options));
      const expected = (await rejectionOf(inline.buildPacket(workflow, input, options))) as FormsError;
      expect(FormsError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: "form_invalid",
        message: expected.message,
        issues: expected.issues,
      });
      expect((error as FormsError).issues.map((issue) => `${issue.path} ${issue.code}`)).toEqual([
        "form.fields.served_on date_in_future",
      ]);
    },
  );

  it("watermarkPdf of garbage: TypesetterError pdf_unreadable", THREADS, async () => {
    const garbage = new TextEncoder().encode("this is not a PDF at all");
    const error = await rejectionOf(pool.watermarkPdf(garbage, { text: "TEST MODE" }));
    const expected = await rejectionOf(inline.watermarkPdf(garbage, { text: "TEST MODE" }));
    expect(TypesetterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "pdf_unreadable", message: (expected as Error).message });
  });

  it("an error that is no engine's: a plain Error with the message", THREADS, async () => {
    const workflow = datedWorkflow();
    const error = await rejectionOf(pool.buildPacket(workflow, { fields: {} }, null as never));
    const expected = (await rejectionOf(
      inline.buildPacket(workflow, { fields: {} }, null as never),
    )) as Error;
    expect((error as Error).constructor).toBe(Error);
    expect((error as Error).message).toBe(expected.message);
  });
});

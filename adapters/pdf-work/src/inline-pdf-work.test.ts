import { typesetHandwritten, typesetLetter } from "@mailpiece/typesetter";
import { describe, expect, it } from "vitest";
import { createInlinePdfWork } from "./inline-pdf-work.ts";
import { PdfWorkError } from "./pdf-work-error.ts";
import { datedWorkflow, handMadePdf, PACKET_ADDRESSES, shortCard, shortLetter } from "./test-support.ts";
import { watermarkPdf } from "./watermark-pdf.ts";

describe("createInlinePdfWork", () => {
  it("runs the engines on the calling thread", async () => {
    const work = createInlinePdfWork();
    const letter = await work.typesetLetter(shortLetter());
    expect(letter).toEqual(await typesetLetter(shortLetter()));
    expect(await work.typesetHandwritten(shortCard())).toEqual(await typesetHandwritten(shortCard()));
    expect(await work.inspectPdf(handMadePdf([{ width: 100, height: 200 }]))).toEqual({
      page_count: 1,
      pages: [{ width_pt: 100, height_pt: 200 }],
      encrypted: false,
    });
    const marked = await work.watermarkPdf(letter.pdf, { text: "TEST MODE" });
    expect(marked).toEqual(await watermarkPdf(letter.pdf, { text: "TEST MODE" }));
    expect(marked.page_count).toBe(letter.page_count);
  });

  it("after close() every call rejects with pdf_work_closed", async () => {
    const work = createInlinePdfWork();
    await work.close();
    const calls = [
      work.typesetLetter(shortLetter()),
      work.typesetHandwritten(shortCard()),
      work.inspectPdf(handMadePdf([{ width: 100, height: 200 }])),
      work.checkPostcard(new Uint8Array(), "4x6"),
      work.buildPacket(datedWorkflow(), { fields: {} }, PACKET_ADDRESSES),
      work.watermarkPdf(handMadePdf([{ width: 612, height: 792 }]), { text: "TEST MODE" }),
    ];
    for (const call of calls) {
      const error = await call.catch((caught: unknown) => caught);
      expect(PdfWorkError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "pdf_work_closed" });
    }
  });
});

import { inflateSync } from "node:zlib";
import { letterJob, receiptLetterJob } from "@mailpiece/conformance";
import { PrintError, type PrintJob, type ReturnReceipt } from "@mailpiece/ports";
import { PDFArray, PDFDocument, PDFName, PDFRawStream } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { SIMULATED_CAPABILITIES } from "./default-capabilities.ts";
import { createSimulatedPrinter } from "./simulated-printer.ts";
import { codeOf, pdfInfo, pdfText, setup, T0 } from "./test-support.ts";
import { trackingNumberFor } from "./tracking-number.ts";

const REFERENCE = "sim_00000000000040008000000000000001";
const ARTICLE = trackingNumberFor(REFERENCE);

const withLine1 = (job: PrintJob, line1: string): PrintJob => ({
  ...job,
  recipient: { ...job.recipient, line1 },
});

/** The operators of the receipt's page, decompressed. */
async function pageContent(pdf: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(pdf);
  const contents = doc.getPage(0).node.get(PDFName.of("Contents"));
  const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
  return refs
    .map((ref) => doc.context.lookup(ref))
    .map((stream) => {
      if (!(stream instanceof PDFRawStream)) throw new Error("the page content is not a raw stream");
      const filter = stream.dict.get(PDFName.of("Filter"));
      return Buffer.from(filter === undefined ? stream.contents : inflateSync(stream.contents)).toString(
        "latin1",
      );
    })
    .join("\n");
}

describe("createSimulatedPrinter: electronic return receipts", () => {
  it("has none before delivery, then a signed receipt naming the article, signer and delivery", async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await receiptLetterJob("US", "electronic"), {
      idempotencyKey: "k1",
    });
    expect(reference).toBe(REFERENCE);
    const returnReceipt = printer.returnReceipt as (reference: string) => Promise<ReturnReceipt | undefined>;
    for (const at of [0, 2_000, 10_000, 29_999]) {
      clock.set(T0 + at);
      expect(await returnReceipt(reference), `at ${at} ms`).toBeUndefined();
    }
    clock.set(T0 + 30_000);
    const receipt = await returnReceipt(reference);
    expect(receipt).toMatchObject({
      tracking_number: ARTICLE,
      signed_at: "2026-01-01T00:00:30.000Z",
      signer_name: "Grace Recipient",
      delivery_location: "Washington, DC 20500, US",
    });
    expect((await printer.status(reference)).tracking_number).toBe(ARTICLE);
    const pdf = receipt?.pdf as Uint8Array;
    expect(pdfInfo(pdf)).toEqual({ pages: 1, size: "612 x 792 pts (letter)" });
    const text = pdfText(pdf);
    expect(text).toContain("Electronic Return Receipt");
    expect(text).toContain(ARTICLE);
    expect(text).toContain("Grace Recipient");
    expect(text).toContain("January 1, 2026 at 00:00:30 UTC");
    expect(text).toContain("Washington, DC 20500, US");
    expect(text).toContain("1600 Pennsylvania Ave NW");
    expect(text).toContain("SIMULATED");
    const lines = text
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);
    expect(lines[lines.indexOf("PRINTED NAME") + 1]).toBe("Grace Recipient");
    expect(lines[lines.indexOf("ARTICLE NUMBER") + 1]).toBe(ARTICLE);
  });

  it("draws the signature in pen strokes inside the signature box", async () => {
    const { clock, printer } = setup();
    const { reference } = await printer.submit(await receiptLetterJob("US", "electronic"), {
      idempotencyKey: "k1",
    });
    clock.advance(30_000);
    const receipt = await printer.returnReceipt?.(reference);
    const content = await pageContent(receipt?.pdf as Uint8Array);
    const curves = content.match(/^(?:-?[\d.]+ ){6}c$/gm) ?? [];
    expect(curves.length).toBeGreaterThan(20);
    expect(content).toMatch(/^1 J$/m);
    expect(content).toMatch(/^0\.08 0\.16 0\.45 RG$/m);
  });

  it("gives the same receipt, byte for byte, on every call, later, and from another printer on the store", async () => {
    const { clock, store, printer } = setup();
    const { reference } = await printer.submit(await receiptLetterJob("US", "electronic"), {
      idempotencyKey: "k1",
    });
    clock.advance(30_000);
    const first = (await printer.returnReceipt?.(reference)) as ReturnReceipt;
    clock.advance(400 * 86_400_000);
    const later = await printer.returnReceipt?.(reference);
    const other = await createSimulatedPrinter({ store, clock }).returnReceipt?.(reference);
    for (const again of [later, other]) {
      expect(again).toEqual(first);
      expect(Buffer.from(again?.pdf as Uint8Array).equals(Buffer.from(first.pdf))).toBe(true);
    }
  });

  it("gives different articles different receipts", async () => {
    const { clock, printer } = setup();
    const a = await printer.submit(await receiptLetterJob("US", "electronic"), { idempotencyKey: "k1" });
    const b = await printer.submit(await receiptLetterJob("US", "electronic"), { idempotencyKey: "k2" });
    clock.advance(30_000);
    const [first, second] = await Promise.all([
      printer.returnReceipt?.(a.reference),
      printer.returnReceipt?.(b.reference),
    ]);
    expect(first?.tracking_number).not.toBe(second?.tracking_number);
    expect(pdfText(second?.pdf as Uint8Array)).toContain(second?.tracking_number as string);
    expect(pdfText(second?.pdf as Uint8Array)).not.toContain(first?.tracking_number as string);
  });

  it("has none for letters that asked for no electronic receipt or were never delivered", async () => {
    const { clock, printer } = setup();
    const jobs: Array<[string, PrintJob]> = [
      ["no return receipt", await letterJob("US", { certified: true })],
      ["receipt flag false", await letterJob("US", { certified: true, certified_return_receipt: false })],
      ["a physical receipt", await receiptLetterJob("US", "physical")],
      [
        "returned to sender",
        withLine1(await receiptLetterJob("US", "electronic"), "1 Return To Sender Lane"),
      ],
      ["failed in production", withLine1(await receiptLetterJob("US", "electronic"), "9 Fail Print Road")],
      ["canceled", await receiptLetterJob("US", "electronic")],
    ];
    const references = new Map<string, string>();
    for (const [label, job] of jobs) {
      references.set(
        label,
        (await printer.submit(job, { idempotencyKey: label.replaceAll(" ", "-") })).reference,
      );
    }
    await printer.cancel(references.get("canceled") as string);
    clock.advance(90 * 86_400_000);
    for (const [label, reference] of references) {
      expect(await printer.returnReceipt?.(reference), label).toBeUndefined();
    }
  });

  it("keeps the receipt request with the job, and a job without one is the same job however it says so", async () => {
    const { store, printer } = setup();
    const plain = await letterJob("US", { certified: true });
    const first = await printer.submit(plain, { idempotencyKey: "k1" });
    for (const same of [
      { ...plain, certified_return_receipt: false },
      { ...plain, return_receipt_format: "electronic" as const },
    ]) {
      expect(await printer.submit(same, { idempotencyKey: "k1" })).toMatchObject({
        reference: first.reference,
        idempotent_replay: true,
      });
    }
    expect(
      await codeOf(async () =>
        printer.submit(await receiptLetterJob("US", "electronic"), { idempotencyKey: "k1" }),
      ),
    ).toBe("idempotency_conflict");
    const explicit = await receiptLetterJob("US", "electronic");
    const { return_receipt_format: _, ...implicit } = explicit;
    const second = await printer.submit(implicit, { idempotencyKey: "k2" });
    expect((await printer.submit(explicit, { idempotencyKey: "k2" })).reference).toBe(second.reference);
    const record = await store.get<{ job: Record<string, unknown> }>("print:simulated:key:k2");
    expect(record?.value.job).toMatchObject({
      certified_return_receipt: true,
      return_receipt_format: "electronic",
    });
    const without = await store.get<{ job: Record<string, unknown> }>("print:simulated:key:k1");
    expect(without?.value.job).not.toHaveProperty("certified_return_receipt");
  });

  it("shows names outside the standard fonts without failing, and keeps the full name in the receipt", async () => {
    const { clock, printer } = setup();
    const job = await receiptLetterJob("US", "electronic");
    const name = "Zoë Łukasiewicz-Müller 李";
    const { reference } = await printer.submit(
      { ...job, recipient: { ...job.recipient, name } },
      { idempotencyKey: "k1" },
    );
    clock.advance(30_000);
    const receipt = await printer.returnReceipt?.(reference);
    expect(receipt?.signer_name).toBe(name);
    expect(pdfText(receipt?.pdf as Uint8Array)).toContain("Zoë ?ukasiewicz-Müller ?");
  });

  it("shrinks a long name to fit the page rather than cutting it", async () => {
    const { clock, printer } = setup();
    const job = await receiptLetterJob("US", "electronic");
    const name = `Maximiliana ${"Featherstonehaugh-".repeat(9)}Kowalczyk`;
    const { reference } = await printer.submit(
      { ...job, recipient: { ...job.recipient, name } },
      { idempotencyKey: "k1" },
    );
    clock.advance(30_000);
    const receipt = await printer.returnReceipt?.(reference);
    expect(pdfText(receipt?.pdf as Uint8Array).replace(/\s+/g, "")).toContain(name.replace(" ", ""));
  });

  it("refuses unknown references with job_not_found", async () => {
    const { printer } = setup();
    for (const reference of ["sim_0000", "", "../x"]) {
      expect(await codeOf(async () => printer.returnReceipt?.(reference))).toBe("job_not_found");
    }
  });
});

describe("createSimulatedPrinter: declared return receipts", () => {
  it("declares electronic and physical receipts by default, and fetches the electronic ones", () => {
    expect(SIMULATED_CAPABILITIES.return_receipts).toEqual(["electronic", "physical"]);
    expect(typeof setup().printer.returnReceipt).toBe("function");
  });

  it("has no returnReceipt, and refuses electronic receipt jobs, when the capabilities do not list them", async () => {
    const { printer } = setup({ capabilities: { ...SIMULATED_CAPABILITIES, return_receipts: ["physical"] } });
    expect(printer.returnReceipt).toBeUndefined();
    expect("returnReceipt" in printer).toBe(false);
    const refusal = await printer
      .submit(await receiptLetterJob("US", "electronic"), { idempotencyKey: "k1" })
      .catch((error: unknown) => error);
    expect(PrintError.isInstance(refusal) && [refusal.code, refusal.field]).toEqual([
      "unsupported_job",
      "return_receipt_format",
    ]);
    expect(await printer.lookup("k1")).toEqual({ outcome: "not_found" });
    const physical = await printer.submit(await receiptLetterJob("US", "physical"), { idempotencyKey: "k2" });
    expect(physical.idempotent_replay).toBe(false);
  });

  it("refuses capabilities with unknown receipt formats, or receipts without certified mail at home", () => {
    const bad = [
      { ...SIMULATED_CAPABILITIES, return_receipts: ["green_card" as "physical"] },
      { ...SIMULATED_CAPABILITIES, certified: false },
      { ...SIMULATED_CAPABILITIES, countries: ["CA", "FR"] },
    ];
    for (const capabilities of bad) expect(() => setup({ capabilities })).toThrow(TypeError);
    expect(() =>
      setup({ capabilities: { ...SIMULATED_CAPABILITIES, certified: false, return_receipts: [] } }),
    ).not.toThrow();
  });
});

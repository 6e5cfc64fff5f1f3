import { describe, expect, it } from "vitest";
import {
  capabilityGap,
  findPrintJobProblem,
  MAILPIECE_TYPES,
  type PrintCapabilities,
  PrintError,
  type PrintJob,
  RETURN_RECEIPT_FORMATS,
  routeProvider,
  wantsElectronicReturnReceipt,
} from "./index.ts";

const CAPABILITIES: PrintCapabilities = {
  origin_country: "US",
  countries: ["US", "CA"],
  mailpiece_types: ["letter", "postcard", "handwritten"],
  postcard_sizes: ["4x6"],
  mail_classes: ["standard", "priority"],
  certified: true,
  registered: ["CA"],
  international_postcards: null,
  color: true,
  double_sided: true,
  return_receipts: ["electronic", "physical"],
};

const address = (country: string, name: string) => ({
  name,
  line1: "1 Main Street",
  city: "Springfield",
  postal_code: "12345",
  country,
});

function letter(changes: Partial<PrintJob> = {}): PrintJob {
  return {
    mailpiece_type: "letter",
    postcard_size: null,
    document: { bytes: new Uint8Array([37, 80, 68, 70]), sha256: "a".repeat(64), page_count: 1 },
    recipient: address("US", "Grace Recipient"),
    sender: address("US", "Ada Sender"),
    mail_class: "standard",
    color: false,
    double_sided: false,
    certified: false,
    ...changes,
  };
}

const handwritten = (changes: Partial<PrintJob> = {}) =>
  letter({ mailpiece_type: "handwritten", ...changes });
const receipt = (changes: Partial<PrintJob> = {}) =>
  letter({ certified: true, certified_return_receipt: true, ...changes });

describe("handwritten jobs", () => {
  it("are a mailpiece type of their own", () => {
    expect(MAILPIECE_TYPES).toEqual(["letter", "postcard", "handwritten"]);
    expect(findPrintJobProblem(handwritten())).toBeUndefined();
    expect(findPrintJobProblem(handwritten({ color: true, double_sided: true }))).toBeUndefined();
  });

  it("are standard mail without a postcard size or proof of mailing", () => {
    const cases: Array<[Partial<PrintJob>, string]> = [
      [{ postcard_size: "4x6" }, "postcard_size"],
      [{ mail_class: "priority" }, "mail_class"],
      [{ certified: true }, "certified"],
      [{ certified: true, certified_return_receipt: true }, "certified"],
    ];
    for (const [change, field] of cases) expect(findPrintJobProblem(handwritten(change))?.field).toBe(field);
    expect(findPrintJobProblem(handwritten({ postcard_size: "4x6" }))?.message).toBe(
      "a handwritten piece has postcard_size null",
    );
  });

  it("need a provider that declares them", () => {
    const lettersOnly = { ...CAPABILITIES, mailpiece_types: ["letter" as const] };
    expect(capabilityGap(CAPABILITIES, handwritten())).toBeUndefined();
    expect(capabilityGap(lettersOnly, handwritten())).toEqual({
      field: "mailpiece_type",
      message: "this provider does not mail handwritten pieces",
    });
    expect(
      capabilityGap(lettersOnly, letter({ mailpiece_type: "postcard", postcard_size: "4x6" }))?.message,
    ).toBe("this provider does not mail postcards");
  });

  it("are routed to the first provider that declares them", () => {
    const plain = { name: "plain", capabilities: { ...CAPABILITIES, mailpiece_types: ["letter" as const] } };
    const pen = { name: "pen", capabilities: CAPABILITIES };
    expect(routeProvider([plain, pen], handwritten())).toBe(pen);
    let caught: unknown;
    try {
      routeProvider([plain], handwritten());
    } catch (error) {
      caught = error;
    }
    expect(PrintError.isInstance(caught) && caught.code).toBe("no_capable_provider");
    expect((caught as Error).message).toContain("plain: this provider does not mail handwritten pieces");
  });
});

describe("return receipts on jobs", () => {
  it("are well-formed with certified mail, in either format or none", () => {
    expect(RETURN_RECEIPT_FORMATS).toEqual(["electronic", "physical"]);
    for (const job of [
      receipt(),
      receipt({ return_receipt_format: "electronic" }),
      receipt({ return_receipt_format: "physical" }),
      letter({ certified_return_receipt: false }),
      letter({ return_receipt_format: "electronic" }),
    ]) {
      expect(findPrintJobProblem(job)).toBeUndefined();
    }
  });

  it("name the field of a malformed receipt request", () => {
    const cases: Array<[PrintJob, string, string]> = [
      [
        receipt({ certified_return_receipt: 1 as unknown as boolean }),
        "certified_return_receipt",
        "certified_return_receipt must be a boolean",
      ],
      [
        receipt({ return_receipt_format: "fax" as "physical" }),
        "return_receipt_format",
        "return_receipt_format must be electronic or physical",
      ],
      [
        letter({ certified_return_receipt: true }),
        "certified_return_receipt",
        "a return receipt comes with certified mail only",
      ],
      [
        letter({ certified: true, return_receipt_format: "physical" }),
        "return_receipt_format",
        "a physical return receipt needs certified_return_receipt true",
      ],
    ];
    for (const [job, field, message] of cases) expect(findPrintJobProblem(job)).toEqual({ field, message });
  });

  it("need a provider that declares the format, and certified mail at home", () => {
    const physicalOnly = { ...CAPABILITIES, return_receipts: ["physical" as const] };
    const none = { ...CAPABILITIES, return_receipts: undefined };
    expect(capabilityGap(CAPABILITIES, receipt())).toBeUndefined();
    expect(capabilityGap(physicalOnly, receipt({ return_receipt_format: "physical" }))).toBeUndefined();
    expect(capabilityGap(physicalOnly, receipt())).toEqual({
      field: "return_receipt_format",
      message: "this provider obtains no electronic return receipts",
    });
    expect(capabilityGap(none, receipt({ return_receipt_format: "physical" }))?.field).toBe(
      "return_receipt_format",
    );
    expect(capabilityGap(none, letter({ certified: true }))).toBeUndefined();
    const abroad = receipt({ recipient: address("CA", "Grace Recipient") });
    expect(capabilityGap(CAPABILITIES, abroad)?.field).toBe("certified_return_receipt");
    expect(capabilityGap(CAPABILITIES, { ...abroad, certified_return_receipt: false })).toBeUndefined();
  });

  it("ask for an electronic receipt only with the flag and the electronic (default) format", () => {
    expect(wantsElectronicReturnReceipt(receipt())).toBe(true);
    expect(wantsElectronicReturnReceipt(receipt({ return_receipt_format: "electronic" }))).toBe(true);
    expect(wantsElectronicReturnReceipt(receipt({ return_receipt_format: "physical" }))).toBe(false);
    expect(wantsElectronicReturnReceipt(letter({ certified: true }))).toBe(false);
    expect(wantsElectronicReturnReceipt(letter({ return_receipt_format: "electronic" }))).toBe(false);
  });
});

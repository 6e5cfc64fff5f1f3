import { describe, expect, it } from "vitest";
import { expectFactsInBoth, issuesOf, LETTER } from "./messages.fixture.ts";
import { type ReturnReceiptMailInput, returnReceiptMail } from "./return-receipt-mail.ts";

const RETURN_RECEIPT: ReturnReceiptMailInput = {
  order_id: "ord_7Hq2",
  item: LETTER,
  delivered_at: "2026-01-09T21:42:00Z",
  signed_by: "G. Hopper",
  attachment_filename: "return-receipt-ord_7Hq2.pdf",
};

describe("returnReceiptMail", () => {
  it("names the signed return receipt and the order in its subject", () => {
    expect(returnReceiptMail(RETURN_RECEIPT).subject).toBe("Signed return receipt for your letter ord_7Hq2");
    expect(returnReceiptMail({ ...RETURN_RECEIPT, test_mode: true }).subject).toBe(
      "[TEST] Signed return receipt for your letter ord_7Hq2",
    );
  });

  it("states the same facts in the text and in the HTML, the attachment by name", () => {
    const message = returnReceiptMail(RETURN_RECEIPT);
    expectFactsInBoth(message, [
      "ord_7Hq2",
      "January 9, 2026, 21:42 UTC",
      "G. Hopper",
      "return-receipt-ord_7Hq2.pdf",
      "Letter, 3 pages, black and white",
      "To Grace Hopper, Washington, DC 20500",
      "attached",
    ]);
    expect(returnReceiptMail({ ...RETURN_RECEIPT, signed_by: null }).text).not.toContain("Signed by");
  });

  it("refuses a filename the email port would refuse, and a bad delivery time, with paths", () => {
    for (const filename of [
      "receipts/ord_1.pdf",
      "a\\b.pdf",
      " receipt.pdf",
      "receipt\r\n.pdf",
      "",
      "x".repeat(256),
    ]) {
      const { issues } = issuesOf(() =>
        returnReceiptMail({ ...RETURN_RECEIPT, attachment_filename: filename }),
      );
      expect(
        issues.map((issue) => issue.path),
        filename,
      ).toEqual(["attachment_filename"]);
    }
    expect(
      issuesOf(() =>
        returnReceiptMail({ ...RETURN_RECEIPT, delivered_at: "soon", signed_by: 3 as unknown as string }),
      ),
    ).toEqual({
      code: "invalid_input",
      issues: [
        { path: "delivered_at", code: "invalid_format" },
        { path: "signed_by", code: "invalid_type" },
      ],
    });
  });
});

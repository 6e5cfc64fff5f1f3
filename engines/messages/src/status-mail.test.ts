import { describe, expect, it } from "vitest";
import { expectFactsInBoth, flat, issuesOf, LETTER, readHtml } from "./messages.fixture.ts";
import { MAIL_STATUSES, type StatusMailInput, statusMail } from "./status-mail.ts";

const DELIVERED: StatusMailInput = {
  order_id: "ord_7Hq2",
  item: LETTER,
  status: "delivered",
  at: "2026-01-09T16:42:00-05:00",
  tracking_number: "9400111899223100012345",
  tracking_url: "https://tools.carrier.example/track?n=9400111899223100012345&lang=en",
  status_url: "https://mailpiece.example/orders/ord_7Hq2",
};

describe("statusMail", () => {
  it("says the status in the subject", () => {
    const subjects = Object.fromEntries(
      MAIL_STATUSES.map((status) => [status, statusMail({ ...DELIVERED, status }).subject]),
    );
    expect(subjects).toEqual({
      mailed: "Your letter ord_7Hq2 was mailed",
      delivered: "Your letter ord_7Hq2 was delivered",
      returned: "Your letter ord_7Hq2 was returned",
      failed: "Mailing failed for your letter ord_7Hq2",
    });
    expect(statusMail({ ...DELIVERED, item: { kind: "handwritten", summary: [] } }).subject).toBe(
      "Your handwritten mail ord_7Hq2 was delivered",
    );
    expect(statusMail({ ...DELIVERED, test_mode: true }).subject).toBe(
      "[TEST] Your letter ord_7Hq2 was delivered",
    );
  });

  it("states the same facts in the text and in the HTML, the time in UTC", () => {
    const message = statusMail(DELIVERED);
    const html = expectFactsInBoth(message, [
      "ord_7Hq2",
      "Delivered",
      "January 9, 2026, 21:42 UTC",
      "9400111899223100012345",
      "https://tools.carrier.example/track?n=9400111899223100012345&lang=en",
      "Letter, 3 pages, black and white",
      "To Grace Hopper, Washington, DC 20500",
      "https://mailpiece.example/orders/ord_7Hq2",
    ]);
    expect(html.hrefs).toEqual([
      "https://tools.carrier.example/track?n=9400111899223100012345&lang=en",
      "https://mailpiece.example/orders/ord_7Hq2",
    ]);
    expect(message.html).toContain("track?n=9400111899223100012345&amp;lang=en");
  });

  it("gives the reason of a return or a failure, on one line", () => {
    for (const status of ["returned", "failed"] as const) {
      const message = statusMail({
        ...DELIVERED,
        status,
        tracking_number: null,
        tracking_url: null,
        reason: "Addressee unknown.\r\nReturned to sender.",
      });
      expect(message.text).toMatch(/^Reason: +Addressee unknown\. Returned to sender\.$/m);
      expect(readHtml(message.html).text).toContain("Reason Addressee unknown. Returned to sender.");
      expect(message.text).not.toContain("Tracking");
    }
    expect(flat(statusMail({ ...DELIVERED, status: "failed" }).text)).toContain("What was ordered");
  });

  it("refuses an unknown status, a bad time and a bad tracking number, with paths", () => {
    expect(
      issuesOf(() =>
        statusMail({ ...DELIVERED, status: "lost" as "mailed", at: "2026-01-09 16:42", tracking_number: "" }),
      ),
    ).toEqual({
      code: "invalid_input",
      issues: [
        { path: "status", code: "invalid_enum" },
        { path: "at", code: "invalid_format" },
        { path: "tracking_number", code: "too_short" },
      ],
    });
    expect(issuesOf(() => statusMail({ ...DELIVERED, reason: "x".repeat(1001) })).issues).toEqual([
      { path: "reason", code: "too_long" },
    ]);
    const { status: _status, ...noStatus } = DELIVERED;
    expect(issuesOf(() => statusMail(noStatus as StatusMailInput)).issues).toEqual([
      { path: "status", code: "required" },
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { aboveCeilingIssue, ceilingFit } from "./ceiling.ts";

const pieces = (...prices: number[]) =>
  prices.map((price_cents, i) => ({ row_number: i * 2 + 1, price_cents }));

describe("ceilingFit", () => {
  it("counts the leading pieces that fit, stopping at the first that would pass the ceiling", () => {
    expect(ceilingFit(pieces(300, 400, 200, 100), 800)).toEqual({
      max_cents: 800,
      within: false,
      fit_pieces: 2,
      fit_cents: 700,
      fit_through_row: 3,
    });
  });

  it("says within when the total reaches the ceiling exactly", () => {
    expect(ceilingFit(pieces(300, 500), 800)).toMatchObject({ within: true, fit_pieces: 2, fit_cents: 800 });
  });

  it("fits nothing when the first piece passes the ceiling", () => {
    const fit = ceilingFit(pieces(900, 100), 800);
    expect(fit).toMatchObject({ within: false, fit_pieces: 0, fit_cents: 0, fit_through_row: null });
    expect(aboveCeilingIssue(fit, 1000, 2).message).toBe(
      "This campaign costs $10.00 for 2 mailpieces; one machine order is paid with one payment of at most $8.00. " +
        "Larger mailings go through the Projects API (/api/v1), paid from prepaid credits.",
    );
  });

  it("refuses a ceiling that is not a number of cents", () => {
    expect(() => ceilingFit(pieces(100), -1)).toThrow(
      expect.objectContaining({ code: "campaign_input_invalid" }),
    );
    expect(() => ceilingFit(pieces(100), 1.5)).toThrow(expect.objectContaining({ name: "CampaignsError" }));
  });
});

import { readCampaignCsv } from "@mailpiece/orders";
import { describe, expect, it, vi } from "vitest";
import { campaign, csvOf, latin1, modelPageCount, US } from "./campaigns.fixture.ts";
import { campaignLetter, rowLetter } from "./letter.ts";
import { letterPages, lineBreaks, pageBoundLetter } from "./pages.ts";
import { planCampaign } from "./plan.ts";

const venue = "A venue described at great length with directions from every station in town. ";

function letterOf(csv: string, template: string, html = false) {
  const read = readCampaignCsv(csv);
  const letter = campaignLetter({
    content_mode: html ? "html" : "text",
    [html ? "template_html" : "template_text"]: template,
    columns: read.columns,
  })!;
  return { letter, rows: read.rows };
}

describe("pageBoundLetter", () => {
  it("fills each placeholder with the longest value of its column, so no row's letter is longer", () => {
    const { letter, rows } = letterOf(
      csvOf(US("Al", "short"), US("Bea", "a much longer venue"), US("C")),
      "{{recipient_name}} at {{venue}}",
    );
    const bound = pageBoundLetter(letter, rows);
    expect(bound.text).toBe("Bea at a much longer venue");
    expect(bound.sources).toEqual(["recipient_name: row 2", "venue: row 2"]);
    for (const row of rows) expect(rowLetter(letter, row).length).toBeLessThanOrEqual(bound.text.length);
  });

  it("in text, adds the value with the most line breaks when it is not the longest", () => {
    const wide = "word ".repeat(60).trim();
    const tall = "x\n".repeat(70);
    const { letter, rows } = letterOf(csvOf(US("A", `"${wide}"`), US("B", `"${tall}"`)), "{{venue}}");
    const bound = pageBoundLetter(letter, rows);
    expect(bound.text).toBe(`${wide}\n${tall.trim()}`);
    expect(bound.sources).toEqual(["venue: rows 1 and 2"]);
    expect(lineBreaks(bound.text)).toBe(70);
  });

  it("in html, escapes the values as each row's letter does", () => {
    const { letter, rows } = letterOf(csvOf(US("A", "<b>x</b> & y")), "<p>{{venue}}</p>", true);
    expect(pageBoundLetter(letter, rows)).toMatchObject({
      text: "<p>&lt;b&gt;x&lt;/b&gt; &amp; y</p>",
      format: "html",
    });
  });
});

describe("letterPages", () => {
  it("calls the page counter once whatever the number of rows", async () => {
    const rows = Array.from({ length: 500 }, (_, i) =>
      US(`Person ${i}`, i === 321 ? venue.repeat(80) : "the park"),
    );
    const { letter, rows: read } = letterOf(csvOf(...rows), "Dear {{recipient_name}}, see you at {{venue}}.");
    const pageCount = vi.fn(modelPageCount);
    const pages = await letterPages(letter, read, pageCount);
    expect(pageCount).toHaveBeenCalledTimes(1);
    expect(pages.page_count).toBe(modelPageCount(pageBoundLetter(letter, read).text, { format: "text" }));
    expect(pages.page_count).toBeGreaterThan(1);
    expect(pages.page_count_basis).toContain("venue: row 322");
  });

  it("says so when the template has no placeholders", async () => {
    const { letter, rows } = letterOf(csvOf(US("A"), US("B")), "Hello.");
    const pageCount = vi.fn(() => 1);
    const pages = await letterPages(letter, rows, pageCount);
    expect(pageCount).toHaveBeenCalledWith("Hello.", { format: "text" });
    expect(pages.page_count_basis).toBe(
      "template_text has no placeholders, so every row's letter is the same; it was typeset once.",
    );
  });
});

describe("planCampaign page count", () => {
  // No floor, so the price shows the pages: a letter costs 1.80 plus 0.40 a color page.
  const bounds = { min_cents: 0, max_cents: 20_000 };
  const options = { pageCount: modelPageCount, canPrint: latin1, bounds };

  it("one long row makes every piece longer", async () => {
    const short = await planCampaign(
      campaign(csvOf(US("A"), US("B"), US("C")), { options: { color: true } }),
      options,
    );
    const long = await planCampaign(
      campaign(csvOf(US("A"), US("B", venue.repeat(80)), US("C")), { options: { color: true } }),
      options,
    );
    if (!short.ok || !long.ok) throw new Error("expected planned campaigns");
    expect(short.plan.document.page_count).toBe(1);
    expect(short.plan.pieces.map((p) => p.price_cents)).toEqual([220, 220, 220]);
    const pages = long.plan.document.page_count;
    expect(pages).toBeGreaterThan(1);
    expect(long.plan.document.page_count_basis).toContain("longest value of its column");
    expect(long.plan.document.page_count_basis).toContain("venue: row 2");
    expect(long.plan.pieces.map((p) => p.price_cents)).toEqual([1, 2, 3].map(() => 180 + 40 * pages));
  });

  it("counts only columns the template uses and only valid rows", async () => {
    const notUsed = await planCampaign(
      campaign(csvOf(US("A"), US("B", venue.repeat(80))), {}, { template_text: "Dear {{recipient_name}}" }),
      options,
    );
    expect(notUsed.ok && notUsed.plan.document.page_count).toBe(1);
    const invalidRow = US("B", venue.repeat(80)).replace("62701", "6270");
    const invalid = await planCampaign(campaign(csvOf(US("A"), invalidRow)), options);
    expect(invalid.ok && invalid.plan.document.page_count).toBe(1);
    // A row left out for a character the font lacks does not count either.
    const unprintable = await planCampaign(
      campaign(csvOf(US("A"), US("B", `Łódź ${venue.repeat(80)}`))),
      options,
    );
    expect(unprintable.ok && unprintable.plan.document.page_count).toBe(1);
  });

  it("html: passes the HTML with escaped values and says template_html", async () => {
    const pageCount = vi.fn(modelPageCount);
    const outcome = await planCampaign(
      campaign(
        csvOf(US("A", "<script>x</script> & <b>"), US("B")),
        {},
        { content_mode: "html", template_html: "<h1>Dear {{recipient_name}}</h1><p>At {{venue}}</p>" },
      ),
      { pageCount, canPrint: latin1 },
    );
    if (!outcome.ok) throw new Error("expected a planned campaign");
    expect(pageCount).toHaveBeenCalledWith(
      "<h1>Dear A</h1><p>At &lt;script&gt;x&lt;/script&gt; &amp; &lt;b&gt;</p>",
      { format: "html" },
    );
    expect(outcome.plan.pieces).toHaveLength(2);
    expect(outcome.plan.document.page_count_basis).toContain("template_html");
  });
});

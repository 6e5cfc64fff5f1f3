import { longBody, makePdf, pdfDataUrl } from "@mailpiece/conformance";
import type { CampaignRow, Issue, NormalizedOrder } from "@mailpiece/orders";
import { EXAMPLE_ORDER_REQUESTS, MAX_CAMPAIGN_ROWS, validateOrderRequest } from "@mailpiece/orders";
import { systemClock } from "@mailpiece/ports";
import { DEFAULT_PRICE_BOOK } from "@mailpiece/pricing";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { CampaignContext, CampaignValidationView } from "./campaigns.ts";
import { validateCampaign } from "./campaigns.ts";
import { defaultCoreConfig } from "./config.ts";
import { createUpload, fillUpload } from "./uploads.ts";

const config = defaultCoreConfig();
const HEADER = "recipient_name,line1,city,state,zip,country,venue";
const US = (name: string, venue = "the park") => `${name},1 Main St,Springfield,IL,62701,US,${venue}`;
const DE = (name: string, venue = "the park") => `${name},Unter den Linden 77,Berlin,,10117,DE,${venue}`;
const csvOf = (...rows: string[]) => [HEADER, ...rows].join("\n");

/** A campaign request: the example bulk order with these bulk fields and top-level fields. */
function campaign(bulk: Record<string, unknown>, top: Record<string, unknown> = {}) {
  const merged: Record<string, unknown> = {
    ...EXAMPLE_ORDER_REQUESTS.bulk.bulk,
    template_text: "Dear {{recipient_name}},\n\nSee you at {{venue}}.",
    ...bulk,
  };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return { ...structuredClone(EXAMPLE_ORDER_REQUESTS.bulk), ...top, bulk: merged };
}

function orderOf(body: unknown): { order: NormalizedOrder; warnings: Issue[] } {
  const checked = validateOrderRequest(body);
  if (!checked.ok) throw new Error(`expected a valid order, got ${JSON.stringify(checked.issues)}`);
  return checked;
}

async function validated(body: unknown, ctx: CampaignContext = { config }) {
  const { order, warnings } = orderOf(body);
  const outcome = await validateCampaign(order, ctx, warnings);
  if (!outcome.ok) throw new Error(`expected a valid campaign, got ${JSON.stringify(outcome.issues)}`);
  return outcome;
}

async function refused(body: unknown, ctx: CampaignContext = { config }) {
  const outcome = await validateCampaign(orderOf(body).order, ctx);
  if (outcome.ok) throw new Error("expected the campaign to be refused");
  return outcome.issues.map(({ path, code }) => ({ path, code }));
}

const reportOf = (view: CampaignValidationView) =>
  view.rows.map((row) => [row.row_number, row.status, row.errors.map((e) => [e.column, e.code])]);

describe("validateCampaign rows", () => {
  it("reports every row, the invalid ones with the code and column of each problem", async () => {
    const csv = [
      "recipient_name,line1,city,state,ZIP,venue",
      "Grace Hopper,1 Main St,Springfield,IL,62701,the park",
      "Alan Turing,2 Main St,Springfield,IL,6270,the hall",
      ",3 Main St,Springfield,,62701,the pier",
      "Ada Lovelace,4 Main St,Springfield,IL,62702,the museum",
    ].join("\n");
    const { view, pieces } = await validated(campaign({ csv_content: csv }));
    expect(reportOf(view)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["ZIP", "invalid_postal_code"]]],
      [
        3,
        "invalid",
        [
          ["recipient_name", "required"],
          ["state", "state_required"],
        ],
      ],
      [4, "valid", []],
    ]);
    expect(view.bulk).toEqual({
      recipient_count: 2,
      row_count: 4,
      content_mode: "text",
      campaign_name: "Spring newsletter",
    });
    expect(pieces.map((p) => [p.row_number, p.recipient.name, p.fields.venue])).toEqual([
      [1, "Grace Hopper", "the park"],
      [4, "Ada Lovelace", "the museum"],
    ]);
    expect(view.warnings.map((w) => w.code)).toEqual(["campaign_rows_invalid"]);
    expect(view.warnings[0]?.message).toContain("2 of 4 rows");
  });

  it("answers with the order's request id and normalised options, and no warning when every row is valid", async () => {
    const { view } = await validated(campaign({ csv_content: csvOf(US("A")) }, { color: true }));
    expect(view).toMatchObject({
      object: "campaign_validation",
      valid: true,
      request_id: EXAMPLE_ORDER_REQUESTS.bulk.request_id,
      options: { color: true, mail_class: "standard" },
      warnings: [],
    });
  });

  it("replaces the order's campaign_rows_invalid warning with one that counts every row left out", async () => {
    const body = campaign({ csv_content: csvOf(US("A"), `${US("B").replace("62701", "6270")}`, DE("C")) });
    const { order, warnings } = orderOf(body);
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining("1 of 3 rows")]);
    const noGermany = defaultCoreConfig({ priceBook: withoutDestination("DE") });
    const outcome = await validateCampaign(order, { config: noGermany }, [
      ...warnings,
      { path: "x", code: "option_ignored", message: "kept" },
    ]);
    if (!outcome.ok) throw new Error("expected a valid campaign");
    expect(outcome.view.warnings.map((w) => [w.code, w.message.slice(0, 11)])).toEqual([
      ["option_ignored", "kept"],
      ["campaign_rows_invalid", "2 of 3 rows"],
    ]);
  });

  it("leaves the order's own rows as they were", async () => {
    const { order } = orderOf(campaign({ csv_content: csvOf(US("A"), DE("B")) }));
    const before = structuredClone(order.bulk?.rows);
    await validateCampaign(order, { config: defaultCoreConfig({ priceBook: withoutDestination("DE") }) });
    expect(order.bulk?.rows).toEqual(before);
  });

  it("makes a row invalid when its letter would be longer than a letter may be, naming its longest column", async () => {
    const csv = csvOf(US("A"), US("B", "v".repeat(20_000)));
    const { view } = await validated(campaign({ csv_content: csv }));
    expect(reportOf(view)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["venue", "too_long"]]],
    ]);
    // The same value in a column the template does not use changes nothing.
    const unused = await validated(campaign({ csv_content: csv, template_text: "Dear {{recipient_name}}" }));
    expect(unused.view.bulk.recipient_count).toBe(2);
  });

  it("makes a row invalid when a value it prints holds a character the letter font cannot print", async () => {
    const csv = csvOf(
      US("Zoë Müller", "the café"),
      US("B", "the 🎉 party"),
      US("שלום"),
      `C,1 Main St,Springfield,IL,62701,US,the park`,
    );
    const { view } = await validated(campaign({ csv_content: csv }));
    expect(reportOf(view)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["venue", "character_unsupported"]]],
      [3, "invalid", [["recipient_name", "character_unsupported"]]],
      [4, "valid", []],
    ]);
    expect(view.rows[1]?.errors[0]?.message).toContain("U+1F389");
  });

  it("does not check the characters of a PDF campaign, whose letters are not typeset", async () => {
    const pdf = pdfDataUrl(await makePdf(1));
    const { view } = await validated(
      campaign({ content_mode: "pdf", template_text: undefined, pdf, csv_content: csvOf(US("B", "🎉")) }),
    );
    expect(view.bulk.recipient_count).toBe(1);
  });
});

describe("validateCampaign content modes", () => {
  it("text: typesets the template once and prices every row at its page count", async () => {
    const { view } = await validated(campaign({ csv_content: csvOf(US("A"), US("B")) }));
    expect(view.bulk.content_mode).toBe("text");
    expect(view.document.page_count).toBe(1);
    expect(view.document.page_count_basis).toContain("longest value of its column");
  });

  it("html: typesets the HTML template with escaped values", async () => {
    const csv = csvOf(US("A", "<script>x</script> & <b>"), US("B"));
    const body = campaign({
      content_mode: "html",
      template_text: undefined,
      template_html: `<h1>Dear {{recipient_name}}</h1>${"<p>A long paragraph of the letter, set as HTML.</p>".repeat(3)}<p>At {{venue}}</p>`,
      csv_content: csv,
    });
    const { view } = await validated(body);
    expect(view.bulk.content_mode).toBe("html");
    expect(view.bulk.recipient_count).toBe(2);
    expect(view.document.page_count).toBe(1);
    expect(view.document.page_count_basis).toContain("template_html");
    const long = await validated(
      campaign({
        content_mode: "html",
        template_text: undefined,
        template_html: `<p>{{venue}}</p>${longBody(40)
          .split("\n\n")
          .map((p) => `<p>${p}</p>`)
          .join("")}`,
        csv_content: csv,
      }),
    );
    expect(long.view.document.page_count).toBeGreaterThan(1);
  });

  it("pdf: counts the pages of the data URL and prices every row at them", async () => {
    const pdf = pdfDataUrl(await makePdf(10));
    const { view, pieces } = await validated(
      campaign({ content_mode: "pdf", template_text: undefined, pdf, csv_content: csvOf(US("A"), US("B")) }),
    );
    expect(view.document).toEqual({
      page_count: 10,
      page_count_basis: "bulk.pdf has 10 pages; every row is mailed the same PDF.",
    });
    // Letter base 1.80 and 10 black-and-white pages at 0.20.
    expect(pieces.map((p) => p.price_cents)).toEqual([380, 380]);
  });

  it("pdf: checks the PDF as a single order's, its problems on bulk.pdf", async () => {
    const a4 = pdfDataUrl(await makePdf(1, [595, 842]));
    expect(
      await refused(
        campaign({ content_mode: "pdf", template_text: undefined, pdf: a4, csv_content: csvOf(US("A")) }),
      ),
    ).toEqual([{ path: "bulk.pdf", code: "pdf_page_size_unsupported" }]);
    const letterPdf = pdfDataUrl(await makePdf(1));
    const postcards = campaign(
      { content_mode: "pdf", template_text: undefined, pdf: letterPdf, csv_content: csvOf(US("A")) },
      { mailpiece_type: "postcard", postcard_size: "4x6" },
    );
    const issues = await refused(postcards);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((issue) => issue.path === "bulk.pdf")).toBe(true);
  });

  it("pdf: reads an upload token through the ports, and refuses one without them", async () => {
    const store = createMemoryStore();
    const blobs = createMemoryBlobStore();
    const bytes = await makePdf(3);
    const slot = await createUpload(store, systemClock, {
      file_name: "a.pdf",
      content_type: "application/pdf",
      content_length: bytes.byteLength,
      maxBytes: config.maxPdfBytes,
      ttlMs: config.uploadTtlMs,
    });
    expect((await fillUpload(store, blobs, systemClock, slot.upload_token, bytes)).state).toBe("uploaded");
    const body = campaign({
      content_mode: "pdf",
      template_text: undefined,
      pdf: { upload_token: slot.upload_token },
      csv_content: csvOf(US("A")),
    });
    const { view } = await validated(body, { config, store, blobs, clock: systemClock });
    expect(view.document.page_count).toBe(3);
    expect(await refused(body)).toEqual([{ path: "bulk.pdf", code: "campaign_pdf_source_unavailable" }]);
    expect(await refused(body, { config, store: createMemoryStore(), blobs, clock: systemClock })).toEqual([
      { path: "bulk.pdf.upload_token", code: "upload_token_invalid" },
    ]);
  });

  it("pdf: refuses a URL without the ports, and one off the allowlist with them", async () => {
    const body = campaign({
      content_mode: "pdf",
      template_text: undefined,
      pdf: "https://files.example.com/a.pdf",
      csv_content: csvOf(US("A")),
    });
    expect(await refused(body)).toEqual([{ path: "bulk.pdf", code: "campaign_pdf_source_unavailable" }]);
    const ports = { config, store: createMemoryStore(), blobs: createMemoryBlobStore(), clock: systemClock };
    expect(await refused(body, ports)).toEqual([{ path: "bulk.pdf", code: "pdf_host_not_allowed" }]);
  });

  it("refuses a template the typesetter cannot set, on the template field", async () => {
    expect(
      await refused(campaign({ template_text: "Hi {{recipient_name}} 🎉", csv_content: csvOf(US("A")) })),
    ).toEqual([{ path: "bulk.template_text", code: "character_unsupported" }]);
  });
});

describe("validateCampaign page count", () => {
  const venue = "A venue described at great length with directions from every station in town. ";

  it("is the template typeset with each placeholder's longest value: one long row makes every piece longer", async () => {
    // No floor, so the price shows the pages: a letter costs 1.80 plus 0.40 a color page.
    const ctx = { config: defaultCoreConfig({ bounds: { min_cents: 0, max_cents: 20_000 } }) };
    const short = await validated(
      campaign({ csv_content: csvOf(US("A"), US("B"), US("C")) }, { color: true }),
      ctx,
    );
    const long = await validated(
      campaign({ csv_content: csvOf(US("A"), US("B", venue.repeat(80)), US("C")) }, { color: true }),
      ctx,
    );
    expect(short.view.document.page_count).toBe(1);
    expect(short.pieces.map((p) => p.price_cents)).toEqual([220, 220, 220]);
    const pages = long.view.document.page_count;
    expect(pages).toBeGreaterThan(1);
    expect(long.view.document.page_count_basis).toContain("venue: row 2");
    // Every piece, not only row 2, is priced at the longer letter.
    expect(long.pieces.map((p) => p.price_cents)).toEqual([1, 2, 3].map(() => 180 + 40 * pages));
  });

  it("counts only columns the template uses and only valid rows", async () => {
    const notUsed = await validated(
      campaign({
        template_text: "Dear {{recipient_name}}",
        csv_content: csvOf(US("A"), US("B", venue.repeat(80))),
      }),
    );
    expect(notUsed.view.document.page_count).toBe(1);
    const invalidRow = US("B", venue.repeat(80)).replace("62701", "6270");
    const invalid = await validated(campaign({ csv_content: csvOf(US("A"), invalidRow) }));
    expect(invalid.view.document.page_count).toBe(1);
  });

  it("in text, adds the value with the most line breaks when it is not the longest", async () => {
    const wide = `"${"word ".repeat(60)}"`;
    const tall = `"${"x\n".repeat(70)}"`;
    const { view } = await validated(campaign({ csv_content: csvOf(US("A", wide), US("B", tall)) }));
    expect(view.document.page_count).toBeGreaterThan(1);
    expect(view.document.page_count_basis).toContain("venue: rows 1 and 2");
  });

  it("says so when the template has no placeholders", async () => {
    const { view } = await validated(campaign({ template_text: "Hello.", csv_content: csvOf(US("A")) }));
    expect(view.document.page_count_basis).toContain("no placeholders");
  });
});

describe("validateCampaign quote", () => {
  it("prices each valid row by its destination, totals by route, and keeps each piece within the bounds", async () => {
    const { view, pieces } = await validated(
      campaign({ csv_content: csvOf(US("A"), DE("B"), US("C"), DE("D"), US("E")) }),
    );
    // A one-page US letter costs 2.00 and is raised to the 3.40 floor; to Germany 2.00 plus 2.00 postage.
    expect(pieces.map((p) => [p.row_number, p.price_cents])).toEqual([
      [1, 340],
      [2, 400],
      [3, 340],
      [4, 400],
      [5, 340],
    ]);
    expect(view.quote).toEqual({
      price_cents: 3 * 340 + 2 * 400,
      price_usd: "18.20",
      currency: "usd",
      pricing_version: DEFAULT_PRICE_BOOK.pricing_version,
      pieces: 5,
      by_route: [
        { destination_country: "DE", pieces: 2, unit_cents: 400, amount_cents: 800 },
        { destination_country: "US", pieces: 3, unit_cents: 340, amount_cents: 1020 },
      ],
    });
  });

  it("refuses a campaign whose total passes the ceiling of one order, saying how many rows fit", async () => {
    // 3.40 a piece: 58 pieces cost 197.20, 59 cost 200.60.
    const rows = Array.from({ length: 100 }, (_, i) => US(`Person ${i + 1}`));
    const outcome = await validateCampaign(orderOf(campaign({ csv_content: csvOf(...rows) })).order, {
      config,
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.issues).toEqual([
      expect.objectContaining({ path: "bulk.csv_content", code: "campaign_above_ceiling" }),
    ]);
    const message = outcome.issues[0]!.message;
    expect(message).toContain("$340.00 for 100 mailpieces");
    expect(message).toContain("The first 58 valid rows (through CSV row 58) fit in one order ($197.20)");
    expect(message).toContain("Projects API");
    const fits = await validated(campaign({ csv_content: csvOf(...rows.slice(0, 58)) }));
    expect(fits.view.quote.price_cents).toBe(58 * 340);
  });

  it("makes a row to a route the price book lacks invalid with route_unavailable on its country column", async () => {
    const noGermany = defaultCoreConfig({ priceBook: withoutDestination("DE") });
    const csv = csvOf(US("A"), DE("B")).replace(",country,", ",Country_Code,");
    const { view, pieces } = await validated(campaign({ csv_content: csv }), { config: noGermany });
    expect(reportOf(view)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["Country_Code", "route_unavailable"]]],
    ]);
    expect(pieces.map((p) => p.row_number)).toEqual([1]);
    expect(view.quote.by_route.map((r) => r.destination_country)).toEqual(["US"]);
  });

  it("makes a row invalid when an option is not carried to its destination", async () => {
    const { view } = await validated(
      campaign({ csv_content: csvOf(US("A"), DE("B")) }, { mail_class: "priority" }),
    );
    expect(reportOf(view)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["country", "option_unavailable"]]],
    ]);
  });

  it("makes a row invalid when its piece would cost more than one order may", async () => {
    const tight = defaultCoreConfig({ bounds: { min_cents: 340, max_cents: 380 } });
    const { view } = await validated(campaign({ csv_content: csvOf(US("A"), DE("B")) }), { config: tight });
    expect(reportOf(view)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["country", "quote_above_ceiling"]]],
    ]);
  });

  it("refuses the campaign when the sender's country cannot post, on the sender", async () => {
    const fromCanada = defaultCoreConfig({ priceBook: { ...DEFAULT_PRICE_BOOK, origin_country: "CA" } });
    expect(await refused(campaign({ csv_content: csvOf(US("A")) }), { config: fromCanada })).toEqual([
      { path: "sender_address_manual", code: "route_unavailable" },
    ]);
  });
});

describe("validateCampaign refusals", () => {
  it("refuses a campaign only when no row is valid", async () => {
    const noGermany = defaultCoreConfig({ priceBook: withoutDestination("DE") });
    expect(await refused(campaign({ csv_content: csvOf(DE("A"), DE("B")) }), { config: noGermany })).toEqual([
      { path: "bulk.csv_content", code: "campaign_no_valid_rows" },
    ]);
    const oneLeft = await validated(campaign({ csv_content: csvOf(DE("A"), DE("B"), US("C")) }), {
      config: noGermany,
    });
    expect(oneLeft.view.bulk).toMatchObject({ recipient_count: 1, row_count: 3 });
    // A row the envelope cannot print is left out by the order engine already; with no row left, no campaign.
    const unprintable = validateOrderRequest(campaign({ csv_content: csvOf(US("🎉")) }));
    expect(unprintable.ok ? [] : unprintable.issues.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: "bulk.csv_content", code: "campaign_no_valid_rows" },
    ]);
  });

  it("says why each row was left out", async () => {
    const noGermany = defaultCoreConfig({ priceBook: withoutDestination("DE") });
    const outcome = await validateCampaign(orderOf(campaign({ csv_content: csvOf(DE("A")) })).order, {
      config: noGermany,
    });
    expect(outcome.ok ? [] : outcome.issues.map((i) => i.message)).toEqual([
      "None of the 1 rows can be mailed: row 1 (country: route_unavailable).",
    ]);
  });

  it("refuses more than MAX_CAMPAIGN_ROWS rows", async () => {
    const { order } = orderOf(campaign({ csv_content: csvOf(US("A")) }));
    const row = order.bulk?.rows[0] as CampaignRow;
    const bulk = { ...order.bulk!, rows: Array.from({ length: MAX_CAMPAIGN_ROWS + 1 }, () => row) };
    const outcome = await validateCampaign({ ...order, bulk }, { config });
    expect(outcome.ok ? [] : outcome.issues.map((i) => i.code)).toEqual(["campaign_too_many_rows"]);
    const atLimit = { ...bulk, rows: bulk.rows.slice(1) };
    // At the row limit the rows are not refused; what one payment may carry bounds the campaign instead.
    const within = await validateCampaign({ ...order, bulk: atLimit }, { config });
    expect(within.ok ? [] : within.issues.map((i) => i.code)).toEqual(["campaign_above_ceiling"]);
  });

  it("keeps the order engine's limits: a CSV over the row limit never becomes a campaign", () => {
    const rows = `${US("A")}\n`.repeat(MAX_CAMPAIGN_ROWS + 1);
    const checked = validateOrderRequest(campaign({ csv_content: `${HEADER}\n${rows}` }));
    expect(checked.ok ? [] : checked.issues.map((i) => i.code)).toEqual(["campaign_too_many_rows"]);
  });

  it("refuses an order that is not a campaign", async () => {
    const single = orderOf(EXAMPLE_ORDER_REQUESTS.letter).order;
    expect(await validateCampaign(single, { config })).toEqual({
      ok: false,
      issues: [{ path: "bulk", code: "required", message: expect.any(String) }],
    });
  });
});

function withoutDestination(country: string) {
  const destinations = Object.fromEntries(
    Object.entries(DEFAULT_PRICE_BOOK.destinations).filter(([code]) => code !== country),
  );
  return { ...DEFAULT_PRICE_BOOK, destinations };
}

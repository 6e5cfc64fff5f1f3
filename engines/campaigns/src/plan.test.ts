import {
  DEFAULT_OPTIONS,
  EXAMPLE_ORDER_REQUESTS,
  MAX_CAMPAIGN_ROWS,
  readCampaignCsv,
  validateOrderRequest,
} from "@mailpiece/orders";
import { DEFAULT_PRICE_BOOK, quote } from "@mailpiece/pricing";
import { describe, expect, it, vi } from "vitest";
import {
  CA,
  campaign,
  csvOf,
  DE,
  latin1,
  modelPageCount,
  reportOf,
  SENDER,
  TEMPLATE,
  US,
  withoutDestination,
} from "./campaigns.fixture.ts";
import { type CampaignPlanOptions, planCampaign } from "./plan.ts";
import type { CampaignOrderInput } from "./types.ts";

const deps: CampaignPlanOptions = { pageCount: modelPageCount, canPrint: latin1 };

async function planned(order: CampaignOrderInput, options: CampaignPlanOptions = deps) {
  const outcome = await planCampaign(order, options);
  if (!outcome.ok) throw new Error(`expected a planned campaign, got ${JSON.stringify(outcome.issues)}`);
  return outcome.plan;
}

async function refused(order: CampaignOrderInput, options: CampaignPlanOptions = deps) {
  const outcome = await planCampaign(order, options);
  if (outcome.ok) throw new Error("expected the campaign to be refused");
  return outcome.issues.map(({ path, code }) => ({ path, code }));
}

describe("planCampaign rows", () => {
  it("reports every row, the invalid ones with the code and column of each problem", async () => {
    const csv = [
      "recipient_name,line1,city,state,ZIP,venue",
      "Grace Hopper,1 Main St,Springfield,IL,62701,the park",
      "Alan Turing,2 Main St,Springfield,IL,6270,the hall",
      ",3 Main St,Springfield,,62701,the pier",
      "Ada Lovelace,4 Main St,Springfield,IL,62702,the museum",
    ].join("\n");
    const plan = await planned(campaign(csv));
    expect(reportOf(plan)).toEqual([
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
    expect(plan.invalid.map((row) => row.row_number)).toEqual([2, 3]);
    expect(plan.pieces.map((p) => [p.row_number, p.recipient.name, p.fields.venue])).toEqual([
      [1, "Grace Hopper", "the park"],
      [4, "Ada Lovelace", "the museum"],
    ]);
    expect(plan.warnings.map((w) => [w.path, w.code])).toEqual([
      ["bulk.csv_content", "campaign_rows_invalid"],
    ]);
    expect(plan.warnings[0]?.message).toBe(
      "2 of 4 rows will not be mailed: row 2 (ZIP: invalid_postal_code), row 3 (recipient_name: required, state: state_required).",
    );
  });

  it("leaves out rows with bad addresses as the orders engine checks a recipient", async () => {
    const plan = await planned(
      campaign(
        csvOf(
          US("A"),
          "B,1 Main St,Springfield,ZZ,62701,US,x",
          "C,Unter den Linden 77,Berlin,,10117,XX,x",
          "D,1 Rue Main,Montreal,,H2X 1Y4,CA,x",
          CA("E"),
        ),
      ),
    );
    expect(plan.rows.map((row) => [row.row_number, row.status])).toEqual([
      [1, "valid"],
      [2, "invalid"],
      [3, "invalid"],
      [4, "invalid"],
      [5, "valid"],
    ]);
    expect(plan.rows[1]?.errors.map((e) => e.column)).toEqual(["state"]);
    expect(plan.rows[2]?.errors.map((e) => e.column)).toEqual(["country"]);
    expect(plan.rows[3]?.errors.map((e) => [e.column, e.code])).toEqual([["state", "state_required"]]);
    // The recipient is the party the orders engine makes of the row: the province normalised to its code.
    expect(plan.pieces[1]?.recipient).toEqual({
      name: "E",
      country: "CA",
      address: {
        type: "Manual",
        line1: "1 Rue Main",
        city: "Montreal",
        state: "QC",
        zip: "H2X 1Y4",
        countryCode: "CA",
      },
    });
  });

  it("takes rows already read and leaves them as they were", async () => {
    const read = readCampaignCsv(csvOf(US("A"), DE("B")));
    const before = structuredClone(read.rows);
    const order: CampaignOrderInput = {
      sender: SENDER,
      bulk: { content_mode: "text", template_text: TEMPLATE, columns: read.columns, rows: read.rows },
    };
    const plan = await planned(order, { ...deps, book: withoutDestination("DE") });
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["country", "route_unavailable"]]],
    ]);
    expect(read.rows).toEqual(before);
  });

  it("plans a NormalizedOrder of the orders engine as it is", async () => {
    const checked = validateOrderRequest({
      ...EXAMPLE_ORDER_REQUESTS.bulk,
      color: true,
      bulk: { ...EXAMPLE_ORDER_REQUESTS.bulk.bulk, csv_content: csvOf(US("A"), DE("B"), CA("C")) },
    });
    if (!checked.ok) throw new Error("expected a valid order");
    const plan = await planned(checked.order, { ...deps, bounds: { min_cents: 0, max_cents: 20_000 } });
    // 1.80 and one color page at 0.40, plus the route's postage abroad.
    expect(plan.pieces.map((p) => [p.recipient.country, p.route, p.price_cents])).toEqual([
      ["US", "domestic", 220],
      ["DE", "international", 420],
      ["CA", "international", 370],
    ]);
  });

  it("makes a row invalid when its letter would be longer than a letter may be, naming its longest column", async () => {
    const csv = csvOf(US("A"), US("B", "v".repeat(20_000)));
    const plan = await planned(campaign(csv));
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["venue", "too_long"]]],
    ]);
    expect(plan.rows[1]?.errors[0]?.message).toContain("template_text is 20021 characters");
    const unused = await planned(campaign(csv, {}, { template_text: "Dear {{recipient_name}}" }));
    expect(unused.pieces).toHaveLength(2);
  });

  it("makes a row invalid when a value it prints holds a character the letter font cannot print", async () => {
    const csv = csvOf(
      US("Zoë Müller", "the café"),
      US("B", "the 🎉 party"),
      US("B2", "Łódź"),
      US("שלום"),
      US("C", "the park"),
    );
    const canPrint = vi.fn(latin1);
    const plan = await planned(campaign(csv), { ...deps, canPrint });
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["venue", "character_unsupported"]]],
      [3, "invalid", [["venue", "character_unsupported"]]],
      [4, "invalid", [["recipient_name", "character_unsupported"]]],
      [5, "valid", []],
    ]);
    expect(plan.rows[1]?.errors[0]?.message).toContain("U+1F389");
    expect(plan.rows[2]?.errors[0]?.message).toContain('"Ł" (U+0141)');
  });

  it("checks the characters of all rows together, never row by row", async () => {
    const canPrint = vi.fn(latin1);
    const rows = Array.from({ length: 50 }, (_, i) => US(`Zoë ${i}`, "the café"));
    const plan = await planned(campaign(csvOf(...rows)), { ...deps, canPrint });
    expect(plan.pieces).toHaveLength(50);
    expect(canPrint).toHaveBeenCalledTimes(1);
    expect(canPrint).toHaveBeenCalledWith("ë é");
  });

  it("without a font check, refuses only what no mailpiece can print", async () => {
    const plan = await planned(campaign(csvOf(US("A", "Łódź"), US("B", "🎉"))), {
      pageCount: modelPageCount,
    });
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["venue", "character_unsupported"]]],
    ]);
  });

  it("does not check the characters of a PDF campaign, whose letters are not typeset", async () => {
    const canPrint = vi.fn(() => false);
    const order = campaign(csvOf(US("B", "🎉")), {}, { content_mode: "pdf" });
    const plan = await planned(order, { pdfPages: 10, canPrint });
    expect(plan.pieces).toHaveLength(1);
    expect(canPrint).not.toHaveBeenCalled();
    expect(plan.document).toEqual({
      page_count: 10,
      page_count_basis: "bulk.pdf has 10 pages; every row is mailed the same PDF.",
    });
    // Letter base 1.80 and 10 black-and-white pages at 0.20.
    expect(plan.pieces[0]?.price_cents).toBe(380);
  });
});

describe("planCampaign quote", () => {
  it("prices each valid row by its destination and route, with subtotals by route and by destination", async () => {
    const plan = await planned(campaign(csvOf(US("A"), DE("B"), US("C"), DE("D"), US("E"))));
    // A one-page US letter costs 2.00 and is raised to the 3.40 floor; to Germany 2.00 plus 2.00 postage.
    expect(plan.pieces.map((p) => [p.row_number, p.route, p.price_cents])).toEqual([
      [1, "domestic", 340],
      [2, "international", 400],
      [3, "domestic", 340],
      [4, "international", 400],
      [5, "domestic", 340],
    ]);
    expect(plan.total_cents).toBe(3 * 340 + 2 * 400);
    expect(plan.pricing_version).toBe(DEFAULT_PRICE_BOOK.pricing_version);
    expect(plan.by_destination).toEqual([
      { destination_country: "DE", route: "international", pieces: 2, unit_cents: 400, amount_cents: 800 },
      { destination_country: "US", route: "domestic", pieces: 3, unit_cents: 340, amount_cents: 1020 },
    ]);
    expect(plan.by_route).toEqual([
      { route: "domestic", pieces: 3, amount_cents: 1020 },
      { route: "international", pieces: 2, amount_cents: 800 },
    ]);
    expect(plan.ceiling).toMatchObject({ within: true, fit_pieces: 5, fit_cents: 1820 });
  });

  it("prices international rows as a single international order: postage and registered mail abroad", async () => {
    const order = campaign(csvOf(CA("A"), US("B"), DE("C")), {
      options: { certified: true },
    });
    const plan = await planned(order, { ...deps, book: withoutDestination("DE") });
    const single = (country: string) =>
      quote(
        {
          mailpiece_type: "letter",
          page_count: 1,
          ...DEFAULT_OPTIONS,
          certified: true,
          destination_country: country,
          origin_country: "US",
        },
        { book: withoutDestination("DE") },
      );
    expect(single("CA").route.zone).toBe("international");
    expect(plan.pieces.map((p) => [p.recipient.country, p.route, p.price_cents])).toEqual([
      ["CA", "international", single("CA").total_cents],
      ["US", "domestic", single("US").total_cents],
    ]);
    // Registered mail to Canada and the route's postage make it dearer than certified mail at home.
    expect(single("CA").total_cents).toBeGreaterThan(single("US").total_cents);
    expect(plan.by_route.map((r) => [r.route, r.pieces])).toEqual([
      ["domestic", 1],
      ["international", 1],
    ]);
  });

  it("routes a piece from a sender abroad as international, and prices postcards from the book's origin", async () => {
    const abroad = {
      name: "Alan Turing",
      country: "GB",
      address: {
        type: "Manual" as const,
        line1: "1 High St",
        city: "London",
        zip: "SW1A 1AA",
        countryCode: "GB",
      },
    };
    const order = campaign(
      csvOf(US("A"), DE("B")),
      { sender: abroad, mailpiece_type: "postcard", postcard_size: "4x6" },
      { content_mode: "pdf" },
    );
    const plan = await planned(order, { pdfPages: 2 });
    expect(plan.pieces.map((p) => [p.recipient.country, p.route, p.price_cents])).toEqual([
      ["US", "international", 340],
      ["DE", "international", 390],
    ]);
    expect(plan.by_route).toEqual([{ route: "international", pieces: 2, amount_cents: 730 }]);
    // A letter from abroad cannot be posted: refused on the sender.
    expect(await refused({ ...order, mailpiece_type: "letter" }, { pdfPages: 2 })).toEqual([
      { path: "sender_address_manual", code: "route_unavailable" },
    ]);
  });

  it("refuses a campaign whose total passes the ceiling of one order, saying how many rows fit", async () => {
    // 3.40 a piece: 58 pieces cost 197.20, 59 cost 200.60.
    const rows = Array.from({ length: 100 }, (_, i) => US(`Person ${i + 1}`));
    const outcome = await planCampaign(campaign(csvOf(...rows)), deps);
    if (outcome.ok) throw new Error("expected a refusal");
    expect(outcome.issues.map(({ path, code }) => [path, code])).toEqual([
      ["bulk.csv_content", "campaign_above_ceiling"],
    ]);
    expect(outcome.issues[0]?.message).toBe(
      "This campaign costs $340.00 for 100 mailpieces; one machine order is paid with one payment of at most $200.00. " +
        "The first 58 valid rows (through CSV row 58) fit in one order ($197.20): split the CSV into campaigns that each cost at most $200.00, each under its own request_id. " +
        "Larger mailings go through the Projects API (/api/v1), paid from prepaid credits.",
    );
    expect(outcome.plan?.ceiling).toEqual({
      max_cents: 20_000,
      within: false,
      fit_pieces: 58,
      fit_cents: 58 * 340,
      fit_through_row: 58,
    });
    const fits = await planned(campaign(csvOf(...rows.slice(0, 58))));
    expect(fits.total_cents).toBe(58 * 340);
  });

  it("counts the fit in valid rows, named by their CSV row, under a ceiling of the caller's", async () => {
    const csv = csvOf(US("A"), US("B").replace("62701", "6270"), DE("C"), US("D"), DE("E"));
    const outcome = await planCampaign(campaign(csv), { ...deps, ceilingCents: 1000 });
    if (outcome.ok) throw new Error("expected a refusal");
    // 3.40 + 4.00 fit in 10.00; adding 3.40 passes it.
    expect(outcome.plan?.ceiling).toMatchObject({ fit_pieces: 2, fit_cents: 740, fit_through_row: 3 });
    expect(outcome.issues[0]?.message).toContain(
      "The first 2 valid rows (through CSV row 3) fit in one order ($7.40)",
    );
    const none = await planCampaign(campaign(csv), { ...deps, ceilingCents: 100 });
    expect(none.ok ? "" : none.issues[0]?.message).not.toContain("The first");
  });

  it("makes a row to a route the price book lacks invalid with route_unavailable on its country column", async () => {
    const csv = csvOf(US("A"), DE("B")).replace(",country,", ",Country_Code,");
    const plan = await planned(campaign(csv), { ...deps, book: withoutDestination("DE") });
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["Country_Code", "route_unavailable"]]],
    ]);
    expect(plan.by_destination.map((r) => r.destination_country)).toEqual(["US"]);
  });

  it("makes a row invalid when an option is not carried to its destination", async () => {
    const plan = await planned(campaign(csvOf(US("A"), DE("B")), { options: { mail_class: "priority" } }));
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["country", "option_unavailable"]]],
    ]);
  });

  it("makes a row invalid when its piece would cost more than one order may", async () => {
    const plan = await planned(campaign(csvOf(US("A"), DE("B"))), {
      ...deps,
      bounds: { min_cents: 340, max_cents: 380 },
    });
    expect(reportOf(plan)).toEqual([
      [1, "valid", []],
      [2, "invalid", [["country", "quote_above_ceiling"]]],
    ]);
  });

  it("refuses the campaign when the sender's country cannot post, on the sender", async () => {
    const fromCanada = { ...DEFAULT_PRICE_BOOK, origin_country: "CA" };
    expect(await refused(campaign(csvOf(US("A"))), { ...deps, book: fromCanada })).toEqual([
      { path: "sender_address_manual", code: "route_unavailable" },
    ]);
  });
});

describe("planCampaign refusals", () => {
  it("refuses a campaign only when no row is valid, saying why each row was left out", async () => {
    const noGermany = { ...deps, book: withoutDestination("DE") };
    const outcome = await planCampaign(campaign(csvOf(DE("A"))), noGermany);
    expect(outcome.ok ? [] : outcome.issues).toEqual([
      {
        path: "bulk.csv_content",
        code: "campaign_no_valid_rows",
        message: "None of the 1 rows can be mailed: row 1 (country: route_unavailable).",
      },
    ]);
    const oneLeft = await planned(campaign(csvOf(DE("A"), DE("B"), US("C"))), noGermany);
    expect([oneLeft.pieces.length, oneLeft.rows.length]).toEqual([1, 3]);
  });

  it("refuses a CSV whose file has problems, on bulk.csv_content", async () => {
    expect(await refused(campaign("recipient_name,city\nA,Springfield"))).toEqual([
      { path: "bulk.csv_content", code: "csv_missing_column" },
    ]);
  });

  it("refuses more than MAX_CAMPAIGN_ROWS rows", async () => {
    const read = readCampaignCsv(csvOf(US("A")));
    const row = read.rows[0]!;
    const rows = Array.from({ length: MAX_CAMPAIGN_ROWS + 1 }, (_, i) => ({ ...row, row_number: i + 1 }));
    const order = (count: number): CampaignOrderInput => ({
      sender: SENDER,
      bulk: {
        content_mode: "text",
        template_text: TEMPLATE,
        columns: read.columns,
        rows: rows.slice(0, count),
      },
    });
    expect(await refused(order(rows.length))).toEqual([
      { path: "bulk.csv_content", code: "campaign_too_many_rows" },
    ]);
    // At the row limit the rows are not refused; what one payment may carry bounds the campaign instead.
    expect(await refused(order(MAX_CAMPAIGN_ROWS))).toEqual([
      { path: "bulk.csv_content", code: "campaign_above_ceiling" },
    ]);
  });

  it("refuses an order that is not a campaign", async () => {
    expect(await planCampaign({ sender: SENDER }, deps)).toEqual({
      ok: false,
      issues: [{ path: "bulk", code: "required", message: "The order carries no bulk campaign." }],
    });
  });

  it("throws CampaignsError when the pages cannot be known", async () => {
    await expect(planCampaign(campaign(csvOf(US("A"))), {})).rejects.toMatchObject({
      name: "CampaignsError",
      code: "campaign_input_invalid",
    });
    await expect(
      planCampaign(campaign(csvOf(US("A")), {}, { content_mode: "pdf" }), deps),
    ).rejects.toMatchObject({ code: "campaign_input_invalid" });
    await expect(planCampaign(campaign(csvOf(US("A"))), { pageCount: () => 0 })).rejects.toMatchObject({
      code: "page_count_invalid",
    });
  });

  it("lets the page counter's own errors through", async () => {
    const failure = new Error("the typesetter refused the template");
    const pageCount = () => Promise.reject(failure);
    await expect(planCampaign(campaign(csvOf(US("A"))), { pageCount })).rejects.toBe(failure);
  });
});

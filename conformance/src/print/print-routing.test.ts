import {
  capabilityGap,
  carries,
  findPrintJobProblem,
  isDefiniteRefusal,
  type PrintCapabilities,
  PrintError,
  type PrintErrorCode,
  type PrintJob,
  routeProvider,
} from "@mailpiece/ports";
import { describe, expect, it } from "vitest";
import { addressIn, letterJob, malformedJobs, postcardJob } from "./print-job-fixtures.ts";

/** Shaped like spec 1's first provider: international postcards only 4x6 with a U.S. return address. */
const FIRST: PrintCapabilities = {
  origin_country: "US",
  countries: ["US", "CA", "GB", "FR"],
  mailpiece_types: ["letter", "postcard"],
  postcard_sizes: ["4x6", "6x9", "11x6"],
  mail_classes: ["standard", "priority", "express"],
  certified: true,
  registered: ["CA", "FR"],
  international_postcards: { sizes: ["4x6"], return_address: "domestic" },
  color: true,
  double_sided: true,
};

/** The second provider: larger international postcards and any return address. */
const SECOND: PrintCapabilities = {
  ...FIRST,
  mailpiece_types: ["postcard"],
  postcard_sizes: ["4x6", "6x9"],
  international_postcards: { sizes: ["4x6", "6x9"], return_address: "any" },
};

const first = { name: "first", capabilities: FIRST };
const FIRST_LETTER = await letterJob("US");
const second = { name: "second", capabilities: SECOND };

function codeOf(action: () => unknown): PrintErrorCode | undefined {
  try {
    action();
  } catch (error) {
    if (PrintError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe("routeProvider: spec 1's postcard rule", () => {
  it("sends international 4x6 postcards with a U.S. return address to the first provider", async () => {
    expect(routeProvider([first, second], await postcardJob("GB", "4x6", "US"))).toBe(first);
  });

  it("sends larger international postcards to the second provider", async () => {
    expect(routeProvider([first, second], await postcardJob("GB", "6x9", "US"))).toBe(second);
  });

  it("sends international postcards with a non-U.S. or no return address to the second provider", async () => {
    expect(routeProvider([first, second], await postcardJob("GB", "4x6", "CA"))).toBe(second);
    expect(routeProvider([first, second], await postcardJob("FR", "4x6", null))).toBe(second);
  });

  it("keeps domestic postcards of every size with the first provider", async () => {
    for (const size of ["4x6", "6x9", "11x6"] as const) {
      expect(routeProvider([first, second], await postcardJob("US", size, "CA"))).toBe(first);
    }
  });

  it("refuses with no_capable_provider when no provider declares the capability, naming each gap", async () => {
    let caught: unknown;
    try {
      routeProvider([first, second], await postcardJob("GB", "11x6", "US"));
    } catch (error) {
      caught = error;
    }
    expect(PrintError.isInstance(caught) && caught.code).toBe("no_capable_provider");
    expect((caught as Error).message).toContain("first:");
    expect((caught as Error).message).toContain("second:");
    expect(codeOf(() => routeProvider([], FIRST_LETTER))).toBe("no_capable_provider");
  });

  it("takes the first carrying provider in the order given", async () => {
    const job = await letterJob("US");
    const alsoLetters = {
      name: "also",
      capabilities: { ...SECOND, mailpiece_types: ["letter", "postcard"] as const },
    };
    expect(routeProvider([first, alsoLetters], job)).toBe(first);
    expect(routeProvider([alsoLetters, first], job)).toBe(alsoLetters);
    expect(routeProvider([second, first], job)).toBe(first);
  });

  it("refuses a malformed job with invalid_job before routing", async () => {
    const bad = { ...(await letterJob("US")), mail_class: "overnight" as PrintJob["mail_class"] };
    expect(codeOf(() => routeProvider([first, second], bad))).toBe("invalid_job");
  });
});

describe("capabilityGap", () => {
  const only = (changes: Partial<PrintCapabilities>): PrintCapabilities => ({ ...FIRST, ...changes });
  const cases: Array<[string, PrintCapabilities, () => Promise<PrintJob>, string]> = [
    ["an undeclared country", FIRST, () => letterJob("DE", {}, "US"), "recipient.country"],
    [
      "an undeclared mailpiece type",
      only({ mailpiece_types: ["postcard"] }),
      () => letterJob("US"),
      "mailpiece_type",
    ],
    [
      "an undeclared mail class",
      only({ mail_classes: ["standard"] }),
      () => letterJob("US", { mail_class: "express" }),
      "mail_class",
    ],
    ["color without color", only({ color: false }), () => letterJob("US", { color: true }), "color"],
    ["two sides without duplex", only({ double_sided: false }), () => letterJob("US"), "double_sided"],
    [
      "an undeclared postcard size",
      only({ postcard_sizes: ["4x6"] }),
      () => postcardJob("US", "6x9", "US"),
      "postcard_size",
    ],
    [
      "a postcard abroad without international postcards",
      only({ international_postcards: null }),
      () => postcardJob("CA", "4x6", "US"),
      "recipient.country",
    ],
    ["a postcard abroad in an undeclared size", FIRST, () => postcardJob("CA", "6x9", "US"), "postcard_size"],
    [
      "a postcard abroad with a foreign return address",
      FIRST,
      () => postcardJob("CA", "4x6", "GB"),
      "sender.country",
    ],
    [
      "a postcard abroad without a return address",
      FIRST,
      () => postcardJob("CA", "4x6", null),
      "sender.country",
    ],
    [
      "certified mail at home without certified",
      only({ certified: false }),
      () => letterJob("US", { certified: true }),
      "certified",
    ],
    [
      "registered mail where none is offered",
      FIRST,
      () => letterJob("GB", { certified: true }, "US"),
      "certified",
    ],
  ];
  for (const [label, capabilities, make, field] of cases) {
    it(`finds ${label} (${field})`, async () => {
      const job = await make();
      expect(findPrintJobProblem(job)).toBeUndefined();
      expect(capabilityGap(capabilities, job)?.field).toBe(field);
      expect(carries(capabilities, job)).toBe(false);
      expect(carries(SIMULATED_LIKE, job)).toBe(true);
    });
  }

  it("carries what the capabilities declare", async () => {
    const jobs = [
      await letterJob("US", { certified: true }),
      await letterJob("CA", { certified: true }, "US"),
      await letterJob("FR", { color: true, mail_class: "priority" }, "US"),
      await postcardJob("US", "11x6", null),
      await postcardJob("GB", "4x6", "US"),
    ];
    for (const job of jobs) expect(capabilityGap(FIRST, job)).toBeUndefined();
  });
});

/** Everything declared, for the control in the gap tests. */
const SIMULATED_LIKE: PrintCapabilities = {
  ...FIRST,
  countries: ["US", "CA", "GB", "FR", "DE"],
  registered: ["CA", "FR", "GB"],
  international_postcards: { sizes: ["4x6", "6x9", "11x6"], return_address: "any" },
};

describe("findPrintJobProblem", () => {
  it("accepts well-formed letters and postcards", async () => {
    expect(findPrintJobProblem(await letterJob("US"))).toBeUndefined();
    expect(findPrintJobProblem(await postcardJob("GB", "6x9", null))).toBeUndefined();
    const minimal = { ...(await letterJob("US")), sender: null, recipient: addressIn("FR") };
    expect(findPrintJobProblem(minimal)).toBeUndefined();
  });

  it("names the field of each malformed job", async () => {
    const fields = malformedJobs(await letterJob("US")).map(({ job }) => findPrintJobProblem(job)?.field);
    expect(fields).toEqual([
      "mailpiece_type",
      "postcard_size",
      "postcard_size",
      "document.bytes",
      "document.sha256",
      "document.page_count",
      "recipient.line1",
      "recipient.country",
      "recipient.name",
      "sender.postal_code",
      "mail_class",
      "color",
      "certified",
      "postcard_size",
      "mail_class",
      "certified",
      "certified_return_receipt",
      "return_receipt_format",
      "certified_return_receipt",
      "return_receipt_format",
    ]);
  });

  it("checks every address field, optional ones when present", async () => {
    const letter = await letterJob("US");
    const cases: Array<[Partial<PrintJob["recipient"]>, string]> = [
      [{ name: "n".repeat(256) }, "recipient.name"],
      [{ company: "" }, "recipient.company"],
      [{ line1: "l".repeat(257) }, "recipient.line1"],
      [{ line2: " " }, "recipient.line2"],
      [{ city: "" }, "recipient.city"],
      [{ state: "s".repeat(61) }, "recipient.state"],
      [{ postal_code: "1".repeat(21) }, "recipient.postal_code"],
      [{ country: "USA" }, "recipient.country"],
    ];
    for (const [change, field] of cases) {
      expect(findPrintJobProblem({ ...letter, recipient: { ...letter.recipient, ...change } })?.field).toBe(
        field,
      );
    }
    const full = { ...letter.recipient, company: "Acme", line2: "Suite 5", state: "DC" };
    expect(findPrintJobProblem({ ...letter, recipient: full })).toBeUndefined();
    expect(findPrintJobProblem({ ...letter, sender: undefined as unknown as null })?.field).toBe("sender");
  });

  it("holds postcards to their fixed options and two pages", async () => {
    const card = await postcardJob("US", "4x6", "US");
    const variants: Array<[Partial<PrintJob>, string]> = [
      [{ mail_class: "priority" }, "mail_class"],
      [{ color: false }, "color"],
      [{ double_sided: false }, "double_sided"],
      [{ certified: true }, "certified"],
      [{ document: { ...card.document, page_count: 1 } }, "document.page_count"],
    ];
    for (const [change, field] of variants) {
      expect(findPrintJobProblem({ ...card, ...change })?.field).toBe(field);
    }
  });

  it("refuses letters above 199 pages and non-objects", async () => {
    const letter = await letterJob("US");
    expect(findPrintJobProblem({ ...letter, document: { ...letter.document, page_count: 200 } })?.field).toBe(
      "document.page_count",
    );
    expect(findPrintJobProblem(null as unknown as PrintJob)).toBeDefined();
    expect(
      findPrintJobProblem({ ...letter, recipient: null as unknown as PrintJob["recipient"] })?.field,
    ).toBe("recipient");
  });
});

describe("isDefiniteRefusal", () => {
  it("is true only for the submit refusals that create nothing", () => {
    const definite: PrintErrorCode[] = [
      "invalid_job",
      "invalid_idempotency_key",
      "unsupported_job",
      "job_rejected",
      "idempotency_conflict",
    ];
    const unknown: PrintErrorCode[] = [
      "provider_unavailable",
      "job_not_found",
      "cancel_too_late",
      "no_capable_provider",
    ];
    for (const code of definite) expect(isDefiniteRefusal(new PrintError(code, "x"))).toBe(true);
    for (const code of unknown) expect(isDefiniteRefusal(new PrintError(code, "x"))).toBe(false);
    expect(isDefiniteRefusal(new Error("socket hang up"))).toBe(false);
    expect(isDefiniteRefusal(Object.assign(new Error("x"), { code: "invalid_job" }))).toBe(false);
  });

  it("recognises PrintErrors across copies by their marker", () => {
    const lookalike = Object.assign(new Error("x"), {
      [Symbol.for("mailpiece.error.PrintError")]: true,
      code: "job_rejected",
    });
    expect(PrintError.isInstance(lookalike)).toBe(true);
    expect(new PrintError("invalid_job", "bad", { field: "mail_class" }).field).toBe("mail_class");
  });
});

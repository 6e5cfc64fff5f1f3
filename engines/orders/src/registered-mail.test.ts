import { describe, expect, it } from "vitest";
import { IssueList } from "./issues.ts";
import { DEFAULT_OPTIONS, type MailOptions } from "./mail-options.ts";
import { applyRegisteredMail, travelsRegistered } from "./registered-mail.ts";

const certified = (patch: Partial<MailOptions> = {}): MailOptions => ({
  ...DEFAULT_OPTIONS,
  certified: true,
  certified_return_receipt: true,
  ...patch,
});

function apply(options: MailOptions, destinations: string[]) {
  const issues = new IssueList();
  const warnings = new IssueList();
  applyRegisteredMail(options, destinations, issues, warnings);
  const short = (list: IssueList) => list.items.map(({ path, code }) => `${path}:${code}`);
  return { options, issues: short(issues), warnings: short(warnings) };
}

describe("travelsRegistered", () => {
  it("is certified mail to a destination outside the US", () => {
    expect(travelsRegistered(true, "FR")).toBe(true);
    expect(travelsRegistered(true, "US")).toBe(false);
    expect(travelsRegistered(false, "FR")).toBe(false);
  });
});

describe("applyRegisteredMail", () => {
  it("sets the receipt options of registered mail back to their defaults, one warning each", () => {
    const result = apply(certified({ return_receipt_format: "physical" }), ["CA"]);
    expect(result.options).toMatchObject({ certified: true, certified_return_receipt: false });
    expect(result.options.return_receipt_format).toBe("electronic");
    expect(result.warnings).toEqual([
      "certified_return_receipt:option_ignored",
      "return_receipt_format:option_ignored",
    ]);
    expect(result.issues).toEqual([]);
  });

  it("changes nothing for US destinations, uncertified mail or unknown destinations", () => {
    for (const [options, destinations] of [
      [certified(), ["US"]],
      [certified(), []],
      [{ ...DEFAULT_OPTIONS }, ["FR"]],
    ] as const) {
      const before = structuredClone(options);
      const result = apply({ ...options }, [...destinations]);
      expect(result.options).toEqual(before);
      expect([...result.issues, ...result.warnings]).toEqual([]);
    }
  });

  it("with destinations in and outside the US keeps the receipt and warns", () => {
    const result = apply(certified(), ["US", "FR"]);
    expect(result.options.certified_return_receipt).toBe(true);
    expect(result.warnings).toEqual(["certified_return_receipt:option_ignored"]);
  });

  it("refuses restricted delivery when a piece travels registered", () => {
    expect(apply(certified({ restricted_delivery: true }), ["US", "FR"]).issues).toEqual([
      "restricted_delivery:restricted_delivery_unavailable",
    ]);
  });
});

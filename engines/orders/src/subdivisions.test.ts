import { describe, expect, it } from "vitest";
import { CA_PROVINCES, resolveSubdivision, subdivisionName, US_STATES } from "./subdivisions.ts";

describe("subdivision lists", () => {
  it("US: the 50 states, DC, five territories and three military codes", () => {
    const codes = Object.keys(US_STATES);
    expect(codes).toHaveLength(50 + 1 + 5 + 3);
    for (const code of ["DC", "AS", "GU", "MP", "PR", "VI", "AA", "AE", "AP"]) expect(codes).toContain(code);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
  });

  it("Canada: ten provinces and three territories", () => {
    expect(Object.keys(CA_PROVINCES).sort()).toEqual(
      ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"].sort(),
    );
  });

  it("no code is both a US and a Canadian one", () => {
    for (const code of Object.keys(CA_PROVINCES)) expect(Object.hasOwn(US_STATES, code)).toBe(false);
  });
});

describe("resolveSubdivision", () => {
  it("takes codes and names in any case, accents and dots ignored", () => {
    expect(resolveSubdivision("US", "Illinois")).toBe("IL");
    expect(resolveSubdivision("US", "ILLINOIS")).toBe("IL");
    expect(resolveSubdivision("US", "il")).toBe("IL");
    expect(resolveSubdivision("US", "D.C.")).toBe("DC");
    expect(resolveSubdivision("US", "U.S. Virgin Islands")).toBe("VI");
    expect(resolveSubdivision("CA", "british columbia")).toBe("BC");
    expect(resolveSubdivision("CA", "Québec")).toBe("QC");
  });

  it("refuses anything else, and the other country's codes", () => {
    for (const value of ["ZZ", "", "Ill", "Illinois State", "ON", "constructor", "__proto__", "toString"]) {
      expect(resolveSubdivision("US", value), value).toBeUndefined();
    }
    expect(resolveSubdivision("CA", "IL")).toBeUndefined();
  });

  it("subdivisionName gives the name of a code", () => {
    expect(subdivisionName("US", "IL")).toBe("Illinois");
    expect(subdivisionName("CA", "QC")).toBe("Quebec");
    expect(subdivisionName("US", "toString")).toBeUndefined();
  });
});

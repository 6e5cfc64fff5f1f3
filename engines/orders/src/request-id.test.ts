import { describe, expect, it } from "vitest";
import { isRequestId, UUID_PATTERN } from "./request-id.ts";

const ID = "3f0c6a1e-5b7d-4c2a-9e8f-1a2b3c4d5e6f";

describe("isRequestId", () => {
  it("accepts a canonical UUID in either case", () => {
    expect(isRequestId(ID)).toBe(true);
    expect(isRequestId(ID.toUpperCase())).toBe(true);
    expect(isRequestId("00000000-0000-0000-0000-000000000000")).toBe(true);
  });

  it("refuses everything else, without throwing", () => {
    for (const value of [
      undefined,
      null,
      42,
      {},
      [ID],
      "",
      `urn:uuid:${ID}`,
      `{${ID}}`,
      `${ID}\n`,
      `${ID} `,
      `${ID}\u0000`,
      `${ID.slice(0, -1)}\ud800`,
      `${ID.slice(0, -2)}🎉`,
      ID.replace(/-/g, ""),
      ID.replace("3", "g"),
      `${ID}0`,
    ]) {
      expect(isRequestId(value), JSON.stringify(value)).toBe(false);
    }
  });

  it("UUID_PATTERN is the same rule for JSON Schema", () => {
    expect(new RegExp(UUID_PATTERN).test(ID)).toBe(true);
    expect(new RegExp(UUID_PATTERN).test(`urn:uuid:${ID}`)).toBe(false);
  });
});

import { readFileSync } from "node:fs";
import { STATUS_TABLE } from "@mailpiece/v1";
import { describe, expect, it } from "vitest";
import { TEST_DRAFTS_CODES } from "./errors.ts";

describe("the error codes of the test drafts", () => {
  it("are the README's table, each with its status in the Projects API's table", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("\n## Errors"), readme.indexOf("\n## Tests"));
    const rows = [...section.matchAll(/^\| ((?:`[a-z_]+`(?:, )?)+) \| (\d{3}) \|/gm)].flatMap(
      ([, codes, status]) => [...codes!.matchAll(/`([a-z_]+)`/g)].map(([, code]) => [code, Number(status)]),
    );
    expect(rows).toEqual(TEST_DRAFTS_CODES.map((code) => [code, STATUS_TABLE[code].status]));
  });
});

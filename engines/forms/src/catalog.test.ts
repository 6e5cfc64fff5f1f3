import { describe, expect, it } from "vitest";
import { BUILTIN_WORKFLOWS } from "./builtin-workflows.ts";
import { findWorkflow, listWorkflows } from "./catalog.ts";
import { checkCertified } from "./certified.ts";
import { loadWorkflow } from "./load-workflow.ts";
import { BANK, builtin, COURT, MORTGAGE } from "./test-support.ts";
import type { Workflow } from "./workflow.ts";

/** Many copies of a workflow under other slugs, to page through. */
function many(count: number): Workflow[] {
  const base = structuredClone(builtin(COURT)) as unknown as Record<string, unknown>;
  return Array.from({ length: count }, (_, i) =>
    loadWorkflow({ ...base, slug: `form-${String(i).padStart(3, "0")}`, name: `Form ${i}`, aliases: [] }),
  );
}

describe("findWorkflow", () => {
  it("finds by slug and by each alias, in any case", () => {
    expect(findWorkflow(BUILTIN_WORKFLOWS, MORTGAGE)?.slug).toBe(MORTGAGE);
    for (const workflow of BUILTIN_WORKFLOWS) {
      for (const alias of workflow.aliases)
        expect(findWorkflow(BUILTIN_WORKFLOWS, alias)?.slug).toBe(workflow.slug);
    }
    expect(findWorkflow(BUILTIN_WORKFLOWS, " RESPA-Notice-Of-Error ")?.slug).toBe(MORTGAGE);
  });
  it("finds nothing for an unknown slug", () => {
    expect(findWorkflow(BUILTIN_WORKFLOWS, "eviction-notice")).toBeUndefined();
  });
});

describe("listWorkflows", () => {
  it("lists every workflow sorted by slug, 50 at a time by default", () => {
    const page = listWorkflows(BUILTIN_WORKFLOWS, {});
    expect(page.forms.map((f) => f.slug)).toEqual([BANK, COURT, MORTGAGE]);
    expect(page.next_cursor).toBeNull();
    expect(page.forms[0]).toMatchObject({ certified: "required", schema_version: 1, workflow_version: 1 });
    const sixty = many(60);
    expect(listWorkflows(sixty).forms).toHaveLength(50);
  });

  it("searches slugs, names and aliases, ignoring case", () => {
    const slugs = (q: string) => listWorkflows(BUILTIN_WORKFLOWS, { q }).forms.map((f) => f.slug);
    expect(slugs("court")).toEqual([COURT]);
    expect(slugs("Regulation-E")).toEqual([BANK]);
    expect(slugs("servicing error packet")).toEqual([MORTGAGE]);
    expect(slugs("respa")).toEqual([MORTGAGE]);
    expect(slugs("postcard")).toEqual([]);
    expect(slugs("  ")).toHaveLength(3);
  });

  it("pages with next_cursor until the end", () => {
    const forms = many(7);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = listWorkflows(forms, { limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.forms.map((f) => f.slug));
      if (page.next_cursor === null) break;
      cursor = page.next_cursor;
    }
    expect(seen).toEqual(forms.map((f) => f.slug));
  });

  it("takes a limit from 1 to 200, also as a query-string number", () => {
    const forms = many(201);
    expect(listWorkflows(forms, { limit: 1 }).forms).toHaveLength(1);
    expect(listWorkflows(forms, { limit: 200 }).forms).toHaveLength(200);
    expect(listWorkflows(forms, { limit: "2" }).forms).toHaveLength(2);
  });

  it.each([0, 201, 1.5, -1, "ten", "", Number.NaN])("refuses limit %j with invalid_query", (limit) => {
    expect(() => listWorkflows(BUILTIN_WORKFLOWS, { limit })).toThrow(
      expect.objectContaining({ code: "invalid_query" }),
    );
  });

  it.each(["", "abc", "f1.", "f1.!!!", "f1.QUJD", `f1.${Buffer.from("a b").toString("base64url")}`])(
    "refuses cursor %j with invalid_query",
    (cursor) => {
      expect(() => listWorkflows(BUILTIN_WORKFLOWS, { cursor })).toThrow(
        expect.objectContaining({ code: "invalid_query" }),
      );
    },
  );

  it("refuses a q that is not a short string", () => {
    expect(() => listWorkflows(BUILTIN_WORKFLOWS, { q: "x".repeat(201) })).toThrow(
      expect.objectContaining({ code: "invalid_query" }),
    );
  });
});

describe("checkCertified", () => {
  it("refuses certified false where Certified Mail is required, with certified_required", () => {
    expect(checkCertified(builtin(MORTGAGE), false)).toMatchObject({
      path: "certified",
      code: "certified_required",
    });
    expect(checkCertified(builtin(BANK), false)).toMatchObject({ code: "certified_required" });
    expect(checkCertified(builtin(BANK), true)).toBeUndefined();
    expect(checkCertified(builtin(BANK), undefined)).toBeUndefined();
    expect(checkCertified(builtin(COURT), false)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
import { validateOrderRequest } from "./validate-order-request.ts";

const postcard = (patch: Record<string, unknown> = {}) => {
  const body: Record<string, unknown> = { ...structuredClone(EXAMPLE_ORDER_REQUESTS.postcard), ...patch };
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return body;
};

function issuesOf(body: unknown) {
  const result = validateOrderRequest(body);
  return result.ok ? [] : result.issues.map(({ path, code }) => ({ path, code }));
}

describe("postcards", () => {
  it("need postcard_size", () => {
    expect(issuesOf(postcard({ postcard_size: undefined }))).toEqual([
      { path: "postcard_size", code: "postcard_size_required" },
    ]);
  });
  it("postcard_size is 4x6, 6x9 or 11x6", () => {
    expect(issuesOf(postcard({ postcard_size: "5x7" }))).toEqual([
      { path: "postcard_size", code: "invalid_enum" },
    ]);
    for (const size of ["4x6", "6x9", "11x6"])
      expect(issuesOf(postcard({ postcard_size: size }))).toEqual([]);
  });
  it("postcard_size needs mailpiece_type postcard", () => {
    expect(issuesOf(postcard({ mailpiece_type: undefined }))).toEqual([
      { path: "postcard_size", code: "postcard_size_requires_postcard" },
    ]);
    expect(issuesOf(postcard({ mailpiece_type: "letter" }))).toEqual([
      { path: "postcard_size", code: "postcard_size_requires_postcard" },
    ]);
  });
  it("an unknown mailpiece_type is only an enum problem", () => {
    expect(issuesOf(postcard({ mailpiece_type: "card" }))).toEqual([
      { path: "mailpiece_type", code: "invalid_enum" },
    ]);
  });
  it("a postcard is a pdf, not a letter", () => {
    expect(issuesOf(postcard({ pdf: undefined, letter: "Greetings" }))).toEqual([
      { path: "letter", code: "postcard_requires_pdf" },
    ]);
  });
  it("a workflow form is never a postcard", () => {
    expect(issuesOf(postcard({ pdf: undefined, form: EXAMPLE_ORDER_REQUESTS.form.form }))).toEqual([
      { path: "form", code: "form_not_postcard" },
    ]);
  });
  it("a postcard campaign uses content_mode pdf", () => {
    const bulk = {
      ...structuredClone(EXAMPLE_ORDER_REQUESTS.bulk),
      mailpiece_type: "postcard",
      postcard_size: "6x9",
    };
    expect(issuesOf(bulk)).toEqual([{ path: "bulk.content_mode", code: "postcard_requires_pdf" }]);
    const pdfMode = {
      ...bulk,
      bulk: {
        content_mode: "pdf",
        pdf: { upload_token: "t" },
        csv_content: EXAMPLE_ORDER_REQUESTS.bulk.bulk.csv_content,
      },
    };
    expect(issuesOf(pdfMode)).toEqual([]);
  });
});

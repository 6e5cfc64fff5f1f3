import type { Issue } from "@mailpiece/orders";

/** Checks the JSON body that opens an upload slot: {file_name, content_type, content_length}. */
export function uploadRequestIssues(body: unknown): Issue[] {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return [{ path: "", code: "invalid_type", message: "The body must be a JSON object." }];
  }
  const b = body as Record<string, unknown>;
  const issues: Issue[] = [];
  for (const key of Object.keys(b)) {
    if (!["file_name", "content_type", "content_length"].includes(key)) {
      issues.push({ path: key, code: "unknown_property", message: `Unknown property ${key}.` });
    }
  }
  if (typeof b.file_name !== "string" || b.file_name.length < 1 || b.file_name.length > 255) {
    issues.push({
      path: "file_name",
      code: b.file_name === undefined ? "required" : "invalid_type",
      message: "file_name: 1 to 255 characters.",
    });
  }
  if (b.content_type !== "application/pdf") {
    issues.push({
      path: "content_type",
      code: b.content_type === undefined ? "required" : "invalid_enum",
      message: "content_type must be application/pdf.",
    });
  }
  if (!Number.isInteger(b.content_length) || (b.content_length as number) < 1) {
    issues.push({
      path: "content_length",
      code: b.content_length === undefined ? "required" : "out_of_range",
      message: "content_length: the PDF's size in bytes (at least 1; at most 100 MB).",
    });
  } else if ((b.content_length as number) > 100 * 1024 * 1024) {
    issues.push({ path: "content_length", code: "out_of_range", message: "PDFs are at most 100 MB." });
  }
  return issues;
}

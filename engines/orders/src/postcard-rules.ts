import { CONTENT_MODES } from "./bulk-schema.ts";
import type { IssueList } from "./issues.ts";
import { enumField, type JsonObject, objectField, present } from "./json-access.ts";
import { MAILPIECE_TYPES } from "./order-request-schema.ts";

/**
 * Postcards: mailpiece_type postcard needs postcard_size, and postcard_size needs mailpiece_type postcard.
 * A postcard is a fully composed PDF, so neither a letter nor a workflow form (forms are letters) can be one;
 * a bulk postcard campaign uses content_mode pdf.
 */
export function checkPostcardRules(body: JsonObject, issues: IssueList): void {
  const type = enumField(body, "mailpiece_type", MAILPIECE_TYPES);
  const typeValid = type !== undefined || !present(body, "mailpiece_type");
  const postcard = type === "postcard";

  if (postcard && !present(body, "postcard_size")) {
    issues.add(
      "postcard_size",
      "postcard_size_required",
      "A postcard needs postcard_size: 4x6, 6x9 or 11x6.",
    );
  }
  if (!postcard && typeValid && present(body, "postcard_size")) {
    issues.add(
      "postcard_size",
      "postcard_size_requires_postcard",
      "postcard_size only applies to postcards; set mailpiece_type postcard or remove postcard_size.",
    );
  }
  if (!postcard) return;
  if (present(body, "letter")) {
    issues.add(
      "letter",
      "postcard_requires_pdf",
      "A postcard is sent as its composed 2-page pdf, not as letter text.",
    );
  }
  if (present(body, "form")) {
    issues.add(
      "form",
      "form_not_postcard",
      "Workflow forms are mailed as letters; use mailpiece_type letter.",
    );
  }
  const bulk = objectField(body, "bulk");
  const mode = bulk === undefined ? undefined : enumField(bulk, "content_mode", CONTENT_MODES);
  if (mode !== undefined && mode !== "pdf") {
    issues.add(
      "bulk.content_mode",
      "postcard_requires_pdf",
      "A postcard campaign mails one composed pdf; use content_mode pdf.",
    );
  }
}

import { makePdf } from "@mailpiece/conformance";
import { expect } from "vitest";
import type { MailpieceCore } from "../core.ts";
import { CoreError } from "../errors.ts";
import type { Principal } from "../workspaces/workspaces.ts";

/** A Projects API document of `pages` pages, declared, uploaded and completed in the principal's workspace. */
export async function readyDocument(core: MailpieceCore, principal: Principal, pages = 1): Promise<string> {
  const pdf = await makePdf(pages);
  const intent = await core.projects.createUploadIntent(principal, {
    content_type: "application/pdf",
    byte_size: pdf.byteLength,
  });
  await core.projects.uploadDocument({
    document_id: intent.document_id,
    token: new URL(intent.upload_path, "http://x").searchParams.get("token")!,
    content_type: "application/pdf",
    bytes: pdf,
  });
  await core.projects.completeDocument(principal, intent.document_id, { page_count: pages });
  return intent.document_id;
}

/** The CoreError a use case threw (the test fails when it answered, or threw something else). */
export async function refusal(promise: Promise<unknown>): Promise<CoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(CoreError.isInstance(error), String(error)).toBe(true);
  return error as CoreError;
}

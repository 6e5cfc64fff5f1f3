import { readJsonBody } from "../body.ts";
import { V1Error } from "../errors.ts";
import { json, type RouteContext } from "../route.ts";

/**
 * Documents (spec 3): POST /documents/upload-intent declares a PDF and answers a temporary upload URL; a PUT of the
 * declared bytes to that URL (authorized by its secret, no key) uploads it once; POST /documents/{id}/complete runs
 * the PDF preflight and checks page_count; GET /documents/{id} shows it. Only the key's workspace and mode see a
 * document; anything else is not_found.
 */
export function documentRoutes({ core, publicUrl, route, publicRoute }: RouteContext): void {
  route("POST", "/documents/upload-intent", async (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    const { upload_path, ...intent } = await core.projects.createUploadIntent(
      principal,
      await readJsonBody(event),
    );
    return json({ ...intent, upload_url: `${publicUrl}${upload_path}` }, 201);
  });

  publicRoute("PUT", "/documents/:document_id/upload", async (event) => {
    const declared = event.req.headers.get("content-length");
    if (declared === null || !/^\d+$/.test(declared)) {
      throw new V1Error(
        "length_required",
        "Send the upload with a Content-Length: the size declared in the intent.",
      );
    }
    if (Number(declared) > core.config.maxPdfBytes) {
      throw new V1Error("payload_too_large", `The upload is larger than ${core.config.maxPdfBytes} bytes.`);
    }
    const token = new URL(event.req.url).searchParams.get("token") ?? "";
    return core.projects.uploadDocument({
      document_id: event.context.params?.document_id ?? "",
      token,
      content_type: event.req.headers.get("content-type"),
      bytes: new Uint8Array(await event.req.arrayBuffer()),
    });
  });

  route("POST", "/documents/:document_id/complete", async (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    const body = await readJsonBody(event);
    return core.projects.completeDocument(principal, event.context.params?.document_id ?? "", body);
  });

  route("GET", "/documents/:document_id", (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.projects.getDocument(principal, event.context.params?.document_id ?? "");
  });
}

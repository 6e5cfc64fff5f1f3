import { readJsonBody } from "../body.ts";
import { V1Error } from "../errors.ts";
import { json, RESPONSE_HEADERS_FOR_PDF, type RouteContext } from "../route.ts";

/**
 * Handwritten mail (spec 3): POST /handwritten ({message, recipient, sender, style?, metadata?} with an
 * Idempotency-Key: a card written in a handwriting font from a proof, its price reserved on the credits), POST
 * /handwritten/drafts (the same body saved as a draft, spending nothing), GET /handwritten/{id} (no carrier
 * tracking: in_transit is usually its last status) and GET /handwritten/{id}/document.pdf (the proof).
 */
export function handwrittenRoutes({ core, route }: RouteContext): void {
  route("POST", "/handwritten", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    const key = event.req.headers.get("idempotency-key") ?? undefined;
    const order = await core.handwritten.send(principal, await readJsonBody(event), key);
    return json(order, order.idempotent_replay ? 200 : 201);
  });

  route("POST", "/handwritten/drafts", async (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    const body = await readJsonBody(event);
    const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? body : { body };
    return json(await core.drafts.create(principal, { ...fields, type: "handwritten" }), 201);
  });

  route("GET", "/handwritten/:order_id", async (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    const order = await core.handwritten.get(principal, event.context.params?.order_id ?? "");
    if (!order) throw new V1Error("not_found", "No handwritten piece of this workspace has this id.");
    return order;
  });

  route("GET", "/handwritten/:order_id/document.pdf", async (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    const bytes = await core.handwritten.document(principal, event.context.params?.order_id ?? "");
    if (!bytes) throw new V1Error("not_found", "No handwritten piece of this workspace has this id.");
    return new Response(bytes, { headers: RESPONSE_HEADERS_FOR_PDF });
  });
}

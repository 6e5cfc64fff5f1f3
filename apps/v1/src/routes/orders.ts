import { readJsonBody } from "../body.ts";
import { V1Error } from "../errors.ts";
import { json, RESPONSE_HEADERS_FOR_PDF, type RouteContext } from "../route.ts";

/**
 * Orders (spec 3): POST /letters and POST /postcards {quote_id, recipient, sender, metadata} with an Idempotency-Key
 * header (400 idempotency_key_required without; the same key and body answer the original order with
 * idempotent_replay true and 200; the key with another body is 409 idempotency_conflict; 402 insufficient_credits
 * when the credits do not cover the price). GET /letters/{id} and /postcards/{id} read an order of the key's
 * workspace and mode, GET .../document.pdf its PDF; anything else is not_found.
 */
export function orderRoutes({ core, route }: RouteContext): void {
  for (const kind of ["letter", "postcard"] as const) {
    route("POST", `/${kind}s`, async (event, principal) => {
      core.workspaces.requirePermission(principal, "submit");
      const key = event.req.headers.get("idempotency-key") ?? undefined;
      const order = await core.projects.createOrder(principal, kind, await readJsonBody(event), key);
      return json(order, order.idempotent_replay ? 200 : 201);
    });

    route("GET", `/${kind}s/:order_id`, async (event, principal) => {
      core.workspaces.requirePermission(principal, "read");
      const order = await core.projects.getOrder(principal, kind, event.context.params?.order_id ?? "");
      if (!order) throw new V1Error("not_found", `No ${kind} of this workspace has this id.`);
      return order;
    });

    route("GET", `/${kind}s/:order_id/document.pdf`, async (event, principal) => {
      core.workspaces.requirePermission(principal, "read");
      const bytes = await core.projects.orderDocument(principal, kind, event.context.params?.order_id ?? "");
      if (!bytes) throw new V1Error("not_found", `No ${kind} of this workspace has this id.`);
      return new Response(bytes, { headers: RESPONSE_HEADERS_FOR_PDF });
    });
  }
}

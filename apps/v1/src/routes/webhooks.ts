import { readJsonBody } from "../body.ts";
import { pageQuery } from "../query.ts";
import { json, type RouteContext } from "../route.ts";

/** The event listing's page size: 20 by default, at most 100. */
export const EVENT_PAGE = { fallback: 20, max: 100 } as const;

/**
 * Webhooks (spec 3, Events): GET and POST /webhook-endpoints (an HTTPS url; the answer shows signing_secret once),
 * DELETE /webhook-endpoints/{id} (disables it), POST /webhook-endpoints/{id}/rotate-secret (a new secret shown once;
 * the old one signs too for the overlap), GET /webhook-events (the key's mode's events, newest first, with their
 * delivery attempts; limit 1 to 100, cursor) and POST /webhook-events/{id}/replay (202: one more delivery to each
 * enabled endpoint, same event id). One endpoint receives the events of both modes. Reading needs a key that may
 * read; changing endpoints and replaying need one that may submit.
 */
export function webhookRoutes({ core, route }: RouteContext): void {
  const param = (event: Parameters<Parameters<typeof route>[2]>[0], name: string) =>
    event.context.params?.[name] ?? "";

  route("GET", "/webhook-endpoints", async (_event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return { object: "list", data: await core.webhooks.listEndpoints(principal) };
  });

  route("POST", "/webhook-endpoints", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    return json(await core.webhooks.createEndpoint(principal, await readJsonBody(event)), 201);
  });

  route("DELETE", "/webhook-endpoints/:endpoint_id", (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    return core.webhooks.disableEndpoint(principal, param(event, "endpoint_id"));
  });

  route("POST", "/webhook-endpoints/:endpoint_id/rotate-secret", (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    return core.webhooks.rotateSecret(principal, param(event, "endpoint_id"));
  });

  route("GET", "/webhook-events", (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.webhooks.listEvents(principal, pageQuery(event, EVENT_PAGE));
  });

  route("POST", "/webhook-events/:event_id/replay", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    return json(await core.webhooks.replayEvent(principal, param(event, "event_id")), 202);
  });
}

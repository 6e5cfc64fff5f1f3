import { readJsonBody } from "../body.ts";
import { pageQuery } from "../query.ts";
import { json, type RouteContext } from "../route.ts";

/** The template listing's page size: 20 by default, at most 100. */
export const TEMPLATE_PAGE = { fallback: 20, max: 100 } as const;

/**
 * Templates (spec 3): GET and POST /templates ({name, body, format?, variables?}; `{{variable}}` placeholders must be
 * declared), GET, PATCH (a new immutable version) and DELETE (archive) /templates/{id}; POST /templates/{id}/send
 * ({variables, recipient, sender, the letter's mail options, metadata?, version?} with an Idempotency-Key: one letter
 * on the credits, as POST /letters makes one; a missing variable is 422 at variables.<name>) and POST
 * /templates/{id}/drafts (the same body saved as a draft, spending nothing). Reading needs a key that may read;
 * changing templates and drafting one that may prepare mail; sending one that may send.
 */
export function templateRoutes({ core, route }: RouteContext): void {
  const id = (event: Parameters<Parameters<typeof route>[2]>[0]) => event.context.params?.template_id ?? "";

  route("GET", "/templates", (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.templates.list(principal, pageQuery(event, TEMPLATE_PAGE));
  });

  route("POST", "/templates", async (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    return json(await core.templates.create(principal, await readJsonBody(event)), 201);
  });

  route("GET", "/templates/:template_id", (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.templates.get(principal, id(event));
  });

  route("PATCH", "/templates/:template_id", async (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    return core.templates.update(principal, id(event), await readJsonBody(event));
  });

  route("DELETE", "/templates/:template_id", (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    return core.templates.archive(principal, id(event));
  });

  route("POST", "/templates/:template_id/send", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    const key = event.req.headers.get("idempotency-key") ?? undefined;
    const order = await core.templates.send(principal, id(event), await readJsonBody(event), key);
    return json(order, order.idempotent_replay ? 200 : 201);
  });

  route("POST", "/templates/:template_id/drafts", async (event, principal) => {
    core.workspaces.requirePermission(principal, "prepare");
    // The template of the path: not_found, as every path of another workspace's is.
    await core.templates.get(principal, id(event));
    const body = await readJsonBody(event);
    const fields = typeof body === "object" && body !== null && !Array.isArray(body) ? body : { body };
    return json(
      await core.drafts.create(principal, { ...fields, type: "template", template_id: id(event) }),
      201,
    );
  });
}

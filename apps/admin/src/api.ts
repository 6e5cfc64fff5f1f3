import type { MailpieceCore } from "@mailpiece/core";
import type { H3, H3Event } from "h3";
import { AdminError, asAdminError, errorJson, json, limitOf, readJsonObject } from "./http.ts";
import { bearerOf, sameSecret } from "./security.ts";
import { workspaceDetail } from "./views.ts";

/** The largest JSON body the admin API reads: a workspace name is at most 200 characters. */
export const MAX_API_BODY_BYTES = 16 * 1024;

interface ApiContext {
  core: MailpieceCore;
  adminToken: string;
  onUnexpectedError: (error: unknown) => void;
}

/** Known admin API paths and their methods, for 405 on the others. */
const ROUTES: [RegExp, string][] = [
  [/^\/admin\/api\/workspaces$/, "GET, POST"],
  [/^\/admin\/api\/workspaces\/[^/]+$/, "GET"],
  [/^\/admin\/api\/workspaces\/[^/]+\/ledger$/, "GET"],
  [/^\/admin\/api\/workspaces\/[^/]+\/live$/, "POST"],
];

const unauthorized = () =>
  new AdminError(
    401,
    "unauthorized",
    "The admin API needs the deployment's admin token: Authorization: Bearer <ADMIN_TOKEN>.",
    [],
    { "www-authenticate": 'Bearer realm="mailpiece-admin"' },
  );

const noWorkspace = () => new AdminError(404, "not_found", "No such workspace.");

/**
 * The admin API under /admin/api: every route checks the bearer token first (its SHA-256 against the admin
 * token's, in constant time), answers JSON with `Cache-Control: no-store`, and answers its own errors, so that it
 * keeps doing so when mounted in another app.
 */
export function addAdminApi(app: H3, ctx: ApiContext): void {
  const { core } = ctx;
  const route =
    (handler: (event: H3Event) => Promise<Response>) =>
    async (event: H3Event): Promise<Response> => {
      try {
        if (!sameSecret(bearerOf(event.req.headers.get("authorization")), ctx.adminToken)) {
          throw unauthorized();
        }
        return await handler(event);
      } catch (error) {
        const known = asAdminError(error);
        if (known) return errorJson(known);
        ctx.onUnexpectedError(error);
        return errorJson(new AdminError(500, "internal_error", "Something failed on our side; try again."));
      }
    };
  const idOf = (event: H3Event) => event.context.params?.id ?? "";

  app.post(
    "/admin/api/workspaces",
    route(async (event) => {
      const body = await readJsonObject(event, MAX_API_BODY_BYTES);
      const made = await core.workspaces.create(body.name as string);
      return json(201, { object: "workspace", ...made }, { location: `/admin/api/workspaces/${made.id}` });
    }),
  );

  app.get(
    "/admin/api/workspaces",
    route(async (event) => {
      const query = event.url.searchParams;
      const limit = limitOf(query.get("limit"));
      const cursor = query.get("cursor") || undefined;
      const page = await core.workspaces.list({
        ...(limit === undefined ? {} : { limit }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return json(200, {
        object: "list",
        data: page.data,
        has_more: page.next_cursor !== null,
        next_cursor: page.next_cursor,
      });
    }),
  );

  app.get(
    "/admin/api/workspaces/:id",
    route(async (event) => {
      const view = await workspaceDetail(core, idOf(event));
      if (!view) throw noWorkspace();
      return json(200, view);
    }),
  );

  app.get(
    "/admin/api/workspaces/:id/ledger",
    route(async (event) => {
      const query = event.url.searchParams;
      const mode = query.get("mode") ?? "test";
      if (mode !== "test" && mode !== "live") {
        throw new AdminError(400, "invalid_query", 'mode must be "test" or "live".', [
          { path: "mode", code: "invalid_mode", message: 'mode must be "test" or "live".' },
        ]);
      }
      const limit = limitOf(query.get("limit"));
      const cursor = query.get("cursor") || undefined;
      const workspace = await core.workspaces.get(idOf(event));
      if (!workspace) throw noWorkspace();
      const page = await core.workspaces.ledger(
        { workspace_id: workspace.id, mode },
        { ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) },
      );
      return json(200, page);
    }),
  );

  app.post(
    "/admin/api/workspaces/:id/live",
    route(async (event) => {
      const id = idOf(event);
      if (!(await core.workspaces.get(id))) throw noWorkspace();
      const liveKey = await core.workspaces.enableLive(id);
      const view = await workspaceDetail(core, id);
      if (!view) throw noWorkspace();
      // The first live key, issued by enabling: in this answer only.
      return json(200, liveKey ? { ...view, live_api_key: liveKey.api_key } : view);
    }),
  );

  app.all(
    "/admin/**",
    route(async (event) => {
      const path = event.url.pathname;
      const allowed = ROUTES.find(([pattern]) => pattern.test(path))?.[1];
      if (allowed) {
        throw new AdminError(405, "method_not_allowed", `Use ${allowed} here.`, [], { allow: allowed });
      }
      throw new AdminError(404, "not_found", "No such admin resource.");
    }),
  );
}

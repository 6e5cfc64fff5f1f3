import type { MailpieceCore } from "@mailpiece/core";
import type { H3, H3Event } from "h3";
import {
  AdminError,
  asAdminError,
  errorJson,
  json,
  limitOf,
  readJsonObject,
  readOptionalJsonObject,
} from "./http.ts";
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
  [/^\/admin\/api\/workspaces\/[^/]+$/, "GET, PATCH"],
  [/^\/admin\/api\/workspaces\/[^/]+\/ledger$/, "GET"],
  [/^\/admin\/api\/workspaces\/[^/]+\/live$/, "POST"],
  [/^\/admin\/api\/workspaces\/[^/]+\/approvals$/, "GET"],
  [/^\/admin\/api\/workspaces\/[^/]+\/approvals\/[^/]+\/(approve|reject)$/, "POST"],
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

/** The limit (400 invalid_query unless 1 to 200) and cursor of a listing's query, each when given. */
function pageOf(query: URLSearchParams): { limit?: number; cursor?: string } {
  const limit = limitOf(query.get("limit"));
  const cursor = query.get("cursor") || undefined;
  return { ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) };
}

/** A mode of the query; 400 invalid_query for anything else. */
function modeOf(mode: string): "test" | "live" {
  if (mode === "test" || mode === "live") return mode;
  throw new AdminError(400, "invalid_query", 'mode must be "test" or "live".', [
    { path: "mode", code: "invalid_mode", message: 'mode must be "test" or "live".' },
  ]);
}

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
      const made = await core.workspaces.create(body.name as string, { email: body.email });
      return json(201, { object: "workspace", ...made }, { location: `/admin/api/workspaces/${made.id}` });
    }),
  );

  app.get(
    "/admin/api/workspaces",
    route(async (event) => {
      const page = await core.workspaces.list(pageOf(event.url.searchParams));
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

  // The name or account email of a workspace (`email: null` removes it); the fields not given stay.
  app.patch(
    "/admin/api/workspaces/:id",
    route(async (event) => {
      const body = await readJsonObject(event, MAX_API_BODY_BYTES);
      await core.workspaces.update(idOf(event), body);
      const view = await workspaceDetail(core, idOf(event));
      if (!view) throw noWorkspace();
      return json(200, view);
    }),
  );

  app.get(
    "/admin/api/workspaces/:id/ledger",
    route(async (event) => {
      const query = event.url.searchParams;
      const mode = modeOf(query.get("mode") ?? "test");
      const paging = pageOf(query);
      const workspace = await core.workspaces.get(idOf(event));
      if (!workspace) throw noWorkspace();
      const page = await core.workspaces.ledger({ workspace_id: workspace.id, mode }, paging);
      return json(200, page);
    }),
  );

  // The approvals of one mode (default live: the ones that spend money), pending, approved or rejected (state).
  app.get(
    "/admin/api/workspaces/:id/approvals",
    route(async (event) => {
      const query = event.url.searchParams;
      const mode = modeOf(query.get("mode") ?? "live");
      const paging = pageOf(query);
      const state = query.get("state") || undefined;
      const workspace = await core.workspaces.get(idOf(event));
      if (!workspace) throw noWorkspace();
      const page = await core.drafts.workspaceApprovals(workspace.id, mode, {
        ...paging,
        ...(state === undefined ? {} : { state }),
      });
      return json(200, page);
    }),
  );

  // A person's decision on a pending approval, with an optional {revision, note}: approving neither charges nor sends.
  for (const decision of ["approve", "reject"] as const) {
    app.post(
      `/admin/api/workspaces/:id/approvals/:draft_id/${decision}`,
      route(async (event) => {
        const body = await readOptionalJsonObject(event, MAX_API_BODY_BYTES);
        const workspace = await core.workspaces.get(idOf(event));
        if (!workspace) throw noWorkspace();
        const summary = await core.drafts.decide(
          workspace.id,
          event.context.params?.draft_id ?? "",
          decision,
          { body, via: "admin_api" },
        );
        return json(200, summary);
      }),
    );
  }

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

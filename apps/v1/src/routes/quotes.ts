import { readJsonBody } from "../body.ts";
import { json, type RouteContext } from "../route.ts";

/**
 * Quotes (spec 3): POST /letters/quotes and POST /postcards/quotes price a ready document of the key's workspace with
 * every option rule; an unavailable combination is 422 with the field, never a silent change. The price holds until
 * the quote's expires_at.
 */
export function quoteRoutes({ core, route }: RouteContext): void {
  for (const kind of ["letter", "postcard"] as const) {
    route("POST", `/${kind}s/quotes`, async (event, principal) => {
      // Quoting spends nothing: a key that may prepare mail (for a draft and its approval) may quote.
      core.workspaces.requirePermission(principal, "prepare");
      return json(await core.projects.createQuote(principal, kind, await readJsonBody(event)), 201);
    });
  }
}

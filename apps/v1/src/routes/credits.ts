import { pageQuery } from "../query.ts";
import type { RouteContext } from "../route.ts";

/** The ledger listing's page size: 20 by default, at most 100. */
export const LEDGER_PAGE = { fallback: 20, max: 100 } as const;

/**
 * Credits (spec 3): GET /credits/balance is the key's mode's balance with snapshots of both modes; GET
 * /credits/ledger lists the mode's credit movements, oldest first (limit 1 to 100, default 20; cursor from the
 * previous page's next_cursor). Both need a key that may read.
 */
export function creditRoutes({ core, route }: RouteContext): void {
  route("GET", "/credits/balance", (_event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.workspaces.balance(principal.workspace_id, principal.mode);
  });

  route("GET", "/credits/ledger", (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.workspaces.ledger(principal, pageQuery(event, LEDGER_PAGE));
  });
}

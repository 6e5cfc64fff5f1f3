import { readJsonBody, readOptionalJsonBody } from "../body.ts";
import { pageQuery } from "../query.ts";
import { json, type RouteContext } from "../route.ts";

/** The ledger listing's page size: 20 by default, at most 100. */
export const LEDGER_PAGE = { fallback: 20, max: 100 } as const;

/**
 * Credits (spec 3): GET /credits/balance is the key's mode's balance with snapshots of both modes; GET
 * /credits/ledger lists the mode's credit movements, oldest first (limit 1 to 100, default 20; cursor from the
 * previous page's next_cursor). Both need a key that may read.
 */
export function creditRoutes({ core, publicUrl, route }: RouteContext): void {
  // A hosted top-up: a page where a person pays amount_cents (100 to 100000) by card into the key's mode's credits.
  route("POST", "/credits/checkout-session", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    const { url_path, ...session } = await core.projects.createTopUp(principal, await readJsonBody(event));
    return json({ ...session, url: `${publicUrl}${url_path}` }, 201);
  });

  // A hosted page where a person saves a card for the key's mode (or {mode}); a live one live-enables the workspace.
  route("POST", "/credits/payment-methods/setup-session", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    const { url_path, ...session } = await core.projects.createSetup(
      principal,
      await readOptionalJsonBody(event),
    );
    return json({ ...session, url: `${publicUrl}${url_path}` }, 201);
  });

  route("GET", "/credits/payment-methods", (_event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.projects.listPaymentMethods(principal);
  });

  route("GET", "/credits/auto-refill", (_event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.projects.getAutoRefill(principal);
  });

  // Threshold and amount 100 to 100000 cents; the default card is charged off-session once per fall below it.
  route("POST", "/credits/auto-refill", async (event, principal) => {
    core.workspaces.requirePermission(principal, "submit");
    return core.projects.setAutoRefill(principal, await readJsonBody(event));
  });

  route("GET", "/credits/balance", (_event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.workspaces.balance(principal.workspace_id, principal.mode);
  });

  route("GET", "/credits/ledger", (event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return core.workspaces.ledger(principal, pageQuery(event, LEDGER_PAGE));
  });
}

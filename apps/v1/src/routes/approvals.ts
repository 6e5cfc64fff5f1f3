import type { RouteContext } from "../route.ts";
import { draftIdOf, listQuery } from "./drafts.ts";

/**
 * Approvals (spec 3): expense-only summaries of drafts ({object: "approval", draft_id, type, mode, revision,
 * price_cents, currency, state, requested_at, decided_at}; never documents, addresses, metadata or tracking).
 * GET /approvals?state=pending|approved|rejected&limit=&cursor= lists the drafts of the key's workspace and mode
 * with an approval request, oldest first; GET /approvals/{draft_id} is one draft's (state none when no approval
 * applies to its current revision). Both need a key that may read. Decisions are a person's: the operator's
 * dashboard and admin API make them.
 */
export function approvalRoutes({ core, route }: RouteContext): void {
  route("GET", "/approvals", (event, principal) => core.drafts.approvals(principal, listQuery(event)));

  route("GET", "/approvals/:draft_id", (event, principal) =>
    core.drafts.approval(principal, draftIdOf(event)),
  );
}

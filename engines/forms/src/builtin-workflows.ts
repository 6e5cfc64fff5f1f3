import { loadWorkflow } from "./load-workflow.ts";
import type { Workflow } from "./workflow.ts";
import bank from "./workflows/bank-fraud-unauthorized-transfer-dispute.json" with { type: "json" };
import court from "./workflows/court-document-mailing-packets.json" with { type: "json" };
import mortgage from "./workflows/mortgage-servicing-error-packet.json" with { type: "json" };

/**
 * The three workflows of Mailpiece's machine API (document 2), loaded from `src/workflows/*.json` through
 * `loadWorkflow`, so they obey the same definition format as any other.
 */
export const BUILTIN_WORKFLOWS: readonly Workflow[] = Object.freeze([
  loadWorkflow(mortgage),
  loadWorkflow(bank),
  loadWorkflow(court),
]);

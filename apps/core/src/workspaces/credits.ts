import { createLedger, type Ledger, type LedgerEntry, LedgerError } from "@mailpiece/ledger";
import type { Store } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import type { KeyMode } from "./api-keys.ts";
import type { Principal, WorkspaceRecord } from "./workspaces.ts";

/** How a mode's mail is paid (spec 3): test credits that move no money, prepaid credits for live mail. */
export const BILLING_RAILS = { test: "mock_test_credits", live: "prepaid_credits" } as const;

/** One mode's credits, as a balance shows them. */
export interface ModeCredits {
  billing_rail: (typeof BILLING_RAILS)[KeyMode];
  available_cents: number;
  reserved_cents: number;
  status: "active" | "setup_required";
}

/** The credit balance of spec 3: the caller's mode, and snapshots of both modes. */
export interface CreditBalanceView extends ModeCredits {
  object: "credit_balance";
  mode: KeyMode;
  currency: "usd";
  test: ModeCredits;
  live: ModeCredits;
  auto_refill: unknown[];
}

/** One movement of credits, as the ledger listing shows it. */
export interface CreditLedgerEntryView {
  object: "credit_ledger_entry";
  id: string;
  mode: KeyMode;
  type: "top_up" | "reservation" | "capture" | "release";
  amount_cents: number;
  /** How the movement changed what is available and what is reserved. */
  available_delta_cents: number;
  reserved_delta_cents: number;
  reference: string | null;
  reservation_id: string | null;
  created_at: string;
}

/** A page of a mode's credit movements, oldest first. */
export interface CreditLedgerPage {
  object: "list";
  data: CreditLedgerEntryView[];
  has_more: boolean;
  next_cursor: string | null;
}

const TYPES = { fund: "top_up", reserve: "reservation", capture: "capture", release: "release" } as const;

/** The ledger book of one workspace and mode. */
export const creditBook = (workspaceId: string, mode: KeyMode) => `${workspaceId}:${mode}`;

/** Credits per workspace and mode, on the ledger engine over the core's store. */
export function workspaceCredits(store: Store) {
  const ledger: Ledger = createLedger(store);

  const modeCredits = async (workspace: WorkspaceRecord, mode: KeyMode): Promise<ModeCredits> => {
    const balance = await ledger.balance(creditBook(workspace.id, mode));
    return {
      billing_rail: BILLING_RAILS[mode],
      available_cents: balance.available_cents,
      reserved_cents: balance.reserved_cents,
      status: mode === "live" && !workspace.live_enabled ? "setup_required" : "active",
    };
  };

  return {
    ledger,

    /** Adds credits to a mode (a top-up, or a new workspace's test credits); a repeated key adds nothing. */
    async fund(
      workspaceId: string,
      mode: KeyMode,
      amountCents: number,
      idempotencyKey: string,
      reference?: string,
    ) {
      return ledger.fund(creditBook(workspaceId, mode), {
        amount_cents: amountCents,
        idempotency_key: idempotencyKey,
        ...(reference ? { reference } : {}),
      });
    },

    async balance(workspace: WorkspaceRecord, mode: KeyMode): Promise<CreditBalanceView> {
      const [test, live] = await Promise.all([
        modeCredits(workspace, "test"),
        modeCredits(workspace, "live"),
      ]);
      const own = mode === "test" ? test : live;
      return { object: "credit_balance", mode, currency: "usd", ...own, test, live, auto_refill: [] };
    },

    /** The caller's mode's movements, oldest first, a page at a time. */
    async entries(
      principal: Pick<Principal, "workspace_id" | "mode">,
      page: { cursor?: string; limit?: number },
    ): Promise<CreditLedgerPage> {
      try {
        const found = await ledger.entries(creditBook(principal.workspace_id, principal.mode), page);
        return {
          object: "list",
          data: found.entries.map((entry) => entryView(entry, principal.mode)),
          has_more: found.cursor !== undefined,
          next_cursor: found.cursor ?? null,
        };
      } catch (error) {
        if (LedgerError.isInstance(error) && error.code === "invalid_page") {
          throw new CoreError("invalid_query", error.message, {
            issues: [{ path: "cursor", code: "invalid_cursor", message: error.message }],
          });
        }
        throw error;
      }
    },
  };
}

export type WorkspaceCredits = ReturnType<typeof workspaceCredits>;

function entryView(entry: LedgerEntry, mode: KeyMode): CreditLedgerEntryView {
  const delta = (account: "available" | "reserved") =>
    entry.postings.filter((p) => p.account === account).reduce((sum, p) => sum + p.amount_cents, 0);
  return {
    object: "credit_ledger_entry",
    id: entry.id,
    mode,
    type: TYPES[entry.kind],
    amount_cents: entry.amount_cents,
    available_delta_cents: delta("available"),
    reserved_delta_cents: delta("reserved"),
    reference: entry.reference ?? null,
    reservation_id: entry.reservation_id ?? null,
    created_at: new Date(entry.created_at).toISOString(),
  };
}

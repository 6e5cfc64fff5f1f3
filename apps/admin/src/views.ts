import type { CreditLedgerEntryView, MailpieceCore, ModeCredits, WorkspaceView } from "@mailpiece/core";

export type KeyMode = "test" | "live";

/** A key as the operator sees it: its prefix and where it stands, never the key. */
export interface AdminKeyView {
  id: string;
  mode: KeyMode;
  api_key_prefix: string;
  /** active; expiring (replaced by a rotation, working until expires_at); expired; disabled (live, not live-enabled). */
  status: "active" | "expiring" | "expired" | "disabled";
  expires_at: string | null;
}

/** A workspace with its keys and the credits of both modes. */
export interface AdminWorkspaceView extends Omit<WorkspaceView, "keys"> {
  keys: AdminKeyView[];
  balances: { currency: "usd"; test: ModeCredits; live: ModeCredits };
}

function keyStatus(key: WorkspaceView["keys"][number], liveEnabled: boolean, now: number) {
  if (key.mode === "live" && !liveEnabled) return "disabled" as const;
  if (key.expires_at === null) return "active" as const;
  return Date.parse(key.expires_at) > now ? ("expiring" as const) : ("expired" as const);
}

/** One workspace with its keys (prefixes and status) and both balances; undefined when there is none. */
export async function workspaceDetail(
  core: MailpieceCore,
  id: string,
): Promise<AdminWorkspaceView | undefined> {
  const view = await core.workspaces.get(id);
  if (!view) return undefined;
  const balance = await core.workspaces.balance(view.id, "test");
  const now = core.clock.now();
  return {
    ...view,
    keys: view.keys.map((key) => ({
      id: key.id,
      mode: key.mode,
      api_key_prefix: key.api_key_prefix,
      status: keyStatus(key, view.live_enabled, now),
      expires_at: key.expires_at,
    })),
    balances: { currency: "usd", test: balance.test, live: balance.live },
  };
}

/** Ledger pages read to find the last entries of a book (1000 entries each): past this, the page says so. */
const MAX_LEDGER_PAGES = 50;

/**
 * The last `count` credit movements of one workspace and mode, newest first. The ledger lists oldest first, so this
 * reads it through; `truncated` when the book is longer than the pages read.
 */
export async function lastLedgerEntries(
  core: MailpieceCore,
  workspaceId: string,
  mode: KeyMode,
  count: number,
): Promise<{ entries: CreditLedgerEntryView[]; truncated: boolean }> {
  let tail: CreditLedgerEntryView[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LEDGER_PAGES; page++) {
    const found = await core.workspaces.ledger(
      { workspace_id: workspaceId, mode },
      { limit: 1000, ...(cursor === undefined ? {} : { cursor }) },
    );
    tail = [...tail, ...found.data].slice(-count);
    if (!found.has_more || found.next_cursor === null) return { entries: tail.reverse(), truncated: false };
    cursor = found.next_cursor;
  }
  return { entries: tail.reverse(), truncated: true };
}

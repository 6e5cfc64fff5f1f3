import type { Clock, IdGenerator, Store } from "@mailpiece/ports";
import { isValidEmailAddress } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import { updateRecord } from "../records.ts";
import type { KeyMode, Permission } from "./api-keys.ts";
import {
  checkPermission,
  hashApiKey,
  type KeyAction,
  keyMode,
  LIVE_KEY_PERMISSIONS,
  newApiKey,
  rotatedPermissions,
  sameDigest,
  TEST_KEY_PERMISSIONS,
} from "./api-keys.ts";
import type { WorkspaceCredits } from "./credits.ts";

/** One API key of a workspace, as stored (never the key itself). */
export interface ApiKeyEntry {
  id: string;
  mode: KeyMode;
  prefix: string;
  permissions: Permission[];
  created_at: number;
  /** Set when a rotation replaced the key: it keeps working until then. */
  expires_at: number | null;
}

/** A workspace: isolated test and live environments sharing its name and keys. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  live_enabled: boolean;
  /** The account email (spec 3's default err_email): receipts of the workspace's orders go there; absent: none. */
  email?: string;
  created_at: number;
  updated_at: number;
  keys: ApiKeyEntry[];
}

/** What the store keeps per key, under the key's hash: where to find its entry. */
interface KeyLookup {
  hash: string;
  workspace_id: string;
  key_id: string;
}

/** The caller of an API request, once its key is checked. */
export interface Principal {
  workspace_id: string;
  mode: KeyMode;
  key_id: string;
  permissions: Permission[];
}

export interface WorkspaceContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  /** How long a rotated key keeps working (spec 3: a configurable overlap). */
  keyOverlapMs: number;
  credits: WorkspaceCredits;
  /** The test credits a new workspace starts with, in cents. */
  testCreditsCents: number;
}

/** A key shown once, on creation or rotation. */
export interface IssuedKey {
  mode: KeyMode;
  api_key: string;
  api_key_prefix: string;
  permissions: Permission[];
}

/** What a listing shows of a key: its prefix and status, never the key. */
export interface ApiKeyView {
  id: string;
  mode: KeyMode;
  api_key_prefix: string;
  status: "active" | "expiring" | "expired" | "disabled";
  permissions: Permission[];
  created_at: string;
  expires_at: string | null;
}

export const workspaceKey = (id: string) => `workspaces:${id}`;
const lookupKey = (hash: string) => `api_keys:${hash}`;
const WORKSPACE_ID = /^ws_[0-9a-f]{32}$/;

/**
 * A workspace's name (trimmed, 1 to 200 characters) and account email (an address of at most 256 characters, or null
 * for none), each checked when given; throws validation_failed with every issue at its field.
 */
function workspaceFields(input: { name?: unknown; email?: unknown }): { name: string; email: string | null } {
  const name = typeof input.name === "string" ? input.name.trim() : "";
  const issues = [];
  if (input.name !== undefined && (name.length < 1 || name.length > 200)) {
    issues.push({ path: "name", code: "invalid_name", message: "name must be 1 to 200 characters." });
  }
  const email = input.email ?? null;
  if (email !== null && (!isValidEmailAddress(email) || email.length > 256)) {
    issues.push({
      path: "email",
      code: "invalid_email",
      message: "email must be an address like name@example.com, or null for none.",
    });
  }
  if (issues.length > 0) {
    throw new CoreError("validation_failed", issues.map((issue) => issue.message).join(" "), { issues });
  }
  return { name, email: email as string | null };
}

/** A workspace named `name`, with a test key holding every test permission (shown once). */
export async function createWorkspace(
  ctx: WorkspaceContext,
  name: string,
  options: { email?: unknown } = {},
): Promise<{
  id: string;
  name: string;
  email: string | null;
  live_enabled: boolean;
  test_api_key: string;
  created_at: string;
}> {
  const { name: trimmed, email } = workspaceFields({ name: name ?? "", email: options.email ?? null });
  const id = `ws_${ctx.ids.uuid().replaceAll("-", "")}`;
  const now = ctx.clock.now();
  const { entry, issued } = await issueKey(ctx, id, "test", [...TEST_KEY_PERMISSIONS]);
  const record: WorkspaceRecord = {
    id,
    name: trimmed,
    live_enabled: false,
    ...(email === null ? {} : { email }),
    created_at: now,
    updated_at: now,
    keys: [entry],
  };
  await ctx.store.create(workspaceKey(id), record);
  if (ctx.testCreditsCents > 0) {
    await ctx.credits.fund(
      id,
      "test",
      ctx.testCreditsCents,
      "initial_test_credits",
      "test credits of a new workspace",
    );
  }
  return {
    id,
    name: trimmed,
    email: (email as string | undefined) ?? null,
    live_enabled: false,
    test_api_key: issued.api_key,
    created_at: new Date(now).toISOString(),
  };
}

/**
 * The principal of a bearer key: unauthorized for anything that is not a current key of a workspace (malformed,
 * unknown, expired after rotation); forbidden for a live key of a workspace that is not live-enabled.
 */
export async function authenticate(ctx: WorkspaceContext, bearer: string | undefined): Promise<Principal> {
  const refused = () =>
    new CoreError("unauthorized", "A valid API key is required: Authorization: Bearer <key>.");
  if (!bearer || keyMode(bearer) === undefined) throw refused();
  const hash = hashApiKey(bearer);
  const lookup = (await ctx.store.get<KeyLookup>(lookupKey(hash)))?.value;
  if (!lookup || !sameDigest(lookup.hash, hash)) throw refused();
  const workspace = (await ctx.store.get<WorkspaceRecord>(workspaceKey(lookup.workspace_id)))?.value;
  const entry = workspace?.keys.find((key) => key.id === lookup.key_id);
  if (!workspace || !entry || keyStatus(entry, ctx.clock.now()) === "expired") throw refused();
  if (entry.mode === "live" && !workspace.live_enabled) {
    throw new CoreError(
      "forbidden",
      "Live keys work once the workspace is live-enabled: complete a payment-method setup session first.",
    );
  }
  return {
    workspace_id: workspace.id,
    mode: entry.mode,
    key_id: entry.id,
    permissions: [...entry.permissions],
  };
}

const ACTION_WORDS: Record<KeyAction, string> = { read: "read", prepare: "prepare mail", submit: "send" };

/** Refuses an action the principal's key may not take, with permission_denied or approval_required. */
export function requirePermission(principal: Principal, action: KeyAction): void {
  const verdict = checkPermission(principal.mode, principal.permissions, action);
  if (verdict === "allowed") return;
  throw new CoreError(
    verdict,
    verdict === "approval_required"
      ? "This key may send live mail only with a person's approval: save it as a draft (POST /drafts), request its approval, and release it once approved; or use a key with mailings.submit_without_approval."
      : `This key lacks the permission to ${ACTION_WORDS[action]} in ${principal.mode} mode.`,
  );
}

/** The workspace's keys: prefixes and status, never the keys. */
export async function listKeys(ctx: WorkspaceContext, principal: Principal): Promise<ApiKeyView[]> {
  const workspace = await loadWorkspace(ctx, principal.workspace_id);
  const now = ctx.clock.now();
  return workspace.keys.map((key) => ({
    id: key.id,
    mode: key.mode,
    api_key_prefix: key.prefix,
    status: key.mode === "live" && !workspace.live_enabled ? "disabled" : keyStatus(key, now),
    permissions: [...key.permissions],
    created_at: new Date(key.created_at).toISOString(),
    expires_at: key.expires_at === null ? null : new Date(key.expires_at).toISOString(),
  }));
}

/**
 * A new key of `mode`, shown once, with the calling key's permissions (or those asked for, never more than the
 * caller holds); the mode's current keys keep working for the overlap, then stop. A live key needs a
 * live-enabled workspace and a caller that may send live mail.
 */
export async function rotateKey(
  ctx: WorkspaceContext,
  principal: Principal,
  mode: unknown,
  asked?: readonly Permission[],
): Promise<IssuedKey> {
  if (mode !== "test" && mode !== "live") {
    throw new CoreError("validation_failed", 'mode must be "test" or "live".', {
      issues: [{ path: "mode", code: "invalid_mode", message: 'mode must be "test" or "live".' }],
    });
  }
  const permissions = rotatedPermissions(principal.permissions, asked);
  const mayLive = checkPermission("live", principal.permissions, "submit") !== "permission_denied";
  if (!permissions || (mode === "live" && principal.mode === "test" && !mayLive)) {
    throw new CoreError(
      "permission_denied",
      "A rotated key cannot have more rights than the key that asks for it.",
    );
  }
  const liveRefused = () =>
    new CoreError("forbidden", "Live keys are available once the workspace is live-enabled.");
  const current = await loadWorkspace(ctx, principal.workspace_id);
  if (mode === "live" && !current.live_enabled) throw liveRefused();
  const { entry, issued } = await issueKey(ctx, principal.workspace_id, mode, permissions);
  await updateRecord<WorkspaceRecord>(
    ctx.store,
    workspaceKey(principal.workspace_id),
    ctx.clock.now,
    (workspace) => {
      if (mode === "live" && !workspace.live_enabled) throw liveRefused();
      const now = ctx.clock.now();
      const keys = workspace.keys.map((key) =>
        key.mode === mode && key.expires_at === null ? { ...key, expires_at: now + ctx.keyOverlapMs } : key,
      );
      return { ...workspace, keys: [...keys, entry] };
    },
  );
  return issued;
}

/**
 * Marks the workspace live-enabled (its payment method is set up): its live keys start to work. A workspace without
 * a live key gets its first one here, with every live permission, answered once; undefined when it already had one
 * (or was already live-enabled).
 */
export async function enableLive(ctx: WorkspaceContext, workspaceId: string): Promise<IssuedKey | undefined> {
  const current = await loadWorkspace(ctx, workspaceId);
  if (current.live_enabled) return undefined;
  const first = current.keys.some((key) => key.mode === "live")
    ? undefined
    : await issueKey(ctx, workspaceId, "live", [...LIVE_KEY_PERMISSIONS]);
  const updated = await updateRecord<WorkspaceRecord>(
    ctx.store,
    workspaceKey(workspaceId),
    ctx.clock.now,
    (workspace) => {
      if (workspace.live_enabled) return undefined;
      // A concurrent enabling gave the workspace its first live key: this one is not added (its lookup leads nowhere).
      const hasLive = workspace.keys.some((key) => key.mode === "live");
      const keys = first && !hasLive ? [...workspace.keys, first.entry] : workspace.keys;
      return { ...workspace, live_enabled: true, keys };
    },
  );
  return first && updated.keys.some((key) => key.id === first.entry.id) ? first.issued : undefined;
}

/**
 * Changes a workspace's name or account email (null removes it), as the operator asks; fields not given stay. Throws
 * validation_failed naming each bad field (also an unknown one), or not_found.
 */
export async function updateWorkspace(
  ctx: WorkspaceContext,
  workspaceId: string,
  changes: Record<string, unknown>,
): Promise<WorkspaceRecord> {
  const unknown = Object.keys(changes).filter((field) => field !== "name" && field !== "email");
  if (unknown.length > 0) {
    const issues = unknown.map((field) => ({
      path: field,
      code: "unknown_field",
      message: `${field} cannot be changed: a workspace's name and email can.`,
    }));
    throw new CoreError("validation_failed", issues.map((issue) => issue.message).join(" "), { issues });
  }
  if (changes.name === undefined && changes.email === undefined) {
    const issues = [{ path: "", code: "nothing_to_change", message: "Give name, email or both." }];
    throw new CoreError("validation_failed", issues[0]!.message, { issues });
  }
  const fields = workspaceFields({ name: changes.name, email: changes.email });
  await loadWorkspace(ctx, workspaceId);
  return updateRecord<WorkspaceRecord>(ctx.store, workspaceKey(workspaceId), ctx.clock.now, (workspace) => {
    const next: WorkspaceRecord = { ...workspace };
    if (changes.name !== undefined) next.name = fields.name;
    if (changes.email !== undefined) {
      if (fields.email === null) delete next.email;
      else next.email = fields.email;
    }
    return next.name === workspace.name && next.email === workspace.email ? undefined : next;
  });
}

/** What the operator sees of a workspace: never a key, only prefixes. */
export interface WorkspaceView {
  object: "workspace";
  id: string;
  name: string;
  email: string | null;
  live_enabled: boolean;
  created_at: string;
  keys: { id: string; mode: KeyMode; api_key_prefix: string; expires_at: string | null }[];
}

export function workspaceView(workspace: WorkspaceRecord): WorkspaceView {
  return {
    object: "workspace",
    id: workspace.id,
    name: workspace.name,
    email: workspace.email ?? null,
    live_enabled: workspace.live_enabled,
    created_at: new Date(workspace.created_at).toISOString(),
    keys: workspace.keys.map((key) => ({
      id: key.id,
      mode: key.mode,
      api_key_prefix: key.prefix,
      expires_at: key.expires_at === null ? null : new Date(key.expires_at).toISOString(),
    })),
  };
}

/** The deployment's workspaces in id order, a page at a time (for the operator). */
export async function listWorkspaces(
  ctx: WorkspaceContext,
  page: { cursor?: string; limit?: number },
): Promise<{ data: WorkspaceView[]; next_cursor: string | null }> {
  const limit = page.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
    throw new CoreError("invalid_query", "limit must be an integer from 1 to 200.", {
      issues: [{ path: "limit", code: "invalid_limit", message: "limit must be an integer from 1 to 200." }],
    });
  }
  const found = await ctx.store
    .list<WorkspaceRecord>("workspaces:", { limit, ...(page.cursor ? { cursor: page.cursor } : {}) })
    .catch((error: unknown) => {
      if (page.cursor === undefined) throw error;
      throw new CoreError("invalid_query", "cursor is not one this listing gave.", {
        issues: [{ path: "cursor", code: "invalid_cursor", message: "cursor is not one this listing gave." }],
      });
    });
  return {
    data: found.records.map((record) => workspaceView(record.value)),
    next_cursor: found.cursor ?? null,
  };
}

/** A workspace by id, or not_found. */
export async function loadWorkspace(ctx: WorkspaceContext, id: string): Promise<WorkspaceRecord> {
  const stored = WORKSPACE_ID.test(id) ? await ctx.store.get<WorkspaceRecord>(workspaceKey(id)) : undefined;
  if (!stored) throw new CoreError("not_found", "No such workspace.");
  return stored.value;
}

function keyStatus(key: ApiKeyEntry, now: number): "active" | "expiring" | "expired" {
  if (key.expires_at === null) return "active";
  return key.expires_at > now ? "expiring" : "expired";
}

/** Writes a new key's lookup record (under its hash) and answers its entry and the key to show once. */
async function issueKey(
  ctx: WorkspaceContext,
  workspaceId: string,
  mode: KeyMode,
  permissions: Permission[],
): Promise<{ entry: ApiKeyEntry; issued: IssuedKey }> {
  const key = newApiKey(mode);
  const id = `key_${ctx.ids.uuid().replaceAll("-", "")}`;
  const lookup: KeyLookup = { hash: key.hash, workspace_id: workspaceId, key_id: id };
  const created = await ctx.store.create(lookupKey(key.hash), lookup);
  if (!created.created) throw new CoreError("internal_error", "A new key collided with a stored one.");
  return {
    entry: { id, mode, prefix: key.prefix, permissions, created_at: ctx.clock.now(), expires_at: null },
    issued: { mode, api_key: key.secret, api_key_prefix: key.prefix, permissions: [...permissions] },
  };
}

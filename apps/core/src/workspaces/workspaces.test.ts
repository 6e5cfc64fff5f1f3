import { randomIds } from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { CoreError } from "../errors.ts";
import {
  checkPermission,
  hashApiKey,
  keyMode,
  keyPrefix,
  type Permission,
  rotatedPermissions,
} from "./api-keys.ts";
import { workspaceCredits } from "./credits.ts";
import {
  authenticate,
  createWorkspace,
  enableLive,
  listKeys,
  listWorkspaces,
  loadWorkspace,
  requirePermission,
  rotateKey,
  updateWorkspace,
  type WorkspaceContext,
} from "./workspaces.ts";

const HOUR = 60 * 60 * 1000;

function setup() {
  const store = createMemoryStore();
  let now = Date.UTC(2026, 10, 24, 12);
  const ctx: WorkspaceContext = {
    store,
    clock: { now: () => now },
    ids: randomIds,
    keyOverlapMs: 24 * HOUR,
    credits: workspaceCredits(store),
    testCreditsCents: 5_000,
  };
  return {
    ctx,
    store,
    advance(ms: number) {
      now += ms;
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(CoreError.isInstance(error), String(error)).toBe(true);
  return (error as CoreError).code;
}

/** Every value the store holds, as one JSON text. */
async function storeText(store: ReturnType<typeof createMemoryStore>): Promise<string> {
  const texts: string[] = [];
  for (const prefix of ["workspaces:", "api_keys:"]) {
    let cursor: string | undefined;
    do {
      const page = await store.list(prefix, cursor ? { cursor } : {});
      texts.push(...page.records.map((record) => JSON.stringify(record)));
      cursor = page.cursor;
    } while (cursor);
  }
  return texts.join("\n");
}

describe("workspaces and API keys", () => {
  it("creates a workspace with a test key shown once and stored only as its hash", async () => {
    const { ctx, store } = setup();
    const made = await createWorkspace(ctx, "  Acme Mailroom ");
    expect(made).toMatchObject({ name: "Acme Mailroom", live_enabled: false });
    expect(made.id).toMatch(/^ws_[0-9a-f]{32}$/);
    expect(made.test_api_key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    const stored = await storeText(store);
    expect(stored).not.toContain(made.test_api_key);
    expect(stored).not.toContain(made.test_api_key.slice("svc_test_".length));
    expect(stored).toContain(hashApiKey(made.test_api_key));
    const principal = await authenticate(ctx, made.test_api_key);
    expect(principal).toMatchObject({ workspace_id: made.id, mode: "test" });
    expect(principal.permissions.sort()).toEqual(
      ["letters:read", "mailings.submit_test", "mailings.submit_without_approval"].sort(),
    );
    for (const name of ["", "   ", "x".repeat(201), 42]) {
      expect(await refusal(createWorkspace(ctx, name as string))).toBe("validation_failed");
    }
  });

  it("keeps an account email given at creation, and refuses one that is not an address", async () => {
    const { ctx } = setup();
    const made = await createWorkspace(ctx, "Acme", { email: "billing@acme.example" });
    expect(made.email).toBe("billing@acme.example");
    expect((await loadWorkspace(ctx, made.id)).email).toBe("billing@acme.example");
    expect((await createWorkspace(ctx, "No mail")).email).toBeNull();
    for (const email of ["not-an-address", "a@b", 42, `${"x".repeat(250)}@acme.example`]) {
      const error = await createWorkspace(ctx, "Acme", { email }).catch((e: unknown) => e as CoreError);
      expect(error, String(email)).toMatchObject({ code: "validation_failed", issues: [{ path: "email" }] });
    }
    const both = await createWorkspace(ctx, "", { email: "nope" }).catch((e: unknown) => e as CoreError);
    expect((both as CoreError).issues.map((issue) => issue.path)).toEqual(["name", "email"]);
  });

  it("changes a workspace's name or account email for the operator, and nothing else", async () => {
    const { ctx, store, advance } = setup();
    const made = await createWorkspace(ctx, "Acme");
    const before = await loadWorkspace(ctx, made.id);
    advance(1_000);
    const emailed = await updateWorkspace(ctx, made.id, { email: "billing@acme.example" });
    expect(emailed).toMatchObject({ name: "Acme", email: "billing@acme.example", keys: before.keys });
    expect(emailed.updated_at).toBe(before.updated_at + 1_000);
    const renamed = await updateWorkspace(ctx, made.id, { name: "  Acme Ltd " });
    expect(renamed).toMatchObject({ name: "Acme Ltd", email: "billing@acme.example" });
    const removed = await updateWorkspace(ctx, made.id, { email: null });
    expect("email" in removed).toBe(false);
    // Nothing changes when nothing differs: the record keeps its version.
    const version = (await store.get(`workspaces:${made.id}`))?.version;
    await updateWorkspace(ctx, made.id, { name: "Acme Ltd" });
    expect((await store.get(`workspaces:${made.id}`))?.version).toBe(version);

    const refused = async (changes: Record<string, unknown>) => {
      const error = await updateWorkspace(ctx, made.id, changes).catch((e: unknown) => e as CoreError);
      expect(CoreError.isInstance(error)).toBe(true);
      return (error as CoreError).issues.map((issue) => `${issue.path}:${issue.code}`);
    };
    expect(await refused({ email: "nope" })).toEqual(["email:invalid_email"]);
    expect(await refused({ name: "" })).toEqual(["name:invalid_name"]);
    expect(await refused({ name: null })).toEqual(["name:invalid_name"]);
    expect(await refused({ live_enabled: true, keys: [] })).toEqual([
      "live_enabled:unknown_field",
      "keys:unknown_field",
    ]);
    expect(await refused({})).toEqual([":nothing_to_change"]);
    expect(await loadWorkspace(ctx, made.id)).toMatchObject({ name: "Acme Ltd", live_enabled: false });
    expect(await refusal(updateWorkspace(ctx, "ws_unknown", { name: "X" }))).toBe("not_found");
  });

  it("refuses a missing, malformed, unknown or altered key with unauthorized", async () => {
    const { ctx } = setup();
    const { test_api_key: key } = await createWorkspace(ctx, "Acme");
    const altered = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    for (const bearer of [undefined, "", "svc_test_", "sk_test_123", key.toUpperCase(), altered, `${key} `]) {
      expect(await refusal(authenticate(ctx, bearer)), String(bearer)).toBe("unauthorized");
    }
  });

  it("rotates a key: the new one is shown once with the caller's permissions, the old one works for the overlap", async () => {
    const { ctx, advance } = setup();
    const { test_api_key: old } = await createWorkspace(ctx, "Acme");
    const caller = await authenticate(ctx, old);
    const rotated = await rotateKey(ctx, caller, "test");
    expect(rotated.api_key).toMatch(/^svc_test_/);
    expect(rotated.api_key).not.toBe(old);
    expect(rotated.api_key_prefix).toBe(keyPrefix(rotated.api_key));
    expect(rotated.permissions.sort()).toEqual([...caller.permissions].sort());
    const listed = await listKeys(ctx, caller);
    expect(listed.map((key) => key.status).sort()).toEqual(["active", "expiring"]);
    expect(JSON.stringify(listed)).not.toContain(rotated.api_key);
    advance(24 * HOUR - 1);
    await authenticate(ctx, old);
    advance(2);
    expect(await refusal(authenticate(ctx, old))).toBe("unauthorized");
    expect((await authenticate(ctx, rotated.api_key)).mode).toBe("test");
    expect((await listKeys(ctx, caller)).map((key) => key.status).sort()).toEqual(["active", "expired"]);
  });

  it("never gives a rotated key more than the calling key holds", async () => {
    const { ctx } = setup();
    const { test_api_key: key } = await createWorkspace(ctx, "Acme");
    const caller = await authenticate(ctx, key);
    const narrower = await rotateKey(ctx, caller, "test", ["mailings.submit_test"]);
    const narrow = await authenticate(ctx, narrower.api_key);
    expect(narrow.permissions).toEqual(["mailings.submit_test"]);
    expect(await refusal(rotateKey(ctx, narrow, "test", ["letters:read"]))).toBe("permission_denied");
    expect(await refusal(rotateKey(ctx, caller, "test", ["mailings.submit_live"]))).toBe("permission_denied");
    expect(await refusal(rotateKey(ctx, caller, "sandbox"))).toBe("validation_failed");
    // A test key cannot make a live key, before or after live-enabling.
    expect(await refusal(rotateKey(ctx, caller, "live"))).toBe("permission_denied");
  });

  it("keeps live keys refused with forbidden until the workspace is live-enabled", async () => {
    const { ctx } = setup();
    const { id, test_api_key: key } = await createWorkspace(ctx, "Acme");
    const broad = await authenticate(ctx, key);
    // A key with the legacy pair may act in every mode; it stands for an operator-issued key here.
    const legacy = { ...broad, permissions: ["letters:write", "letters:read"] as Permission[] };
    expect(await refusal(rotateKey(ctx, legacy, "live"))).toBe("forbidden");
    await enableLive(ctx, id);
    const live = await rotateKey(ctx, legacy, "live");
    expect(live.api_key).toMatch(/^svc_live_/);
    expect((await authenticate(ctx, live.api_key)).mode).toBe("live");
    expect(await refusal(enableLive(ctx, "ws_00000000000000000000000000000000"))).toBe("not_found");
  });

  it("gives a workspace its first live key when it is live-enabled, once, also when enabled concurrently", async () => {
    const { ctx } = setup();
    const { id, test_api_key: key } = await createWorkspace(ctx, "Acme");
    const issued = await Promise.all([1, 2, 3].map(() => enableLive(ctx, id)));
    const keys = issued.filter((k) => k !== undefined);
    expect(keys).toHaveLength(1);
    const live = await authenticate(ctx, keys[0]!.api_key);
    expect(live).toMatchObject({ workspace_id: id, mode: "live" });
    expect(live.permissions).toEqual([
      "mailings.submit_live",
      "mailings.submit_without_approval",
      "letters:read",
    ]);
    const listed = await listKeys(ctx, await authenticate(ctx, key));
    expect(listed.filter((k) => k.mode === "live")).toEqual([
      expect.objectContaining({ status: "active", api_key_prefix: keys[0]!.api_key_prefix }),
    ]);
    expect(await enableLive(ctx, id)).toBeUndefined();
  });

  it("keeps both keys of concurrent rotations", async () => {
    const { ctx } = setup();
    const { test_api_key: key } = await createWorkspace(ctx, "Acme");
    const caller = await authenticate(ctx, key);
    const keys = await Promise.all([1, 2, 3, 4].map(() => rotateKey(ctx, caller, "test")));
    for (const issued of keys) expect((await authenticate(ctx, issued.api_key)).mode).toBe("test");
    expect(await listKeys(ctx, caller)).toHaveLength(5);
  });
});

describe("credits", () => {
  it("starts a workspace with test credits and no live credits, and lists the top-up in the test ledger", async () => {
    const { ctx } = setup();
    const { id, test_api_key: key } = await createWorkspace(ctx, "Acme");
    const principal = await authenticate(ctx, key);
    const balance = await ctx.credits.balance(await loadWorkspace(ctx, id), "test");
    expect(balance).toMatchObject({
      object: "credit_balance",
      mode: "test",
      billing_rail: "mock_test_credits",
      available_cents: 5_000,
      reserved_cents: 0,
      currency: "usd",
      live: { billing_rail: "prepaid_credits", available_cents: 0, status: "setup_required" },
    });
    const ledger = await ctx.credits.entries(principal, {});
    expect(ledger.data).toEqual([
      expect.objectContaining({
        type: "top_up",
        amount_cents: 5_000,
        available_delta_cents: 5_000,
        reserved_delta_cents: 0,
      }),
    ]);
    expect((await ctx.credits.entries({ ...principal, mode: "live" }, {})).data).toEqual([]);
    await enableLive(ctx, id);
    expect((await ctx.credits.balance(await loadWorkspace(ctx, id), "live")).status).toBe("active");
  });

  it("lists workspaces a page at a time for the operator, without keys", async () => {
    const { ctx } = setup();
    const made = await Promise.all(["A", "B", "C"].map((name) => createWorkspace(ctx, name)));
    const first = await listWorkspaces(ctx, { limit: 2 });
    expect(first.data).toHaveLength(2);
    const second = await listWorkspaces(ctx, { limit: 2, cursor: first.next_cursor! });
    expect([...first.data, ...second.data].map((w) => w.id).sort()).toEqual(made.map((w) => w.id).sort());
    expect(second.next_cursor).toBeNull();
    expect(JSON.stringify(first)).not.toContain(made[0]!.test_api_key);
    expect(await refusal(listWorkspaces(ctx, { limit: 0 }))).toBe("invalid_query");
  });
});

describe("permissions", () => {
  it("checks test and live sends, approval and the legacy pair as spec 3 says", () => {
    expect(checkPermission("test", ["mailings.submit_test"], "submit")).toBe("allowed");
    expect(checkPermission("test", ["mailings.submit_live"], "submit")).toBe("permission_denied");
    expect(checkPermission("live", ["mailings.submit_test"], "submit")).toBe("permission_denied");
    expect(checkPermission("live", ["mailings.submit_live"], "submit")).toBe("approval_required");
    expect(
      checkPermission("live", ["mailings.submit_live", "mailings.submit_without_approval"], "submit"),
    ).toBe("allowed");
    expect(checkPermission("live", ["letters:write", "letters:read"], "submit")).toBe("allowed");
    expect(checkPermission("live", ["letters:write"], "submit")).toBe("permission_denied");
    expect(checkPermission("test", ["letters:write"], "read")).toBe("permission_denied");
    expect(checkPermission("test", ["mailings.submit_test"], "read")).toBe("allowed");
    // Preparing mail (drafts, approval requests) needs the mode's send permission, with or without approval.
    expect(checkPermission("live", ["mailings.submit_live"], "prepare")).toBe("allowed");
    expect(checkPermission("live", ["mailings.submit_test", "letters:read"], "prepare")).toBe(
      "permission_denied",
    );
    expect(checkPermission("test", ["mailings.submit_test"], "prepare")).toBe("allowed");
    expect(checkPermission("test", ["letters:read"], "prepare")).toBe("permission_denied");
    expect(checkPermission("live", ["letters:write", "letters:read"], "prepare")).toBe("allowed");
    const principal = {
      workspace_id: "ws_x",
      mode: "live" as const,
      key_id: "k",
      permissions: ["mailings.submit_live"] as Permission[],
    };
    expect(() => requirePermission(principal, "submit")).toThrow(/approval/);
    expect(() => requirePermission(principal, "prepare")).not.toThrow();
    expect(() => requirePermission({ ...principal, permissions: ["letters:read"] }, "prepare")).toThrow(
      /permission to prepare mail in live mode/,
    );
  });

  it("parses keys by mode and makes rotated permissions a subset", () => {
    expect(keyMode(`svc_live_${"a".repeat(32)}`)).toBe("live");
    expect(keyMode(`svc_live_${"a".repeat(31)}`)).toBeUndefined();
    expect(rotatedPermissions(["letters:read"], ["letters:read", "letters:read"])).toEqual(["letters:read"]);
    expect(rotatedPermissions(["letters:read"], ["letters:write"])).toBeUndefined();
  });
});

import { createMailpieceCore } from "@mailpiece/core";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "./admin-app.ts";
import { type AdminServer, newAdminToken, pendingDraft, startAdminServer } from "./test-server.fixture.ts";

const UNKNOWN_WORKSPACE = `ws_${"0".repeat(32)}`;

let server: AdminServer;
let token: string;

beforeAll(async () => {
  token = newAdminToken();
  server = await startAdminServer({ adminToken: token });
}, 60_000);

afterAll(async () => {
  // Nothing the admin app answered, in any test of this file, carried the token.
  expect(server.responses.length).toBeGreaterThan(20);
  for (const response of server.responses) expect(response).not.toContain(token);
  expect(server.errors).toEqual([]);
  await server?.close();
});

function api(path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token: bearer = token, headers, ...rest } = init;
  return fetch(`${server.base}${path}`, {
    ...rest,
    headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...headers },
  });
}

const post = (path: string, body: unknown, init: RequestInit & { token?: string | null } = {}) =>
  api(path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
    headers: { "content-type": "application/json", ...init.headers },
  });

const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;

async function create(name: string) {
  const response = await post("/admin/api/workspaces", { name });
  expect(response.status).toBe(201);
  return (await response.json()) as {
    id: string;
    name: string;
    live_enabled: boolean;
    test_api_key: string;
  };
}

describe("without an admin token", () => {
  let off: AdminServer;

  beforeAll(async () => {
    off = await startAdminServer();
  });

  afterAll(async () => {
    await off?.close();
  });

  it("answers every /admin and /dashboard path exactly as an unknown route", async () => {
    const unknown = await fetch(`${off.base}/no-such-route`);
    const expected = { status: unknown.status, body: await unknown.text() };
    expect(expected.status).toBe(404);
    const tries: [string, RequestInit][] = [
      ["/admin/api/workspaces", { headers: { authorization: `Bearer ${token}` } }],
      [
        "/admin/api/workspaces",
        { method: "POST", body: "{}", headers: { "content-type": "application/json" } },
      ],
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}`, {}],
      ["/admin", {}],
      ["/dashboard", {}],
      ["/dashboard/workspaces", { method: "POST", body: "name=x" }],
      ["/dashboard/sign-in", { method: "POST", body: "token=x" }],
    ];
    for (const [path, init] of tries) {
      const response = await fetch(`${off.base}${path}`, init);
      expect({ status: response.status, body: await response.text() }, path).toEqual(expected);
    }
  });

  it("refuses a token shorter than 32 characters at construction, and an empty one means off", () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    const publicUrl = "https://mail.example";
    expect(() => createAdminApp(core, { publicUrl, adminToken: "x".repeat(31) })).toThrow(
      /ADMIN_TOKEN must be at least 32 characters \(it has 31\)/,
    );
    expect(() => createAdminApp(core, { publicUrl, adminToken: `${"x".repeat(31)} y` })).toThrow(
      /printable ASCII without spaces/,
    );
    expect(() => createAdminApp(core, { publicUrl: "mail.example", adminToken: token })).toThrow(/publicUrl/);
    expect(createAdminApp(core, { publicUrl, adminToken: "" })).toBeDefined();
    expect(createAdminApp(core, { publicUrl, adminToken: "x".repeat(32) })).toBeDefined();
  });
});

describe("the admin API", () => {
  it("answers 401 for a missing, wrong or malformed token, on every path", async () => {
    const attempts: [string, RequestInit & { token?: string | null }][] = [
      ["/admin/api/workspaces", { token: null }],
      ["/admin/api/workspaces", { token: `${token}x` }],
      ["/admin/api/workspaces", { token: token.slice(0, -1) }],
      ["/admin/api/workspaces", { token: null, headers: { authorization: `Basic ${token}` } }],
      ["/admin/api/workspaces", { token: null, headers: { authorization: token } }],
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}`, { token: "wrong" }],
      ["/admin/api/nothing-here", { token: null }],
    ];
    for (const [path, init] of attempts) {
      const response = await api(path, init);
      expect(response.status, path).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain("Bearer");
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = await response.json();
      expect(body).toMatchObject({ error: "unauthorized", message: expect.any(String) });
    }
    const refused = await post("/admin/api/workspaces", { name: "Not made" }, { token: "wrong" });
    expect(refused.status).toBe(401);
    const list = (await (await api("/admin/api/workspaces")).json()) as { data: { name: string }[] };
    expect(list.data.map((w) => w.name)).not.toContain("Not made");
  });

  it("creates a workspace (201) whose test key holds every test permission", async () => {
    const response = await post("/admin/api/workspaces", { name: "  Acme Mailroom  " });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toContain("application/json");
    const made = (await response.json()) as Record<string, unknown>;
    expect(made).toMatchObject({ name: "Acme Mailroom", live_enabled: false });
    expect(made.id).toMatch(/^ws_[0-9a-f]{32}$/);
    expect(made.test_api_key).toMatch(/^svc_test_/);
    expect(response.headers.get("location")).toBe(`/admin/api/workspaces/${made.id}`);
    const principal = await server.core.workspaces.authenticate(made.test_api_key as string);
    expect(principal).toMatchObject({ workspace_id: made.id, mode: "test" });
    expect(principal.permissions).toEqual(
      expect.arrayContaining(["mailings.submit_test", "mailings.submit_without_approval", "letters:read"]),
    );
    expect(() => server.core.workspaces.requirePermission(principal, "submit")).not.toThrow();
  });

  it("refuses a bad name with 422 and the issue's path", async () => {
    for (const body of [{ name: "" }, { name: "   " }, { name: "x".repeat(201) }, {}, { name: 42 }]) {
      const response = await post("/admin/api/workspaces", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      const answer = (await response.json()) as { error: string; issues: { path: string }[] };
      expect(answer.error).toBe("validation_failed");
      expect(answer.issues.map((issue) => issue.path)).toEqual(["name"]);
    }
  });

  it("changes a workspace's name or account email with PATCH, refusing bad or unknown fields", async () => {
    const made = await create("Before");
    const patch = (id: string, body: unknown) =>
      api(`/admin/api/workspaces/${id}`, {
        method: "PATCH",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
    const changed = await patch(made.id, { name: "After", email: "billing@after.example" });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({
      id: made.id,
      name: "After",
      email: "billing@after.example",
      live_enabled: false,
      balances: { currency: "usd" },
    });
    const removed = await patch(made.id, { email: null });
    expect(await removed.json()).toMatchObject({ name: "After", email: null });
    for (const [body, paths] of [
      [{ email: "nope" }, ["email"]],
      [{ name: "" }, ["name"]],
      [{ live_enabled: true }, ["live_enabled"]],
      [{}, [""]],
    ] as const) {
      const refused = await patch(made.id, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      const answer = (await refused.json()) as { error: string; issues: { path: string }[] };
      expect(answer.error).toBe("validation_failed");
      expect(answer.issues.map((issue) => issue.path)).toEqual(paths);
    }
    expect(await server.core.workspaces.get(made.id)).toMatchObject({ name: "After", email: null });
    expect((await patch(UNKNOWN_WORKSPACE, { name: "X" })).status).toBe(404);
    const unauthorized = await api(`/admin/api/workspaces/${made.id}`, {
      method: "PATCH",
      token: null,
      body: JSON.stringify({ name: "Taken over" }),
      headers: { "content-type": "application/json" },
    });
    expect(unauthorized.status).toBe(401);
    expect((await server.core.workspaces.get(made.id))?.name).toBe("After");
  });

  it("reads only JSON objects within the size limit", async () => {
    const form = await post("/admin/api/workspaces", "name=Acme", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(await errorOf(form)).toBe("unsupported_media_type");
    const broken = await post("/admin/api/workspaces", "{name:");
    expect(broken.status).toBe(400);
    expect(await errorOf(broken)).toBe("invalid_json");
    const list = await post("/admin/api/workspaces", ["Acme"]);
    expect(list.status).toBe(400);
    const huge = await post("/admin/api/workspaces", { name: "x".repeat(20_000) });
    expect(huge.status).toBe(413);
    expect(await errorOf(huge)).toBe("body_too_large");
  });

  it("lists workspaces a page at a time", async () => {
    const a = await create("List One");
    const b = await create("List Two");
    const all = await api("/admin/api/workspaces?limit=200");
    expect(all.status).toBe(200);
    expect(all.headers.get("cache-control")).toBe("no-store");
    const listed = (await all.json()) as { object: string; data: { id: string; keys: unknown[] }[] };
    expect(listed.object).toBe("list");
    expect(listed.data.map((w) => w.id)).toEqual(expect.arrayContaining([a.id, b.id]));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await (
        await api(`/admin/api/workspaces?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
      ).json()) as { data: { id: string }[]; has_more: boolean; next_cursor: string | null };
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data.map((w) => w.id));
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(listed.data.map((w) => w.id));
    for (const limit of ["0", "201", "abc", "1.5"]) {
      const bad = await api(`/admin/api/workspaces?limit=${limit}`);
      expect(bad.status, limit).toBe(400);
      expect(await bad.json()).toMatchObject({ error: "invalid_query", issues: [{ path: "limit" }] });
    }
  });

  it("shows a workspace with its key prefixes and both balances", async () => {
    const made = await create("Shown Workspace");
    const response = await api(`/admin/api/workspaces/${made.id}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(made.test_api_key);
    const view = JSON.parse(text);
    expect(view).toMatchObject({
      object: "workspace",
      id: made.id,
      name: "Shown Workspace",
      live_enabled: false,
      balances: {
        currency: "usd",
        test: { available_cents: 10_000, reserved_cents: 0, status: "active" },
        live: { available_cents: 0, reserved_cents: 0, status: "setup_required" },
      },
    });
    expect(view.keys).toHaveLength(1);
    expect(view.keys[0]).toMatchObject({ mode: "test", status: "active", expires_at: null });
    expect(made.test_api_key.startsWith(view.keys[0].api_key_prefix)).toBe(true);
    expect(view.keys[0].api_key_prefix.length).toBeLessThan(made.test_api_key.length);
  });

  it("lists a workspace's ledger by mode", async () => {
    const made = await create("Ledger Workspace");
    const test = await api(`/admin/api/workspaces/${made.id}/ledger?mode=test`);
    expect(test.status).toBe(200);
    const entries = (await test.json()) as {
      object: string;
      data: Record<string, unknown>[];
      has_more: boolean;
    };
    expect(entries.object).toBe("list");
    expect(entries.has_more).toBe(false);
    expect(entries.data).toEqual([
      expect.objectContaining({
        mode: "test",
        type: "top_up",
        amount_cents: 10_000,
        available_delta_cents: 10_000,
      }),
    ]);
    const live = (await (await api(`/admin/api/workspaces/${made.id}/ledger?mode=live`)).json()) as {
      data: unknown[];
    };
    expect(live.data).toEqual([]);
    const bad = await api(`/admin/api/workspaces/${made.id}/ledger?mode=sandbox`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "invalid_query", issues: [{ path: "mode" }] });
    const badCursor = await api(`/admin/api/workspaces/${made.id}/ledger?mode=test&cursor=nope`);
    expect(badCursor.status).toBe(400);
  });

  it("live-enables a workspace and answers its first live key once", async () => {
    const made = await create("Going Live");
    const response = await post(`/admin/api/workspaces/${made.id}/live`, undefined);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { live_api_key: string };
    expect(body).toMatchObject({
      live_enabled: true,
      balances: { live: { status: "active" } },
      live_api_key: expect.stringMatching(/^svc_live_/),
    });
    expect((await server.core.workspaces.authenticate(body.live_api_key)).mode).toBe("live");
    expect((await server.core.workspaces.get(made.id))?.live_enabled).toBe(true);
    const again = await (await post(`/admin/api/workspaces/${made.id}/live`, undefined)).json();
    expect(again).toMatchObject({ live_enabled: true });
    expect(again).not.toHaveProperty("live_api_key");
    expect(JSON.stringify(await (await api(`/admin/api/workspaces/${made.id}`)).json())).not.toContain(
      body.live_api_key,
    );
  });

  it("answers 404 for an unknown workspace or path, and 405 for a wrong method", async () => {
    for (const [path, method] of [
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}`, "GET"],
      ["/admin/api/workspaces/not-an-id", "GET"],
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}/ledger?mode=test`, "GET"],
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}/live`, "POST"],
      ["/admin/api/nothing-here", "GET"],
    ] as const) {
      const response = await api(path, { method });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.json()).toMatchObject({ error: "not_found", message: expect.any(String) });
    }
    const wrong = await api("/admin/api/workspaces", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, POST");
    const notDeleted = await api(`/admin/api/workspaces/${UNKNOWN_WORKSPACE}`, { method: "DELETE" });
    expect(notDeleted.status).toBe(405);
    expect(notDeleted.headers.get("allow")).toBe("GET, PATCH");
  });
});

describe("approvals in the admin API", () => {
  /** A live-enabled workspace with live credits, and a live draft of its key waiting for approval. */
  async function waiting(metadata: Record<string, string> = {}) {
    const made = await create("Approvals Workspace");
    const live = await server.core.workspaces.enableLive(made.id);
    const principal = await server.core.workspaces.authenticate(live!.api_key);
    const draft = await pendingDraft(server.core, principal, metadata);
    return { made, principal, draft, base: `/admin/api/workspaces/${made.id}/approvals` };
  }

  it("lists pending approvals as expense summaries, and approves one without charging or sending", async () => {
    const { made, principal, draft, base } = await waiting({ project: "Secret Project" });
    const listed = await api(`${base}?state=pending`);
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(JSON.parse(text)).toMatchObject({
      object: "list",
      data: [
        {
          object: "approval",
          draft_id: draft.id,
          mode: "live",
          type: "letter",
          state: "pending",
          revision: 1,
        },
      ],
      has_more: false,
    });
    for (const hidden of [
      "Secret Project",
      "Grace Recipient",
      "350 Fifth Avenue",
      draft.revision.quote_id!,
    ]) {
      expect(text).not.toContain(hidden);
    }
    expect(((await (await api(`${base}?mode=test`)).json()) as { data: unknown[] }).data).toEqual([]);
    const before = await server.core.workspaces.balance(made.id, "live");

    const approved = await post(`${base}/${draft.id}/approve`, { revision: 1, note: "Within budget" });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      draft_id: draft.id,
      state: "approved",
      decided_at: expect.any(String),
    });
    expect(await server.core.workspaces.balance(made.id, "live")).toEqual(before);
    expect((await server.core.store.list("orders:")).records).toEqual([]);
    expect(await server.core.drafts.get(principal, draft.id)).toMatchObject({
      state: "approved",
      order_id: null,
      approval: { state: "approved", note: "Within budget" },
    });
    // The same decision again (without a body) answers the same; the opposite one is a conflict.
    const again = await api(`${base}/${draft.id}/approve`, { method: "POST" });
    expect(again.status).toBe(200);
    const rejected = await post(`${base}/${draft.id}/reject`, {});
    expect(rejected.status).toBe(409);
    expect(await rejected.json()).toMatchObject({ error: "state_conflict" });
  });

  it("rejects, refuses a stale revision or a bad body, and answers 404 outside the workspace", async () => {
    const { draft, base, made } = await waiting();
    const stale = await post(`${base}/${draft.id}/reject`, { revision: 2 });
    expect(stale.status).toBe(409);
    const bad = await post(`${base}/${draft.id}/reject`, {
      revision: "one",
      note: "x".repeat(600),
      extra: true,
    });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { issues: { path: string }[] }).issues.map((issue) => issue.path)).toEqual([
      "extra",
      "revision",
      "note",
    ]);
    const rejected = await post(`${base}/${draft.id}/reject`, { note: "No" });
    expect(await rejected.json()).toMatchObject({ state: "rejected" });
    const other = await create("Other Workspace");
    for (const [path, method] of [
      [`/admin/api/workspaces/${other.id}/approvals/${draft.id}/approve`, "POST"],
      [`${base}/drf_${"0".repeat(44)}/approve`, "POST"],
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}/approvals/${draft.id}/approve`, "POST"],
      [`/admin/api/workspaces/${UNKNOWN_WORKSPACE}/approvals`, "GET"],
    ] as const) {
      const response = await api(path, { method });
      expect(response.status, path).toBe(404);
    }
    expect((await api(`${base}/${draft.id}/approve`, { token: "wrong", method: "POST" })).status).toBe(401);
    const wrongMethod = await api(`${base}/${draft.id}/approve`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect((await api(`${base}?state=maybe`)).status).toBe(400);
    expect((await api(`/admin/api/workspaces/${made.id}/approvals?mode=sandbox`)).status).toBe(400);
  });
});

import { createMailpieceCore } from "@mailpiece/core";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "./admin-app.ts";
import { sha256Hex } from "./security.ts";
import { SESSION_TTL_MS, SIGN_IN_LIMIT } from "./sessions.ts";
import {
  type AdminServer,
  cookieSet,
  csrfOf,
  newAdminToken,
  pendingDraft,
  postForm,
  setCookies,
  signIn,
  startAdminServer,
} from "./test-server.fixture.ts";

let server: AdminServer;
let token: string;

beforeAll(async () => {
  token = newAdminToken();
  server = await startAdminServer({ adminToken: token });
}, 60_000);

afterAll(async () => {
  for (const response of server.responses) expect(response).not.toContain(token);
  expect(server.errors).toEqual([]);
  await server?.close();
});

const workspaceNames = async () =>
  (await server.core.workspaces.list({ limit: 200 })).data.map((workspace) => workspace.name);

/** The sign-in form's cookie and CSRF token. */
async function signInForm(target: AdminServer = server) {
  const response = await fetch(`${target.base}/dashboard`);
  return {
    cookie: `mp_admin_sign_in=${cookieSet(response, "mp_admin_sign_in")}`,
    csrf: csrfOf(await response.text()),
  };
}

describe("the dashboard over HTTP", () => {
  it("shows the sign-in form with strict headers and no script", async () => {
    const response = await fetch(`${server.base}/dashboard`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await response.text();
    expect(html).not.toMatch(/<script|\son[a-z]+=|\sstyle=/i);
    expect(html).toMatch(/<form method="post" action="\/dashboard\/sign-in">/);
    expect(html).toContain('name="token" type="password"');
    const formCookie = setCookies(response).find((cookie) => cookie.startsWith("mp_admin_sign_in="));
    expect(formCookie).toMatch(/; HttpOnly/);
    expect(formCookie).toMatch(/; SameSite=Strict/);
  });

  it("signs in with the token: an opaque session id in an HttpOnly, SameSite=Strict cookie, kept hashed", async () => {
    const form = await signInForm();
    const response = await postForm(
      server,
      "/dashboard/sign-in",
      { csrf: form.csrf, token },
      { cookie: form.cookie },
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${server.base}/dashboard`);
    const cookie = setCookies(response).find((line) => line.startsWith("mp_admin="));
    expect(cookie).toBeDefined();
    const attributes = cookie!.split(";").map((part) => part.trim());
    expect(attributes).toEqual(
      expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/", `Max-Age=${SESSION_TTL_MS / 1000}`]),
    );
    expect(attributes).not.toContain("Secure");
    const id = cookieSet(response, "mp_admin")!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(id).not.toContain(token);
    // Stored under the id's hash, with a TTL, holding neither the id nor the token.
    const stored = await server.core.store.get(`admin_sessions:${sha256Hex(id)}`);
    expect(stored?.expiresAt).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain(id);
    expect(JSON.stringify(stored)).not.toContain(token);
    const page = await fetch(`${server.base}/dashboard`, { headers: { cookie: `mp_admin=${id}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>Workspaces</h1>");
  });

  it("names the cookie __Host-mp_admin, Secure, on an https deployment", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    const publicUrl = "https://admin.mail.example";
    const app = createAdminApp(core, { publicUrl, adminToken: token });
    const form = await app.fetch(new Request(`${publicUrl}/dashboard`));
    const formCookie = setCookies(form).find((line) => line.startsWith("__Host-mp_admin_sign_in="));
    expect(formCookie).toMatch(/; Secure/);
    const response = await app.fetch(
      new Request(`${publicUrl}/dashboard/sign-in`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: publicUrl,
          cookie: `__Host-mp_admin_sign_in=${cookieSet(form, "__Host-mp_admin_sign_in")}`,
        },
        body: new URLSearchParams({ csrf: csrfOf(await form.text()), token }).toString(),
      }),
    );
    expect(response.status).toBe(303);
    const cookie = setCookies(response).find((line) => line.startsWith("__Host-mp_admin="));
    expect(cookie?.split(";").map((part) => part.trim())).toEqual(
      expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Strict", "Secure"]),
    );
    expect(cookie).not.toMatch(/Domain=/i);
    await core.close();
  });

  it("refuses a wrong token with the form again, and a sign-in without its form's cookie", async () => {
    const form = await signInForm();
    const wrong = await postForm(
      server,
      "/dashboard/sign-in",
      { csrf: form.csrf, token: `${token.slice(0, -1)}!` },
      { cookie: form.cookie },
    );
    expect(wrong.status).toBe(401);
    expect(cookieSet(wrong, "mp_admin")).toBeUndefined();
    expect(await wrong.text()).toContain("That is not this deployment&#39;s admin token.");
    const noCookie = await postForm(server, "/dashboard/sign-in", { csrf: form.csrf, token });
    expect(noCookie.status).toBe(403);
    expect(cookieSet(noCookie, "mp_admin")).toBeUndefined();
    const otherCsrf = await postForm(
      server,
      "/dashboard/sign-in",
      { csrf: (await signInForm()).csrf, token },
      { cookie: form.cookie },
    );
    expect(otherCsrf.status).toBe(403);
  });

  it("refuses cross-site posts (403) and changes nothing", async () => {
    const session = await signIn(server);
    const form = await signInForm();
    const foreign = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    const signInAcross = await postForm(
      server,
      "/dashboard/sign-in",
      { csrf: form.csrf, token },
      { ...foreign, cookie: form.cookie },
    );
    expect(signInAcross.status).toBe(403);
    expect(cookieSet(signInAcross, "mp_admin")).toBeUndefined();
    const across: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "https://evil.example", "sec-fetch-site": "same-origin" },
      { origin: server.base, "sec-fetch-site": "same-site" },
      { origin: "null", "sec-fetch-site": "cross-site" },
      { origin: "null", referer: "https://evil.example/page", "sec-fetch-site": "" },
    ];
    for (const headers of across) {
      const response = await postForm(
        server,
        "/dashboard/workspaces",
        { csrf: session.csrf, name: "Made Across Sites" },
        { cookie: session.cookie, ...headers },
      );
      expect(response.status, JSON.stringify(headers)).toBe(403);
    }
    // A post with none of Origin, Referer and Sec-Fetch-Site is refused too.
    const bare = await fetch(`${server.base}/dashboard/workspaces`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: session.cookie },
      body: new URLSearchParams({ csrf: session.csrf, name: "Made Across Sites" }).toString(),
    });
    expect(bare.status).toBe(403);
    expect(await workspaceNames()).not.toContain("Made Across Sites");
    const signOut = await postForm(
      server,
      "/dashboard/sign-out",
      { csrf: session.csrf },
      { cookie: session.cookie, origin: "https://evil.example" },
    );
    expect(signOut.status).toBe(403);
    expect((await fetch(`${server.base}/dashboard`, { headers: { cookie: session.cookie } })).status).toBe(
      200,
    );
  });

  it("refuses a post without the session's CSRF token (403)", async () => {
    const session = await signIn(server);
    const other = await signIn(server);
    const forms: Record<string, string>[] = [
      { name: "No Csrf" },
      { name: "No Csrf", csrf: "" },
      { name: "No Csrf", csrf: other.csrf },
    ];
    for (const fields of forms) {
      const response = await postForm(server, "/dashboard/workspaces", fields, { cookie: session.cookie });
      expect(response.status, JSON.stringify(fields)).toBe(403);
    }
    expect(await workspaceNames()).not.toContain("No Csrf");
    // A browser on a no-referrer page sends Origin: null; its fetch metadata vouches for it.
    const fromPage = await postForm(
      server,
      "/dashboard/workspaces",
      { name: "With Csrf", csrf: session.csrf },
      { cookie: session.cookie, origin: "null", "sec-fetch-site": "same-origin" },
    );
    expect(fromPage.status).toBe(201);
    expect(await workspaceNames()).toContain("With Csrf");
  });

  it("creates a workspace from the form, shows its key once, and escapes every value", async () => {
    const session = await signIn(server);
    const name = `<script>alert("x")</script> & 'Co'`;
    const response = await postForm(
      server,
      "/dashboard/workspaces",
      { name, csrf: session.csrf },
      {
        cookie: session.cookie,
      },
    );
    expect(response.status).toBe(201);
    const html = await response.text();
    const key = /<code id="new-key">([^<]+)<\/code>/.exec(html)?.[1];
    expect(key).toMatch(/^svc_test_/);
    await expect(server.core.workspaces.authenticate(key!)).resolves.toBeDefined();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;");
    // The list afterwards shows the workspace but never the key.
    const list = await (
      await fetch(`${server.base}/dashboard`, { headers: { cookie: session.cookie } })
    ).text();
    expect(list).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(list).not.toContain(key!);
    expect(list).not.toContain("<script>");
    const bad = await postForm(
      server,
      "/dashboard/workspaces",
      { name: "  ", csrf: session.csrf },
      {
        cookie: session.cookie,
      },
    );
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('id="name-problem"');
  });

  it("shows a workspace page with key prefixes, balances and ledger lines; unknown ones are 404", async () => {
    const session = await signIn(server);
    const made = await server.core.workspaces.create("Page Workspace");
    const response = await fetch(`${server.base}/dashboard/workspaces/${made.id}`, {
      headers: { cookie: session.cookie },
    });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).not.toContain(made.test_api_key);
    expect(html).toContain(made.test_api_key.slice(0, 15));
    expect(html).toMatch(/id="balance-test">[\s\S]*\$100\.00/);
    expect(html).toMatch(/id="ledger-test">[\s\S]*top_up[\s\S]*\+\$100\.00/);
    const unknown = await fetch(`${server.base}/dashboard/workspaces/ws_${"0".repeat(32)}`, {
      headers: { cookie: session.cookie },
    });
    expect(unknown.status).toBe(404);
    const signedOut = await fetch(`${server.base}/dashboard/workspaces/${made.id}`, { redirect: "manual" });
    expect(signedOut.status).toBe(303);
    const enabled = await postForm(
      server,
      `/dashboard/workspaces/${made.id}/live`,
      { csrf: session.csrf },
      {
        cookie: session.cookie,
      },
    );
    // The first live key is on this answer, once: a page, not a redirect.
    expect(enabled.status).toBe(200);
    const withKey = await enabled.text();
    const key = /id="live-api-key">(svc_live_[A-Za-z0-9_-]+)</.exec(withKey)?.[1];
    expect(key).toBeDefined();
    expect((await server.core.workspaces.authenticate(key)).mode).toBe("live");
    expect((await server.core.workspaces.get(made.id))?.live_enabled).toBe(true);
    const later = await (
      await fetch(`${server.base}/dashboard/workspaces/${made.id}`, { headers: { cookie: session.cookie } })
    ).text();
    expect(later).not.toContain(key);
    expect(later).toContain(key!.slice(0, 15));
    const again = await postForm(
      server,
      `/dashboard/workspaces/${made.id}/live`,
      { csrf: session.csrf },
      { cookie: session.cookie },
    );
    expect(again.status).toBe(303);
  });

  it("takes an account email on the create form, and changes or removes it on the workspace page", async () => {
    const session = await signIn(server);
    const made = await postForm(
      server,
      "/dashboard/workspaces",
      { name: "Emailed", email: " billing@emailed.example ", csrf: session.csrf },
      { cookie: session.cookie },
    );
    expect(made.status).toBe(201);
    const id = /<code id="new-id">(ws_[0-9a-f]{32})<\/code>/.exec(await made.text())?.[1];
    expect(id).toBeDefined();
    expect((await server.core.workspaces.get(id!))?.email).toBe("billing@emailed.example");

    const refused = await postForm(
      server,
      "/dashboard/workspaces",
      { name: "", email: "not-an-address", csrf: session.csrf },
      { cookie: session.cookie },
    );
    expect(refused.status).toBe(422);
    const form = await refused.text();
    expect(form).toContain('id="name-problem"');
    expect(form).toContain('id="email-problem"');
    expect(form).toContain('value="not-an-address"');

    const page = async () =>
      (
        await fetch(`${server.base}/dashboard/workspaces/${id}`, { headers: { cookie: session.cookie } })
      ).text();
    expect(await page()).toContain('value="billing@emailed.example"');
    const change = (email: string) =>
      postForm(
        server,
        `/dashboard/workspaces/${id}/email`,
        { email, csrf: session.csrf },
        { cookie: session.cookie },
      );
    const saved = await change("ops@emailed.example");
    expect(saved.status).toBe(303);
    expect((await server.core.workspaces.get(id!))?.email).toBe("ops@emailed.example");
    const bad = await change("<b>nope</b>");
    expect(bad.status).toBe(422);
    const badPage = await bad.text();
    expect(badPage).toContain('id="account-email-problem"');
    expect(badPage).not.toContain("<b>nope</b>");
    expect((await server.core.workspaces.get(id!))?.email).toBe("ops@emailed.example");
    expect((await change("  ")).status).toBe(303);
    expect((await server.core.workspaces.get(id!))?.email).toBeNull();
    // Without the session's CSRF token nothing changes.
    const forged = await postForm(
      server,
      `/dashboard/workspaces/${id}/email`,
      { email: "attacker@evil.example", csrf: "wrong" },
      { cookie: session.cookie },
    );
    expect(forged.status).toBe(403);
    expect((await server.core.workspaces.get(id!))?.email).toBeNull();
  });

  it("ends a session after 12 hours on the injected clock, and on sign-out", async () => {
    const session = await signIn(server);
    server.advance(SESSION_TTL_MS - 1000);
    const before = await (
      await fetch(`${server.base}/dashboard`, { headers: { cookie: session.cookie } })
    ).text();
    expect(before).toContain("<h1>Workspaces</h1>");
    server.advance(1001);
    const after = await (
      await fetch(`${server.base}/dashboard`, { headers: { cookie: session.cookie } })
    ).text();
    expect(after).toContain("<h1>Sign in</h1>");
    const late = await postForm(
      server,
      "/dashboard/workspaces",
      { name: "Too Late", csrf: session.csrf },
      {
        cookie: session.cookie,
      },
    );
    expect(late.status).toBe(303);
    expect(await workspaceNames()).not.toContain("Too Late");

    const next = await signIn(server);
    const out = await postForm(server, "/dashboard/sign-out", { csrf: next.csrf }, { cookie: next.cookie });
    expect(out.status).toBe(303);
    expect(setCookies(out).find((line) => line.startsWith("mp_admin="))).toMatch(/Max-Age=0/);
    const gone = await (await fetch(`${server.base}/dashboard`, { headers: { cookie: next.cookie } })).text();
    expect(gone).toContain("<h1>Sign in</h1>");
  });

  it("ends sessions made with a previous admin token", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    const publicUrl = "http://127.0.0.1:1";
    const before = createAdminApp(core, { publicUrl, adminToken: token });
    const form = await before.fetch(new Request(`${publicUrl}/dashboard`));
    const signedIn = await before.fetch(
      new Request(`${publicUrl}/dashboard/sign-in`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: publicUrl,
          cookie: `mp_admin_sign_in=${cookieSet(form, "mp_admin_sign_in")}`,
        },
        body: new URLSearchParams({ csrf: csrfOf(await form.text()), token }).toString(),
      }),
    );
    const cookie = `mp_admin=${cookieSet(signedIn, "mp_admin")}`;
    const open = await before.fetch(new Request(`${publicUrl}/dashboard`, { headers: { cookie } }));
    expect(await open.text()).toContain("<h1>Workspaces</h1>");
    const after = createAdminApp(core, { publicUrl, adminToken: newAdminToken() });
    const closed = await after.fetch(new Request(`${publicUrl}/dashboard`, { headers: { cookie } }));
    expect(await closed.text()).toContain("<h1>Sign in</h1>");
    await core.close();
  });
});

describe("approvals in the dashboard", () => {
  it("lists a workspace's pending approvals as expenses and decides them with CSRF-safe forms", async () => {
    const session = await signIn(server);
    const made = await server.core.workspaces.create("Approving Workspace");
    const live = await server.core.workspaces.authenticate(
      (await server.core.workspaces.enableLive(made.id))!.api_key,
    );
    const test = await server.core.workspaces.authenticate(made.test_api_key);
    const liveDraft = await pendingDraft(server.core, live, { project: "Hidden Project" });
    const testDraft = await pendingDraft(server.core, test);
    const path = `/dashboard/workspaces/${made.id}/approvals`;
    const workspacePage = await (
      await fetch(`${server.base}/dashboard/workspaces/${made.id}`, { headers: { cookie: session.cookie } })
    ).text();
    expect(workspacePage).toContain(`href="${path}"`);

    const listed = await fetch(`${server.base}${path}`, { headers: { cookie: session.cookie } });
    expect(listed.status).toBe(200);
    const html = await listed.text();
    expect(html).toMatch(new RegExp(`id="approvals-live">[\\s\\S]*${liveDraft.id}`));
    expect(html).toMatch(new RegExp(`id="approvals-test">[\\s\\S]*${testDraft.id}`));
    expect(html).toContain(`action="${path}/${liveDraft.id}/approve"`);
    expect(html).toContain(`name="csrf" value="${session.csrf}"`);
    for (const hidden of ["Hidden Project", "Grace Recipient", "350 Fifth Avenue"])
      expect(html).not.toContain(hidden);
    expect(html).not.toMatch(/<script|\son[a-z]+=|\sstyle=/i);

    // No session: back to the sign-in; no CSRF token or another site: refused, nothing decided.
    expect((await fetch(`${server.base}${path}`, { redirect: "manual" })).status).toBe(303);
    const approve = `${path}/${liveDraft.id}/approve`;
    expect((await postForm(server, approve, { revision: "1" }, { cookie: session.cookie })).status).toBe(403);
    const across = await postForm(
      server,
      approve,
      { csrf: session.csrf, revision: "1" },
      { cookie: session.cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    );
    expect(across.status).toBe(403);
    expect((await server.core.drafts.get(live, liveDraft.id)).state).toBe("approval_requested");

    const before = await server.core.workspaces.balance(made.id, "live");
    const approved = await postForm(
      server,
      approve,
      { csrf: session.csrf, revision: "1" },
      { cookie: session.cookie },
    );
    expect(approved.status).toBe(303);
    expect(approved.headers.get("location")).toBe(
      `${server.base}${path}?decided=approved&draft=${liveDraft.id}`,
    );
    expect((await server.core.drafts.get(live, liveDraft.id)).state).toBe("approved");
    expect(await server.core.workspaces.balance(made.id, "live")).toEqual(before);
    expect((await server.core.store.list("orders:")).records).toEqual([]);
    const after = await (
      await fetch(approved.headers.get("location")!, { headers: { cookie: session.cookie } })
    ).text();
    expect(after).toContain(`Draft ${liveDraft.id} was approved.`);
    expect(after).toContain('id="no-approvals-live"');

    // A decided draft, or a revision that is no longer the one waiting, is a conflict shown on the page.
    const late = await postForm(
      server,
      `${path}/${liveDraft.id}/reject`,
      { csrf: session.csrf, revision: "1" },
      { cookie: session.cookie },
    );
    expect(late.status).toBe(409);
    expect(await late.text()).toContain("state approved");
    await server.core.drafts.edit(test, testDraft.id, { metadata: { v: "2" } });
    await server.core.drafts.requestApproval(test, testDraft.id);
    const stale = await postForm(
      server,
      `${path}/${testDraft.id}/reject`,
      { csrf: session.csrf, revision: "1" },
      { cookie: session.cookie },
    );
    expect(stale.status).toBe(409);
    expect((await server.core.drafts.get(test, testDraft.id)).state).toBe("approval_requested");
    const rejected = await postForm(
      server,
      `${path}/${testDraft.id}/reject`,
      { csrf: session.csrf, revision: "2" },
      { cookie: session.cookie },
    );
    expect(rejected.status).toBe(303);
    expect((await server.core.drafts.get(test, testDraft.id)).state).toBe("rejected");

    const unknownDraft = await postForm(
      server,
      `${path}/drf_${"0".repeat(44)}/approve`,
      { csrf: session.csrf, revision: "1" },
      { cookie: session.cookie },
    );
    expect(unknownDraft.status).toBe(404);
    const unknownWorkspace = await fetch(
      `${server.base}/dashboard/workspaces/ws_${"0".repeat(32)}/approvals`,
      {
        headers: { cookie: session.cookie },
      },
    );
    expect(unknownWorkspace.status).toBe(404);
  });
});

describe("sign-in limits", () => {
  let limited: AdminServer;

  beforeAll(async () => {
    limited = await startAdminServer({ adminToken: token });
  });

  afterAll(async () => {
    await limited?.close();
  });

  it("refuses sign-ins from an address after 10 failures in 15 minutes, even with the right token", async () => {
    const attempt = async (value: string) => {
      const form = await signInForm(limited);
      return postForm(
        limited,
        "/dashboard/sign-in",
        { csrf: form.csrf, token: value },
        { cookie: form.cookie },
      );
    };
    for (let i = 0; i < SIGN_IN_LIMIT.failures; i++) {
      expect((await attempt(`wrong-${i}`)).status).toBe(401);
    }
    const blocked = await attempt(token);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(cookieSet(blocked, "mp_admin")).toBeUndefined();
    expect(await blocked.text()).toContain("Too many failed sign-ins");
    limited.advance(SIGN_IN_LIMIT.windowMs);
    expect((await attempt(token)).status).toBe(303);
  });
});

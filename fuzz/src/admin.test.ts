import { letterOrder } from "@mailpiece/conformance";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  clientIp,
  expectHealthy,
  expectNothingLogged,
  fuzz,
  issuesOf,
  leakedSecret,
  pathNamesField,
  printable,
  sentJson,
  Verdict,
} from "./checks.ts";
import { refusedDials } from "./dial-guard.ts";
import { ADMIN_TOKEN, type Answer, type Call, type FuzzServer, startFuzzServer } from "./harness.ts";
import {
  contentTypes,
  EDGE_STRINGS,
  hostileValue,
  malformedBodies,
  methods,
  oddHeaders,
  oddQuery,
  pathSegments,
} from "./hostile.ts";

/**
 * The operator's admin API (/admin/api, bearer ADMIN_TOKEN), its dashboard (/dashboard, a session signed in with
 * the token) and the hosted pages (/checkout/{session}, /checkout/top-up/{id}, /checkout/setup/{id}). With the
 * token, without it and with wrong ones: the admin API answers JSON `{error, message, issues?}` with the codes of
 * apps/admin/src/http.ts at their statuses and 401 for every request without the token; pages answer HTML (their
 * documented error pages included); nothing is 5xx, nothing repeats the admin token or an API key.
 */

/** The admin API's codes and the one status each is answered with (apps/admin/src/api.ts and http.ts). */
const ADMIN_CODES: Record<string, number> = {
  // The server's refusal of a path it cannot decode, before any route (apps/server's onError).
  invalid_path: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  invalid_query: 400,
  invalid_json: 400,
  invalid_body: 400,
  unsupported_media_type: 415,
  body_too_large: 413,
  validation_failed: 422,
  state_conflict: 409,
  forbidden: 403,
  rate_limited: 429,
};

let server: FuzzServer;
const ids = { workspace: "", checkout: "", topUp: "", setup: "" };
/** A signed-in dashboard session: its cookie and CSRF token. */
const dashboard = { cookie: "", csrf: "" };

beforeAll(async () => {
  server = await startFuzzServer();
  const made = await server.workspace("Admin Fuzz");
  ids.workspace = made.id;
  const principal = await server.core.workspaces.authenticate(made.test_api_key);
  ids.topUp = (await server.core.projects.createTopUp(principal, { amount_cents: 2_500 })).id;
  ids.setup = (await server.core.projects.createSetup(principal, {})).id;
  const body = letterOrder();
  ids.checkout = (
    await server.core.createDraft({ body, raw: JSON.stringify(body), clientKey: "fuzz" })
  ).checkout_session.id;
  // Signing in as the operator does: the form's CSRF cookie, then the token.
  const form = await server.send({ method: "GET", path: "/dashboard" });
  const signInCookie = (form.headers.get("set-cookie") ?? "").split(";")[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
  const signedIn = await server.send({
    method: "POST",
    path: "/dashboard/sign-in",
    headers: [
      ["content-type", "application/x-www-form-urlencoded"],
      ["origin", server.base],
      ["cookie", signInCookie],
    ],
    body: new URLSearchParams({ csrf, token: ADMIN_TOKEN }).toString(),
  });
  expect(signedIn.status).toBe(303);
  dashboard.cookie = (signedIn.headers.getSetCookie().find((c) => c.startsWith("mp_admin=")) ?? "").split(
    ";",
  )[0]!;
  const list = await server.send({
    method: "GET",
    path: "/dashboard",
    headers: [["cookie", dashboard.cookie]],
  });
  dashboard.csrf = /name="csrf" value="([^"]+)"/.exec(list.text)?.[1] ?? "";
  expect(dashboard.cookie).not.toBe("");
  expect(dashboard.csrf).not.toBe("");
}, 120_000);

afterAll(async () => {
  await server?.close();
});

/** Fills the placeholders of a generated request with the fuzzer's own resources. */
function resolve(call: Call): Call {
  const fill = (text: string) =>
    text
      .replaceAll("$WORKSPACE", ids.workspace)
      .replaceAll("$CHECKOUT", ids.checkout)
      .replaceAll("$TOP_UP", ids.topUp)
      .replaceAll("$SETUP", ids.setup)
      .replaceAll("$ADMIN_TOKEN", ADMIN_TOKEN)
      .replaceAll("$SESSION_COOKIE", dashboard.cookie)
      .replaceAll("$CSRF", dashboard.csrf)
      .replaceAll("$BASE", server.base);
  return {
    ...call,
    path: fill(call.path),
    headers: (call.headers ?? []).map(([name, value]) => [name, fill(value)]),
    ...(typeof call.body === "string" ? { body: fill(call.body) } : {}),
  };
}

async function send(call: Call): Promise<{ sent: Call; answer: Answer; verdict: Verdict }> {
  const sent = resolve(call);
  const answer = await server.send(sent);
  const verdict = new Verdict(sent, answer);
  verdict.expect(answer.status < 500, `answered ${answer.status}`);
  const leaked = leakedSecret(answer.text + JSON.stringify([...answer.headers]), server.secrets);
  verdict.expect(leaked === undefined, `the answer repeats a secret (${leaked})`);
  expectNothingLogged(verdict, server);
  return { sent, answer, verdict };
}

const ADMIN_PATHS = [
  "/admin/api/workspaces",
  "/admin/api/workspaces/$WORKSPACE",
  "/admin/api/workspaces/$WORKSPACE/ledger",
  "/admin/api/workspaces/$WORKSPACE/live",
  "/admin/api/workspaces/$WORKSPACE/approvals",
  "/admin/api/workspaces/$WORKSPACE/approvals/$WORKSPACE/approve",
  "/admin/api/workspaces/$WORKSPACE/approvals/$WORKSPACE/reject",
];

/** Requests to the admin API: its routes and methods, ids real or random, queries, bodies, with the token or not. */
function adminCalls(auth: fc.Arbitrary<[string, string][]>): fc.Arbitrary<Call> {
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ADMIN_PATHS) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...ADMIN_PATHS), pathSegments)
        .map(([p, id]) => p.replace("$WORKSPACE", id)),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(
          fc.oneof(
            fc.constantFrom(
              "api",
              "workspaces",
              "ledger",
              "live",
              "approvals",
              "approve",
              "reject",
              "$WORKSPACE",
            ),
            pathSegments,
          ),
          {
            maxLength: 4,
          },
        )
        .map((segments) => `/admin/${segments.join("/")}`),
    },
  );
  const query = fc.oneof(
    fc.constant(""),
    fc
      .record(
        {
          mode: fc.constantFrom("test", "live", "prod", ""),
          limit: fc.oneof(
            fc.integer({ min: 0, max: 300 }).map(String),
            fc.constantFrom("", "x", "1.5", "-1"),
          ),
          cursor: fc.constantFrom("", "x", "%", "c".repeat(600)),
        },
        { requiredKeys: [] },
      )
      .map((q) => `?${new URLSearchParams(q as Record<string, string>).toString()}`),
    oddQuery,
  );
  const body = fc.oneof(
    fc
      .record({
        name: fc.oneof(
          fc.string({ maxLength: 30 }),
          fc.constantFrom(...EDGE_STRINGS),
          fc.constant("n".repeat(201)),
        ),
      })
      .map((v) => JSON.stringify(v)),
    fc.record({ name: hostileValue }).map((v) => JSON.stringify(v)),
    fc.constantFrom(
      "{}",
      '{"name": null}',
      '{"__proto__": {"name": "x"}}',
      `{"name": "${"x".repeat(20_000)}"}`,
    ),
    malformedBodies,
  );
  return fc
    .record({
      method: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("GET", "POST") },
        { weight: 1, arbitrary: methods },
      ),
      path,
      query,
      auth,
      type: fc.oneof(
        { weight: 3, arbitrary: fc.constant("application/json") },
        { weight: 1, arbitrary: contentTypes },
      ),
      body,
      extra: oddHeaders,
      ip: clientIp,
    })
    .map(({ method, path: p, query: q, auth: a, type, body: b, extra, ip }) =>
      printable({
        method,
        path: `${p}${q}`,
        headers: [
          ...a,
          ...(type === undefined ? [] : ([["content-type", type]] as [string, string][])),
          ...extra.filter(([n]) => n !== "authorization"),
        ],
        body: b,
        ip,
      }),
    );
}

const withToken = fc.constant<[string, string][]>([["authorization", "Bearer $ADMIN_TOKEN"]]);
const wrongTokens: fc.Arbitrary<[string, string][]> = fc.oneof(
  fc.constant<[string, string][]>([]),
  fc
    .constantFrom(
      "Bearer",
      "Bearer ",
      "Bearer\t$ADMIN_TOKEN",
      "Basic $ADMIN_TOKEN",
      "Bearer $ADMIN_TOKENx",
      "Bearer x$ADMIN_TOKEN",
      "Bearer wrong-token-of-at-least-32-characters",
      `Bearer ${"a".repeat(10_000)}`,
      "$ADMIN_TOKEN",
    )
    .map((value) => [["authorization", value]] as [string, string][]),
  fc.constant<[string, string][]>([
    ["authorization", "Bearer nope"],
    ["authorization", "Bearer $ADMIN_TOKEN"],
  ]),
);

async function checkAdmin(call: Call, authorized: boolean): Promise<void> {
  const { sent, answer, verdict } = await send(call);
  if (sent.path.startsWith("/admin")) {
    verdict.expect(
      answer.type === "application/json" || sent.method === "HEAD",
      `an admin answer of ${answer.type || "no type"}`,
    );
    verdict.expect(
      answer.headers.get("cache-control")?.includes("no-store") === true,
      "an admin answer that may be cached",
    );
    // A path the router cannot decode is refused by the server before any route (400 invalid_path, the code every
    // surface of the server answers it with); anything else under /admin needs the token first.
    const undecodable = (answer.json as { error?: unknown } | undefined)?.error === "invalid_path";
    if (!authorized && !undecodable) {
      verdict.expect(answer.status === 401, `answered ${answer.status} without the admin token`);
    }
    if (answer.status === 401)
      verdict.expect(answer.headers.has("www-authenticate"), "a 401 without WWW-Authenticate");
    if (answer.status >= 400 && sent.method !== "HEAD") {
      const code = (answer.json as { error?: unknown } | undefined)?.error;
      const status = typeof code === "string" ? ADMIN_CODES[code] : undefined;
      verdict.expect(
        status !== undefined,
        `error code ${JSON.stringify(code)} is not one of the admin API's`,
      );
      if (status !== undefined)
        verdict.expect(
          status === answer.status,
          `error code ${String(code)} belongs to ${status}, not ${answer.status}`,
        );
      const { ok, issues } = issuesOf(answer.json);
      verdict.expect(ok, "issues is not a list of {path, code, message}");
      for (const issue of issues) {
        verdict.expect(
          pathNamesField(issue.path, sentJson(sent), new Set(["name", "mode", "limit", "cursor"])),
          `issue path ${JSON.stringify(issue.path)} names no field of the request`,
        );
      }
    }
  }
  verdict.done();
  for (const key of [
    (answer.json as { test_api_key?: unknown; live_api_key?: unknown } | undefined)?.test_api_key,
    (answer.json as { live_api_key?: unknown } | undefined)?.live_api_key,
  ]) {
    if (typeof key === "string") server.secrets.add(key);
  }
}

/** Requests to the hosted pages and the dashboard: real and random ids, forms, origins, cookies, methods. */
function pageCalls(): fc.Arbitrary<Call> {
  const path = fc.oneof(
    fc.constantFrom(
      "/checkout/$CHECKOUT",
      "/checkout/top-up/$TOP_UP",
      "/checkout/setup/$SETUP",
      "/dashboard",
      "/dashboard/sign-in",
      "/dashboard/sign-out",
      "/dashboard/workspaces",
      "/dashboard/workspaces/$WORKSPACE",
      "/dashboard/workspaces/$WORKSPACE/live",
    ),
    fc
      .tuple(
        fc.constantFrom(
          "/checkout/",
          "/checkout/top-up/",
          "/checkout/setup/",
          "/dashboard/workspaces/",
          "/dashboard/",
        ),
        pathSegments,
      )
      .map(([base, id]) => `${base}${id}`),
  );
  const form = fc
    .record(
      {
        token: fc.oneof(
          fc.constantFrom("spt_test_ok", "spt_test_declined", "spt_test_3ds", "$ADMIN_TOKEN", "", "tok"),
          fc.constantFrom(...EDGE_STRINGS),
        ),
        first_name: fc.oneof(fc.constantFrom("Ada", ""), fc.constantFrom(...EDGE_STRINGS)),
        email: fc.constantFrom("ada@example.com", "", "not-an-email", "a@b"),
        csrf: fc.constantFrom("$CSRF", "", "forged"),
        name: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...EDGE_STRINGS)),
      },
      { requiredKeys: [] },
    )
    .map((fields) => new URLSearchParams(fields as Record<string, string>).toString());
  return fc
    .record({
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom("GET", "POST") },
        { weight: 1, arbitrary: methods },
      ),
      path,
      query: fc.oneof(fc.constant(""), oddQuery),
      origin: fc.constantFrom<[string, string][]>(
        [["origin", "$BASE"]],
        [],
        [["origin", "https://evil.example"]],
        [["sec-fetch-site", "cross-site"]],
        [["sec-fetch-site", "same-origin"]],
        [["origin", "null"]],
      ),
      cookie: fc.constantFrom<[string, string][]>(
        [["cookie", "$SESSION_COOKIE"]],
        [],
        [["cookie", "mp_admin=forged"]],
        [["cookie", "mp_admin_sign_in=abc"]],
      ),
      type: fc.oneof(
        { weight: 3, arbitrary: fc.constant("application/x-www-form-urlencoded") },
        { weight: 1, arbitrary: contentTypes },
      ),
      body: fc.oneof({ weight: 3, arbitrary: form }, { weight: 1, arbitrary: malformedBodies }),
      ip: clientIp,
    })
    .map(({ method, path: p, query, origin, cookie, type, body, ip }) =>
      printable({
        method,
        path: `${p}${query}`,
        headers: [
          ...origin,
          ...cookie,
          ...(type === undefined ? [] : ([["content-type", type]] as [string, string][])),
        ],
        body,
        ip,
      }),
    );
}

async function checkPage(call: Call): Promise<void> {
  const { sent, answer, verdict } = await send(call);
  const page = sent.path.startsWith("/checkout/") || sent.path.startsWith("/dashboard");
  if (page && sent.method !== "HEAD" && answer.status !== 303 && answer.status !== 204) {
    // A page path answers HTML; a method or path the page app does not take falls to the server's JSON not_found.
    const html = answer.type === "text/html";
    const json =
      answer.type === "application/json" &&
      (answer.json as { error?: unknown } | undefined)?.error !== undefined;
    verdict.expect(
      html || (json && answer.status >= 400),
      `a page answered ${answer.status} ${answer.type || "without a type"}`,
    );
    if (json) {
      const code = (answer.json as { error: unknown }).error;
      verdict.expect(
        code === "not_found" || code === "invalid_path",
        `a page path answered JSON ${JSON.stringify(code)}`,
      );
    }
  }
  if (answer.status === 303) {
    const location = answer.headers.get("location") ?? "";
    verdict.expect(
      location.startsWith(`${server.base}/`),
      `a redirect away from the deployment: ${location}`,
    );
  }
  if (!sent.headers?.some(([name, value]) => name === "cookie" && value === dashboard.cookie)) {
    verdict.expect(
      !(answer.headers.getSetCookie?.() ?? []).some(
        (cookie) => cookie.startsWith("mp_admin=") && !/mp_admin=;/.test(cookie),
      ),
      "a session cookie for a request that did not sign in with the token",
    );
  }
  verdict.done();
  const liveKey = /svc_live_[A-Za-z0-9_-]+/.exec(answer.text)?.[0];
  if (liveKey) server.secrets.add(liveKey);
}

describe("admin API (/admin/api) and pages (/checkout, /dashboard)", () => {
  it("the admin API with the token: JSON answers with its codes, never 5xx", async () => {
    await fuzz(adminCalls(withToken), (call) => checkAdmin(call, true));
    await expectHealthy(server);
  });

  it("the admin API without the token or with a wrong one: 401 for every path, nothing else said", async () => {
    await fuzz(adminCalls(wrongTokens), (call) => checkAdmin(call, false));
    await expectHealthy(server);
  });

  it("hosted checkout, top-up and setup pages and the dashboard: HTML answers, redirects home, never 5xx", async () => {
    await fuzz(pageCalls(), checkPage, {
      // A form past the page's 16 KiB, sent without Content-Length (chunked), was once answered 500.
      examples: [
        printable({
          method: "POST",
          path: "/checkout/$CHECKOUT",
          headers: [
            ["sec-fetch-site", "same-origin"],
            ["content-type", "application/x-www-form-urlencoded"],
          ],
          body: `token=spt_test_ok&first_name=${"x".repeat(16 * 1024)}`,
        }),
      ],
    });
    await expectHealthy(server);
  });

  it("nothing generated made the server reach past this machine", () => {
    expect(refusedDials).toEqual([]);
  });

  it("signing in to the dashboard with anything but the token never opens a session", async () => {
    const attempt = fc
      .record({
        token: fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom(...EDGE_STRINGS),
          fc.constant(`${ADMIN_TOKEN} `),
          fc.constant(ADMIN_TOKEN.slice(0, -1)),
        ),
        ip: clientIp,
      })
      .map(({ token, ip }) => ({ token, ip }));
    await fuzz(attempt, async ({ token, ip }) => {
      const form = await server.send({ method: "GET", path: "/dashboard", ip });
      const cookie = (form.headers.get("set-cookie") ?? "").split(";")[0]!;
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? "";
      const call: Call = {
        method: "POST",
        path: "/dashboard/sign-in",
        headers: [
          ["content-type", "application/x-www-form-urlencoded"],
          ["origin", server.base],
          ["cookie", cookie],
        ],
        body: new URLSearchParams({ csrf, token }).toString(),
        ip,
      };
      const answer = await server.send(call);
      const verdict = new Verdict(call, answer);
      verdict.expect(
        answer.status === 401 || answer.status === 429,
        `a wrong token answered ${answer.status}`,
      );
      verdict.expect(
        !answer.headers.getSetCookie().some((c) => c.startsWith("mp_admin=") && !/mp_admin=;/.test(c)),
        "a session cookie for a wrong token",
      );
      verdict.expect(leakedSecret(answer.text, server.secrets) === undefined, "the answer repeats a secret");
      expectNothingLogged(verdict, server);
      verdict.done();
    });
    await expectHealthy(server);
  });
});

import type { MailpieceCore } from "@mailpiece/core";
import { CoreError } from "@mailpiece/core";
import type { H3, H3Event } from "h3";
import { getRequestIP } from "h3";
import { readForm } from "./http.ts";
import { type AdminOutbox, OUTBOX_ID, outboxMessageView } from "./outbox.ts";
import { outboxListPage, outboxMessagePage } from "./outbox-pages.ts";
import type { WorkspacePageContext, WorkspaceRow } from "./pages.ts";
import {
  approvalsPage,
  CONTENT_SECURITY_POLICY,
  LEDGER_ENTRIES_SHOWN,
  listPage,
  messagePage,
  signInPage,
  workspacePage,
} from "./pages.ts";
import {
  COMMON_HEADERS,
  cookieHeader,
  cookieOf,
  fromOwnOrigin,
  RANDOM_TOKEN,
  randomToken,
  sameSecret,
} from "./security.ts";
import type { Session, Sessions, SignInLimiter } from "./sessions.ts";
import { SESSION_TTL_MS } from "./sessions.ts";
import { lastLedgerEntries, workspaceDetail } from "./views.ts";

/** The headers of an .eml download: a file to save, never a page to render. */
const EML_HEADERS = {
  ...COMMON_HEADERS,
  "content-type": "message/rfc822",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'; sandbox",
};

/** The largest form the dashboard reads: a token or a name, and a CSRF token. */
const MAX_FORM_BYTES = 8 * 1024;
/** How long a sign-in form stays usable (its CSRF cookie's life). */
const SIGN_IN_FORM_SECONDS = 60 * 60;
/** Workspaces per page of the list. */
const PAGE_SIZE = 50;
/** Pending approvals per mode shown on a workspace's approvals page. */
const APPROVALS_SHOWN = 50;

interface DashboardContext {
  core: MailpieceCore;
  publicUrl: string;
  adminToken: string;
  sessions: Sessions;
  limiter: SignInLimiter;
  trustProxy: boolean;
  onUnexpectedError: (error: unknown) => void;
  /** The email outbox to show under /dashboard/outbox; without one those paths are unknown pages. */
  outbox?: AdminOutbox;
}

const PAGE_HEADERS = {
  ...COMMON_HEADERS,
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CONTENT_SECURITY_POLICY,
};

/** An HTML answer with the dashboard's headers and any cookies to set. */
function page(html: string, status = 200, cookies: string[] = [], extra: Record<string, string> = {}) {
  const headers = new Headers({ ...PAGE_HEADERS, ...extra });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(html, { status, headers });
}

/**
 * The operator dashboard under /dashboard: plain HTML without scripts. Signing in with the admin token opens a
 * server-side session (an opaque id in an HttpOnly, SameSite=Strict cookie); every form posts its session's CSRF
 * token, and every post must come from the deployment's own origin.
 */
export function addDashboard(app: H3, ctx: DashboardContext): void {
  const { core, sessions, limiter, outbox } = ctx;
  /** Every signed-in page links the outbox when there is one. */
  const nav = { outbox: outbox !== undefined };
  const message = (title: string, text: string, csrf?: string) => messagePage(title, text, csrf, nav.outbox);
  const noSuchListPage = (csrf: string) =>
    page(message("Not found", "This page of the list does not exist.", csrf), 400);
  const origin = new URL(ctx.publicUrl).origin;
  const secure = origin.startsWith("https:");
  // __Host-: only ever set by this origin over https, for the whole site; browsers refuse it without Secure.
  const sessionCookie = secure ? "__Host-mp_admin" : "mp_admin";
  const signInCookie = secure ? "__Host-mp_admin_sign_in" : "mp_admin_sign_in";
  const at = (path: string) => `${ctx.publicUrl}${path}`;
  const redirect = (path: string, cookies: string[] = []) => page("", 303, cookies, { location: at(path) });

  const route =
    (handler: (event: H3Event) => Promise<Response>) =>
    async (event: H3Event): Promise<Response> => {
      try {
        return await handler(event);
      } catch (error) {
        ctx.onUnexpectedError(error);
        return page(message("Something failed", "Something failed on our side; try again."), 500);
      }
    };

  const sessionOf = (event: H3Event) => sessions.find(cookieOf(event.req.headers, sessionCookie));

  /** The sign-in form, with a fresh CSRF token in its own cookie (double submit: no session exists yet). */
  const signIn = (message?: string, status = 200, headers: Record<string, string> = {}) => {
    const csrf = randomToken();
    return page(
      signInPage(csrf, message),
      status,
      [cookieHeader(signInCookie, csrf, SIGN_IN_FORM_SECONDS, secure)],
      headers,
    );
  };

  const crossSite = () =>
    page(message("Refused", "This form can only be sent from the dashboard's own pages."), 403);

  /**
   * A signed-in form post: from this origin, a readable form, a live session, its CSRF token. Answers the
   * refusal, or the session and the form's fields.
   */
  const signedInPost = async (
    event: H3Event,
  ): Promise<Response | { session: Session; form: Map<string, string> }> => {
    if (!fromOwnOrigin(event.req.headers, origin)) return crossSite();
    const session = await sessionOf(event);
    if (!session) return redirect("/dashboard");
    const form = await readForm(event, MAX_FORM_BYTES);
    if (!form) return page(message("Refused", "The form could not be read; send it again."), 400);
    if (!sameSecret(form.get("csrf"), session.csrf)) {
      return page(
        message("Refused", "The form was not sent from this session's pages; reload it and try again."),
        403,
      );
    }
    return { session, form };
  };

  const listWith = async (
    session: Session,
    extra: Pick<Parameters<typeof listPage>[0], "created" | "form"> = {},
    cursor?: string,
  ) => {
    const found = await core.workspaces.list({ limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) });
    const rows: WorkspaceRow[] = await Promise.all(
      found.data.map(async (workspace) => {
        const balance = await core.workspaces.balance(workspace.id, "test");
        return { workspace, test: balance.test, live: balance.live };
      }),
    );
    return listPage({ csrf: session.csrf, ...nav, rows, nextCursor: found.next_cursor, ...extra });
  };

  app.get(
    "/dashboard",
    route(async (event) => {
      const session = await sessionOf(event);
      if (!session) return signIn();
      const cursor = event.url.searchParams.get("cursor") ?? undefined;
      try {
        return page(await listWith(session, {}, cursor));
      } catch (error) {
        if (CoreError.isInstance(error) && error.code === "invalid_query") {
          return noSuchListPage(session.csrf);
        }
        throw error;
      }
    }),
  );

  app.post(
    "/dashboard/sign-in",
    route(async (event) => {
      if (!fromOwnOrigin(event.req.headers, origin)) return crossSite();
      const form = await readForm(event, MAX_FORM_BYTES);
      const expected = cookieOf(event.req.headers, signInCookie);
      if (!form || expected === undefined || !RANDOM_TOKEN.test(expected)) {
        return signIn("The sign-in form expired; sign in again.", 403);
      }
      if (!sameSecret(form.get("csrf"), expected)) {
        return signIn("The sign-in form was not sent from this page; sign in again.", 403);
      }
      const client = getRequestIP(event, { xForwardedFor: ctx.trustProxy }) ?? "unknown";
      const wait = await limiter.blockedFor(client);
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60);
        return signIn(
          `Too many failed sign-ins from this address; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
          429,
          { "retry-after": String(wait) },
        );
      }
      if (!sameSecret(form.get("token"), ctx.adminToken)) {
        await limiter.fail(client);
        return signIn("That is not this deployment's admin token.", 401);
      }
      const session = await sessions.open();
      return redirect("/dashboard", [
        cookieHeader(sessionCookie, session.id, Math.floor(SESSION_TTL_MS / 1000), secure),
        cookieHeader(signInCookie, "", 0, secure),
      ]);
    }),
  );

  app.post(
    "/dashboard/sign-out",
    route(async (event) => {
      const checked = await signedInPost(event);
      if (checked instanceof Response) return checked;
      await sessions.close(checked.session.id);
      return redirect("/dashboard", [cookieHeader(sessionCookie, "", 0, secure)]);
    }),
  );

  app.post(
    "/dashboard/workspaces",
    route(async (event) => {
      const checked = await signedInPost(event);
      if (checked instanceof Response) return checked;
      const name = checked.form.get("name") ?? "";
      const email = (checked.form.get("email") ?? "").trim();
      try {
        const made = await core.workspaces.create(name, { email: email === "" ? undefined : email });
        // Shown in this answer and nowhere else: no redirect, since the key is never stored to show it later.
        return page(await listWith(checked.session, { created: made }), 201);
      } catch (error) {
        if (!(CoreError.isInstance(error) && error.code === "validation_failed")) throw error;
        const problems: Partial<Record<"name" | "email", string>> = {};
        for (const issue of error.issues) {
          if (issue.path === "name" || issue.path === "email") problems[issue.path] ??= issue.message;
        }
        return page(await listWith(checked.session, { form: { name, email, problems } }), 422);
      }
    }),
  );

  /** The workspace page, with a notice, and a first live key shown this once. */
  const workspaceAnswer = async (
    id: string,
    csrf: string,
    extra: Pick<WorkspacePageContext, "notice" | "liveKey" | "emailForm">,
    status = 200,
  ) => {
    const workspace = await workspaceDetail(core, id);
    if (!workspace) return page(message("Not found", "There is no such workspace.", csrf), 404);
    const [test, live] = await Promise.all([
      lastLedgerEntries(core, workspace.id, "test", LEDGER_ENTRIES_SHOWN),
      lastLedgerEntries(core, workspace.id, "live", LEDGER_ENTRIES_SHOWN),
    ]);
    return page(workspacePage({ csrf, ...nav, workspace, ledgers: { test, live }, ...extra }), status);
  };

  app.get(
    "/dashboard/workspaces/:id",
    route(async (event) => {
      const session = await sessionOf(event);
      if (!session) return redirect("/dashboard");
      const enabled = event.url.searchParams.get("live") === "enabled";
      const id = event.context.params?.id ?? "";
      const live = enabled && (await core.workspaces.get(id))?.live_enabled;
      const saved = event.url.searchParams.get("email") === "saved";
      return workspaceAnswer(
        id,
        session.csrf,
        live
          ? { notice: "The workspace is live-enabled: its live keys work." }
          : saved
            ? { notice: "The account email is saved." }
            : {},
      );
    }),
  );

  /** A signed-in form post about one workspace: `handle` runs for a workspace that exists, else the 404 page. */
  const workspacePost = (
    handle: (
      id: string,
      checked: Exclude<Awaited<ReturnType<typeof signedInPost>>, Response>,
    ) => Promise<Response>,
  ) =>
    route(async (event) => {
      const checked = await signedInPost(event);
      if (checked instanceof Response) return checked;
      const id = event.context.params?.id ?? "";
      if (!(await core.workspaces.get(id))) {
        return page(message("Not found", "There is no such workspace.", checked.session.csrf), 404);
      }
      return handle(id, checked);
    });

  app.post(
    "/dashboard/workspaces/:id/live",
    workspacePost(async (id, checked) => {
      const liveKey = await core.workspaces.enableLive(id);
      // A first live key is shown on this answer only: it is rendered, not redirected to.
      if (liveKey) {
        return workspaceAnswer(id, checked.session.csrf, {
          notice: "The workspace is live-enabled: its live keys work.",
          liveKey,
        });
      }
      return redirect(`/dashboard/workspaces/${encodeURIComponent(id)}?live=enabled`);
    }),
  );

  app.post(
    "/dashboard/workspaces/:id/email",
    workspacePost(async (id, checked) => {
      const email = (checked.form.get("email") ?? "").trim();
      try {
        await core.workspaces.update(id, { email: email === "" ? null : email });
      } catch (error) {
        if (!(CoreError.isInstance(error) && error.code === "validation_failed")) throw error;
        const problem = error.issues[0]?.message ?? error.message;
        return workspaceAnswer(id, checked.session.csrf, { emailForm: { email, problem } }, 422);
      }
      return redirect(`/dashboard/workspaces/${encodeURIComponent(id)}?email=saved`);
    }),
  );

  /** The approvals page of a workspace: each mode's pending approvals (from its cursor), with a notice. */
  const approvalsAnswer = async (
    id: string,
    csrf: string,
    options: {
      cursors?: Partial<Record<"test" | "live", string>>;
      notice?: { kind: "error" | "info"; message: string };
      status?: number;
    } = {},
  ) => {
    const workspace = await core.workspaces.get(id);
    if (!workspace) return page(message("Not found", "There is no such workspace.", csrf), 404);
    const pendingOf = async (mode: "test" | "live") => {
      const cursor = options.cursors?.[mode];
      const found = await core.drafts.workspaceApprovals(workspace.id, mode, {
        state: "pending",
        limit: APPROVALS_SHOWN,
        ...(cursor ? { cursor } : {}),
      });
      return { approvals: found.data, nextCursor: found.next_cursor };
    };
    const [test, live] = await Promise.all([pendingOf("test"), pendingOf("live")]);
    return page(
      approvalsPage({
        csrf,
        ...nav,
        workspace,
        pending: { test, live },
        ...(options.notice ? { notice: options.notice } : {}),
      }),
      options.status,
    );
  };

  app.get(
    "/dashboard/workspaces/:id/approvals",
    route(async (event) => {
      const session = await sessionOf(event);
      if (!session) return redirect("/dashboard");
      const query = event.url.searchParams;
      const decided = query.get("decided");
      // Only a draft id is repeated on the page: the notice cannot be made to say anything else.
      const draft = /^drf_[0-9a-f]{44}$/.test(query.get("draft") ?? "") ? query.get("draft") : undefined;
      const cursors = {
        ...(query.get("test_cursor") ? { test: query.get("test_cursor")! } : {}),
        ...(query.get("live_cursor") ? { live: query.get("live_cursor")! } : {}),
      };
      try {
        return await approvalsAnswer(event.context.params?.id ?? "", session.csrf, {
          cursors,
          ...(draft && (decided === "approved" || decided === "rejected")
            ? { notice: { kind: "info" as const, message: `Draft ${draft} was ${decided}.` } }
            : {}),
        });
      } catch (error) {
        if (CoreError.isInstance(error) && error.code === "invalid_query") {
          return noSuchListPage(session.csrf);
        }
        throw error;
      }
    }),
  );

  for (const decision of ["approve", "reject"] as const) {
    app.post(
      `/dashboard/workspaces/:id/approvals/:draft_id/${decision}`,
      route(async (event) => {
        const checked = await signedInPost(event);
        if (checked instanceof Response) return checked;
        const id = event.context.params?.id ?? "";
        const draft = event.context.params?.draft_id ?? "";
        const csrf = checked.session.csrf;
        if (!(await core.workspaces.get(id))) {
          return page(message("Not found", "There is no such workspace.", csrf), 404);
        }
        const revision = checked.form.get("revision") ?? "";
        try {
          await core.drafts.decide(id, draft, decision, {
            body: { revision: /^[0-9]{1,9}$/.test(revision) ? Number(revision) : revision },
            via: "dashboard",
          });
        } catch (error) {
          if (!CoreError.isInstance(error)) throw error;
          const refusals: Partial<Record<string, number>> = {
            state_conflict: 409,
            not_found: 404,
            validation_failed: 400,
          };
          const status = refusals[error.code];
          if (status === undefined) throw error;
          return approvalsAnswer(id, csrf, { notice: { kind: "error", message: error.message }, status });
        }
        const done = decision === "approve" ? "approved" : "rejected";
        return redirect(
          `/dashboard/workspaces/${encodeURIComponent(id)}/approvals?decided=${done}&draft=${encodeURIComponent(draft)}`,
        );
      }),
    );
  }

  /**
   * The outbox pages: the messages newest first, a page at a time; one message (`/dashboard/outbox/{id}`); its raw
   * .eml as a download (`/dashboard/outbox/{id}.eml`). An id or cursor the outbox cannot hold is not found.
   */
  const addOutboxPages = (mail: AdminOutbox) => {
    app.get(
      "/dashboard/outbox",
      route(async (event) => {
        const session = await sessionOf(event);
        if (!session) return redirect("/dashboard");
        const cursor = event.url.searchParams.get("cursor") ?? undefined;
        if (cursor !== undefined && !OUTBOX_ID.test(cursor)) return noSuchListPage(session.csrf);
        let found: Awaited<ReturnType<AdminOutbox["list"]>>;
        try {
          found = await mail.list({ limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) });
        } catch (error) {
          // The outbox refuses a cursor it never made with a RangeError.
          if (error instanceof RangeError) return noSuchListPage(session.csrf);
          throw error;
        }
        return page(
          outboxListPage({
            csrf: session.csrf,
            ...nav,
            entries: found.entries,
            ...(found.cursor === undefined ? {} : { cursor: found.cursor }),
          }),
        );
      }),
    );

    app.get(
      "/dashboard/outbox/:id",
      route(async (event) => {
        const session = await sessionOf(event);
        if (!session) return redirect("/dashboard");
        const param = event.context.params?.id ?? "";
        const download = param.endsWith(".eml");
        const id = download ? param.slice(0, -".eml".length) : param;
        const found = OUTBOX_ID.test(id) ? await mail.read(id) : undefined;
        if (!found) {
          return page(message("Not found", "There is no such message in the outbox.", session.csrf), 404);
        }
        if (download) {
          return new Response(new Uint8Array(found.eml), {
            headers: { ...EML_HEADERS, "content-disposition": `attachment; filename="${id}.eml"` },
          });
        }
        const view = await outboxMessageView(found);
        return page(outboxMessagePage({ csrf: session.csrf, ...nav, message: view }));
      }),
    );
  };

  if (outbox) addOutboxPages(outbox);

  app.all(
    "/dashboard/**",
    route(async (event) => {
      const session = await sessionOf(event);
      return page(message("Not found", "There is no such dashboard page.", session?.csrf), 404);
    }),
  );
}

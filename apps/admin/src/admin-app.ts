import type { MailpieceCore } from "@mailpiece/core";
import { H3 } from "h3";
import { addAdminApi } from "./api.ts";
import { addDashboard } from "./dashboard.ts";
import type { AdminOutbox } from "./outbox.ts";
import { checkAdminToken } from "./security.ts";
import { createSessions, createSignInLimiter } from "./sessions.ts";

export interface AdminAppOptions {
  /** Absolute base URL of the deployment: redirects are made from it, and a form post must come from its origin. */
  publicUrl: string;
  /**
   * The operator's token (ADMIN_TOKEN), at least 32 characters. Absent (or empty): no admin API and no dashboard,
   * every /admin and /dashboard path answers as an unknown route.
   */
  adminToken?: string;
  /** The clock of dashboard sessions and sign-in limits; default: the core's clock. */
  now?: () => number;
  /** Take the client IP of the sign-in limit from X-Forwarded-For (only behind a proxy you trust). */
  trustProxy?: boolean;
  /** Called with every unexpected error; never with a token, a form or a body. */
  onUnexpectedError?: (error: unknown) => void;
  /**
   * The deployment's email outbox (the `EmailOutbox` of `@mailpiece/email-outbox`, or anything with its `list` and
   * `read`): the dashboard lists and shows its messages under /dashboard/outbox. Absent: no outbox pages or link.
   */
  outbox?: AdminOutbox;
}

/**
 * The operator's admin surface as an h3 app that mounts alone: the admin API under /admin/api (bearer token) and the
 * dashboard under /dashboard (sign-in with the same token). Every route answers its own errors and headers, so they
 * hold when the app is mounted in another. Without an admin token the app has no routes at all.
 * Throws at construction for a token shorter than 32 characters and for a publicUrl that is not absolute http(s).
 */
export function createAdminApp(core: MailpieceCore, options: AdminAppOptions): H3 {
  const adminToken = checkAdminToken(options.adminToken);
  let url: URL;
  try {
    url = new URL(options.publicUrl);
  } catch {
    throw new Error(`publicUrl must be an absolute http(s) URL, not ${JSON.stringify(options.publicUrl)}.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`publicUrl must be an absolute http(s) URL, not ${JSON.stringify(options.publicUrl)}.`);
  }
  const app = new H3();
  if (adminToken === undefined) return app;
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const now = options.now ?? (() => core.clock.now());
  const onUnexpectedError = options.onUnexpectedError ?? (() => {});
  addAdminApi(app, { core, adminToken, onUnexpectedError });
  addDashboard(app, {
    core,
    publicUrl,
    adminToken,
    sessions: createSessions(core.store, now, adminToken),
    limiter: createSignInLimiter(core.store, now),
    trustProxy: options.trustProxy === true,
    onUnexpectedError,
    ...(options.outbox ? { outbox: options.outbox } : {}),
  });
  return app;
}

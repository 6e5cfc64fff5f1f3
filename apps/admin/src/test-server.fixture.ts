import { randomBytes } from "node:crypto";
import { makePdf, serveOnLoopback } from "@mailpiece/conformance";
import { createMailpieceCore, type MailpieceCore, type Principal } from "@mailpiece/core";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { H3 } from "h3";
import { createAdminApp } from "./admin-app.ts";
import type { AdminOutbox } from "./outbox.ts";

/** A fresh admin token of 43 characters. */
export const newAdminToken = (): string => randomBytes(32).toString("base64url");

/** What the reference server answers for a route it does not know (apps/server: its JSON 404). */
export const unknownRoute = () =>
  new Response(JSON.stringify({ error: "not_found", message: "No such resource." }), {
    status: 404,
    headers: { "content-type": "application/json" },
  });

export interface AdminServer {
  base: string;
  core: MailpieceCore;
  adminToken: string | undefined;
  /** Every response sent, headers and body, as text (to check that no secret leaks). */
  responses: string[];
  /** Unexpected errors the app reported. */
  errors: unknown[];
  /** Moves the clock of the core and of the dashboard sessions forward. */
  advance(ms: number): void;
  close(): Promise<void>;
}

/**
 * The admin app over a core with a memory store, mounted as the reference server mounts its surfaces (in one h3 app
 * that answers unknown routes with its JSON 404), on 127.0.0.1; its clock can be moved forward.
 */
export async function startAdminServer(
  options: { adminToken?: string; outbox?: AdminOutbox } = {},
): Promise<AdminServer> {
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore(), clock });
  const responses: string[] = [];
  const errors: unknown[] = [];
  let app: H3 | undefined;
  const running = await serveOnLoopback(async (request) => {
    const response = await app!.fetch(request);
    const head = [...response.headers].map(([name, value]) => `${name}: ${value}`).join("\n");
    responses.push(`${response.status}\n${head}\n\n${await response.clone().text()}`);
    return response;
  });
  const base = running.url;
  app = new H3()
    .mount(
      "",
      createAdminApp(core, {
        publicUrl: base,
        ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
        ...(options.outbox === undefined ? {} : { outbox: options.outbox }),
        now: clock.now,
        onUnexpectedError: (error) => errors.push(error),
      }),
    )
    .all("/**", unknownRoute);
  return {
    base,
    core,
    adminToken: options.adminToken,
    responses,
    errors,
    advance(ms) {
      offset += ms;
    },
    async close() {
      await running.close();
      await core.close();
    },
  };
}

/** The Set-Cookie values of a response. */
export const setCookies = (response: Response): string[] => response.headers.getSetCookie();

/** The value a response sets for cookie `name`, or undefined. */
export function cookieSet(response: Response, name: string): string | undefined {
  const line = setCookies(response).find((cookie) => cookie.startsWith(`${name}=`));
  return line?.slice(name.length + 1).split(";")[0];
}

/** The value of the hidden CSRF field of a page. */
export function csrfOf(html: string): string {
  const found = /name="csrf" value="([^"]*)"/.exec(html)?.[1];
  if (found === undefined) throw new Error(`no CSRF field in ${html.slice(0, 300)}`);
  return found;
}

/** A form post to the dashboard, from its own origin unless the headers say otherwise. */
export function postForm(
  server: Pick<AdminServer, "base">,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: server.base,
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Signs in to the dashboard as a browser would: the form's cookie and token, then the session cookie. */
export async function signIn(
  server: Pick<AdminServer, "base" | "adminToken">,
): Promise<{ cookie: string; csrf: string }> {
  const form = await fetch(`${server.base}/dashboard`);
  const formCookie = cookieSet(form, "mp_admin_sign_in");
  const formCsrf = csrfOf(await form.text());
  const signedIn = await postForm(
    server,
    "/dashboard/sign-in",
    { csrf: formCsrf, token: server.adminToken ?? "" },
    { cookie: `mp_admin_sign_in=${formCookie}` },
  );
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const cookie = `mp_admin=${cookieSet(signedIn, "mp_admin")}`;
  const page = await fetch(`${server.base}/dashboard`, { headers: { cookie } });
  return { cookie, csrf: csrfOf(await page.text()) };
}

/**
 * A letter draft of the principal's workspace and mode, waiting for approval: a one-page document uploaded and
 * completed, quoted, saved as a draft with these addresses and metadata, and its approval requested.
 */
export async function pendingDraft(
  core: MailpieceCore,
  principal: Principal,
  metadata: Record<string, string> = {},
) {
  const pdf = await makePdf(1);
  const intent = await core.projects.createUploadIntent(principal, {
    content_type: "application/pdf",
    byte_size: pdf.byteLength,
  });
  const token = new URL(intent.upload_path, "http://x").searchParams.get("token")!;
  await core.projects.uploadDocument({
    document_id: intent.document_id,
    token,
    content_type: "application/pdf",
    bytes: pdf,
  });
  await core.projects.completeDocument(principal, intent.document_id, { page_count: 1 });
  const quote = await core.projects.createQuote(principal, "letter", { document_id: intent.document_id });
  const party = (name: string) => ({
    name,
    line1: "350 Fifth Avenue",
    city: "New York",
    state: "NY",
    zip: "10118",
  });
  const draft = await core.drafts.create(principal, {
    type: "letter",
    quote_id: quote.quote_id,
    recipient: party("Grace Recipient"),
    sender: party("Ada Sender"),
    metadata,
  });
  return core.drafts.requestApproval(principal, draft.id);
}

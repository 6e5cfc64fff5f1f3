import type { Principal } from "@mailpiece/core";
import type { H3Event } from "h3";
import { readJsonBody, readOptionalJsonBody } from "../body.ts";
import { invalidQuery, validationFailed } from "../errors.ts";
import { pageQuery } from "../query.ts";
import { json, type RouteContext, type V1Handler } from "../route.ts";

/** The drafts and approvals listings' page size: 20 by default, at most 100 (as the credit ledger's). */
export const DRAFTS_PAGE = { fallback: 20, max: 100 } as const;

/** A query parameter given at most once (invalid_query naming it otherwise); an empty one is none. */
export function singleParam(event: H3Event, name: string): string | undefined {
  const values = event.url.searchParams.getAll(name);
  if (values.length > 1) throw invalidQuery({ path: name, code: "repeated", message: `Give ${name} once.` });
  return values[0] || undefined;
}

/** The page and state filter of a listing. */
export function listQuery(event: H3Event): { state?: string; limit: number; cursor?: string } {
  const state = singleParam(event, "state");
  return { ...pageQuery(event, DRAFTS_PAGE), ...(state === undefined ? {} : { state }) };
}

export const draftIdOf = (event: H3Event) => event.context.params?.draft_id ?? "";

/** The actions take no fields: no body, or an empty object. */
async function noFields(event: H3Event): Promise<void> {
  const body = await readOptionalJsonBody(event);
  if (body === undefined) return;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed([
      { path: "", code: "invalid_type", message: "Send no body, or an empty JSON object." },
    ]);
  }
  const fields = Object.keys(body);
  if (fields.length > 0) {
    throw validationFailed(
      fields.map((field) => ({
        path: field,
        code: "unknown_field",
        message: `This action takes no ${field}.`,
      })),
    );
  }
}

/**
 * Drafts (spec 3): mail saved without spending, revised, approved by a person and released once.
 *
 * - POST /drafts `{type: "letter" | "postcard" | "template" | "handwritten", ...the body of that type's send}`
 *   (for letter and postcard: quote_id, recipient, sender, metadata, as POST /letters and /postcards; a type this
 *   deployment does not offer yet is 422 at `type`): 201 with the draft at revision 1. Nothing is reserved.
 * - GET /drafts?state=&limit=&cursor= lists them oldest first; GET /drafts/{id}?revision=n reads one, with its
 *   current revision in full (or revision n) and every revision's summary.
 * - PATCH /drafts/{id} with any fields of the body (null removes an optional one; type cannot change) saves the next
 *   revision, which clears any approval.
 * - POST /drafts/{id}/request-approval, /withdraw, /discard, /refresh (a new quote of the same options; the
 *   approval carries over only at the same price) answer the draft; /release sends the current revision once and
 *   answers its order: 201 the first time, 200 with idempotent_replay true on every retry.
 *
 * Reading needs a key that may read; everything else a key that may prepare mail of its mode (the mode's send
 * permission). A live key without mailings.submit_without_approval releases approved drafts only. A state that does
 * not allow the action is 409 state_conflict; another workspace's or mode's draft is 404.
 */
export function draftRoutes({ core, route }: RouteContext): void {
  route("GET", "/drafts", (event, principal) => core.drafts.list(principal, listQuery(event)));

  route("POST", "/drafts", async (event, principal) =>
    json(await core.drafts.create(principal, await readJsonBody(event)), 201),
  );

  route("GET", "/drafts/:draft_id", (event, principal) => {
    const revision = singleParam(event, "revision");
    if (revision !== undefined && !/^[1-9][0-9]{0,8}$/.test(revision)) {
      throw invalidQuery({
        path: "revision",
        code: "invalid_revision",
        message: "revision must be a whole number of at least 1.",
      });
    }
    return core.drafts.get(
      principal,
      draftIdOf(event),
      revision === undefined ? undefined : Number(revision),
    );
  });

  route("PATCH", "/drafts/:draft_id", async (event, principal) =>
    core.drafts.edit(principal, draftIdOf(event), await readJsonBody(event)),
  );

  /** An action on one draft: no fields, the draft's id, the use case's answer. */
  const action =
    <T>(run: (principal: Principal, id: string) => Promise<T>): V1Handler =>
    async (event, principal) => {
      await noFields(event);
      return run(principal, draftIdOf(event));
    };

  route("POST", "/drafts/:draft_id/request-approval", action(core.drafts.requestApproval));
  route("POST", "/drafts/:draft_id/withdraw", action(core.drafts.withdraw));
  route("POST", "/drafts/:draft_id/discard", action(core.drafts.discard));
  route("POST", "/drafts/:draft_id/refresh", action(core.drafts.refresh));
  route(
    "POST",
    "/drafts/:draft_id/release",
    action(async (principal, id) => {
      const order = await core.drafts.release(principal, id);
      return json(order, order.idempotent_replay ? 200 : 201);
    }),
  );
}

import type { Issue } from "@mailpiece/errors";
import { CoreError, type CoreErrorCode } from "../errors.ts";
import type { DraftType, SendBody } from "../project-drafts/draft-types.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import type { ProjectOrderView } from "./order-view.ts";

/** A send that is typeset and priced when it is made (a template or handwritten send), as drafts use it. */
export interface PreparedSends {
  /** The price of sending `body` now; throws as the send would, spending nothing. */
  prepare(principal: Principal, body: SendBody): Promise<{ price_cents: number }>;
  send(principal: Principal, body: SendBody, idempotencyKey: string): Promise<ProjectOrderView>;
}

/**
 * The draft type of such a send: a body is valid when it can be prepared (its problems are the issues the send
 * would refuse it with), its price is the prepared price, which does not expire, and the send is the send itself.
 * `resource` names the body field that names what the send uses (`template_id`) and what it is (`template`): a send
 * that finds no such thing (not_found), or finds it archived (state_conflict), is an issue at that field,
 * `<name>_not_found` or `<name>_archived`.
 */
export function preparedSendDraftType(
  sends: PreparedSends,
  resource?: { field: string; name: string },
): DraftType {
  return {
    async validate(principal, body) {
      try {
        await sends.prepare(principal, body);
        return [];
      } catch (error) {
        return refusalIssues(error, resource);
      }
    },
    async price(principal, body) {
      const prepared = await sends.prepare(principal, body);
      return { price_cents: prepared.price_cents, currency: "usd", quote_id: null, quote_expires_at: null };
    },
    send: (principal, body, idempotencyKey) => sends.send(principal, body, idempotencyKey),
  };
}

/** What a refusal of the resource a send uses says of it, as the end of an issue code. */
const RESOURCE_STATES: Partial<Record<CoreErrorCode, string>> = {
  not_found: "not_found",
  state_conflict: "archived",
};

/** The issues of a refused preparation; anything but a refusal of the body is thrown on. */
function refusalIssues(
  error: unknown,
  resource: { field: string; name: string } | undefined,
): readonly Issue[] {
  if (!CoreError.isInstance(error)) throw error;
  if (error.code === "validation_failed") return error.issues ?? [];
  const state = RESOURCE_STATES[error.code];
  if (resource === undefined || state === undefined) throw error;
  return [{ path: resource.field, code: `${resource.name}_${state}`, message: error.message }];
}

import type { DraftType } from "../project-drafts/draft-types.ts";
import type { ProjectOrderView } from "../projects/order-view.ts";
import type { ProjectOrderContext } from "../projects/place-order.ts";
import { preparedSendDraftType } from "../projects/send-draft-type.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import type { TemplateView } from "./template-record.ts";
import {
  type PreparedTemplateSend,
  prepareTemplateSend,
  sendPreparedTemplate,
  sendTemplate,
} from "./template-send.ts";
import {
  archiveTemplate,
  createTemplate,
  getTemplate,
  listTemplates,
  type TemplatePage,
  updateTemplate,
} from "./templates.ts";

export type { TemplateView } from "./template-record.ts";
export type { PreparedTemplateSend } from "./template-send.ts";
export type { TemplatePage } from "./templates.ts";

/**
 * The Projects API's letter templates (spec 3: /templates), in the caller's workspace and mode: anything of another
 * workspace or mode is not_found. Permissions are the surface's to check, as for every Projects API use case.
 */
export interface Templates {
  /** A new template `{name, body, format?, variables?}` (version 1). Throws validation_failed. */
  create(principal: Principal, body: unknown): Promise<TemplateView>;
  /** The templates, oldest first, a page at a time. Throws invalid_query. */
  list(principal: Principal, page: { cursor?: string; limit?: number }): Promise<TemplatePage>;
  /** Throws not_found. */
  get(principal: Principal, id: string): Promise<TemplateView>;
  /** PATCH: a new version, or none for a patch that changes nothing. Throws not_found, state_conflict, validation_failed. */
  update(principal: Principal, id: string, body: unknown): Promise<TemplateView>;
  /** DELETE: archived for good. Throws not_found. */
  archive(principal: Principal, id: string): Promise<TemplateView>;
  /**
   * One letter from the template, its price reserved, once per Idempotency-Key. Throws idempotency_key_required,
   * not_found, state_conflict (archived), validation_failed, request_id_conflict or insufficient_credits; nothing is
   * reserved when it throws.
   */
  send(
    principal: Principal,
    id: string,
    body: unknown,
    idempotencyKey: string | undefined,
  ): Promise<ProjectOrderView>;
  /** The send merged, typeset and priced, spending and writing nothing (drafts). Throws as send does. */
  prepareDraft(principal: Principal, id: string, body: unknown): Promise<PreparedTemplateSend>;
  /** Sends a prepared send once per Idempotency-Key; state_conflict when its price changed since. */
  sendPrepared(
    principal: Principal,
    prepared: Pick<PreparedTemplateSend, "template_id" | "body" | "price_cents">,
    idempotencyKey: string | undefined,
  ): Promise<ProjectOrderView>;
  /** Drafts of template sends: the body is a send body with its `template_id`. */
  readonly draftType: DraftType;
}

/** The template use cases over the context of Projects API orders. */
export function createTemplates(ctx: ProjectOrderContext): Templates {
  const templates: Omit<Templates, "draftType"> = {
    create: (principal, body) => createTemplate(ctx, principal, body),
    list: (principal, page) => listTemplates(ctx, principal, page),
    get: (principal, id) => getTemplate(ctx, principal, id),
    update: (principal, id, body) => updateTemplate(ctx, principal, id, body),
    archive: (principal, id) => archiveTemplate(ctx, principal, id),
    send: (principal, id, body, key) => sendTemplate(ctx, principal, id, body, key),
    prepareDraft: (principal, id, body) => prepareTemplateSend(ctx, principal, id, body),
    sendPrepared: (principal, prepared, key) => sendPreparedTemplate(ctx, principal, prepared, key),
  };
  const withoutId = ({ template_id, ...send }: Record<string, unknown>) => ({
    id: typeof template_id === "string" ? template_id : "",
    send,
  });
  const draftType = preparedSendDraftType(
    {
      prepare(principal, body) {
        const { id, send } = withoutId(body);
        return prepareTemplateSend(ctx, principal, id, send);
      },
      send(principal, body, key) {
        const { id, send } = withoutId(body);
        return sendTemplate(ctx, principal, id, send, key);
      },
    },
    { field: "template_id", name: "template" },
  );
  return {
    ...templates,
    draftType: {
      ...draftType,
      // A draft sends the version it was saved with (the one a person approved), not whatever is current later.
      async pin(principal, body) {
        if (body.version !== undefined) return body;
        const { id } = withoutId(body);
        return { ...body, version: (await getTemplate(ctx, principal, id)).version };
      },
    },
  };
}

import type { Clock, IdGenerator, Store } from "@mailpiece/ports";
import { PortError } from "@mailpiece/ports";
import { nextTemplateVersion, parseTemplateBody } from "@mailpiece/templates";
import { CoreError } from "../errors.ts";
import { requestProblems } from "../projects/documents.ts";
import { updateRecord } from "../records.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import {
  archiveVersion,
  loadTemplate,
  MAX_TEMPLATE_VERSIONS,
  newTemplateId,
  type TemplateRecord,
  type TemplateView,
  templateKey,
  templatesPrefix,
  templateView,
} from "./template-record.ts";

export interface TemplateContext {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
}

/** A page of the caller's templates, oldest first, as the credit ledger pages its movements. */
export interface TemplatePage {
  object: "list";
  data: TemplateView[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The page size of the listing: an integer from 1 to 100, default 20. */
const PAGE = { fallback: 20, max: 100 } as const;

/**
 * Creates a template in the caller's workspace and mode from `{name, body, format?, variables?}` (its version 1).
 * Throws validation_failed with every issue of the body (see parseTemplateBody of @mailpiece/templates).
 */
export async function createTemplate(
  ctx: TemplateContext,
  principal: Principal,
  body: unknown,
): Promise<TemplateView> {
  const parsed = parseTemplateBody(body);
  if (!parsed.ok) throw requestProblems(parsed.issues);
  const now = ctx.clock.now();
  const record: TemplateRecord = {
    id: newTemplateId(now, ctx.ids.uuid()),
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    status: "active",
    current: parsed.value,
    versions: [{ version: parsed.value.version, created_at: now }],
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
  const made = await ctx.store.create(templateKey(record, record.id), record);
  if (!made.created) throw new CoreError("internal_error", "A new template id collided with a stored one.");
  return templateView(made.record.value);
}

/** A template of the caller's workspace and mode with its current version; not_found for anything else. */
export async function getTemplate(
  ctx: TemplateContext,
  principal: Principal,
  id: string,
): Promise<TemplateView> {
  return templateView((await loadTemplate(ctx.store, principal, id)).record);
}

/**
 * The caller's templates, active and archived, oldest first, a page at a time (limit 1 to 100, default 20; cursor
 * from next_cursor). Throws invalid_query for a limit or a cursor it cannot take.
 */
export async function listTemplates(
  ctx: TemplateContext,
  principal: Principal,
  page: { cursor?: string; limit?: number },
): Promise<TemplatePage> {
  const limit = page.limit ?? PAGE.fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE.max) {
    const message = `limit must be an integer from 1 to ${PAGE.max}.`;
    throw new CoreError("invalid_query", message, {
      issues: [{ path: "limit", code: "invalid_limit", message }],
    });
  }
  const found = await ctx.store
    .list<TemplateRecord>(templatesPrefix(principal), {
      limit,
      ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
    })
    .catch((error: unknown) => {
      if (page.cursor === undefined) throw error;
      const message = "cursor is not one this listing gave.";
      throw new CoreError("invalid_query", message, {
        issues: [{ path: "cursor", code: "invalid_cursor", message }],
      });
    });
  return {
    object: "list",
    data: found.records.map((record) => templateView(record.value)),
    has_more: found.cursor !== undefined,
    next_cursor: found.cursor ?? null,
  };
}

/**
 * Updates a template with a PATCH body (any of name, body, format and variables): a new immutable version, the
 * earlier ones kept. A patch that changes nothing makes no version and answers the template as it is. Throws
 * not_found, state_conflict for an archived template or one at MAX_TEMPLATE_VERSIONS, validation_failed with every
 * issue of the patch (see nextTemplateVersion of @mailpiece/templates). Concurrent updates each make their own
 * version, one after the other.
 */
export async function updateTemplate(
  ctx: TemplateContext,
  principal: Principal,
  id: string,
  patch: unknown,
): Promise<TemplateView> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const { record, version } = await loadTemplate(ctx.store, principal, id);
    if (record.status === "archived") throw archived(record);
    const next = nextTemplateVersion(record.current, patch);
    if (!next.ok) throw requestProblems(next.issues);
    if (next.value.version === record.current.version) return templateView(record);
    if (record.versions.length >= MAX_TEMPLATE_VERSIONS) {
      throw new CoreError(
        "state_conflict",
        `This template has ${MAX_TEMPLATE_VERSIONS} versions, the most one keeps; create a new template instead.`,
      );
    }
    await archiveVersion(ctx.store, record);
    const now = ctx.clock.now();
    const updated: TemplateRecord = {
      ...record,
      current: next.value,
      versions: [...record.versions, { version: next.value.version, created_at: now }],
      updated_at: now,
    };
    try {
      await ctx.store.put(templateKey(record, id), updated, { ifVersion: version });
      return templateView(updated);
    } catch (error) {
      // Another update came first: this patch applies to its version.
      if (!(PortError.isInstance(error) && error.code === "version_conflict")) throw error;
    }
  }
  throw new CoreError("storage_unavailable", "This template is too contended to update; try again.");
}

/**
 * Archives a template (DELETE): it is kept and readable with its versions, never sent or updated again. Archiving
 * an archived template answers it as it is. Throws not_found.
 */
export async function archiveTemplate(
  ctx: TemplateContext,
  principal: Principal,
  id: string,
): Promise<TemplateView> {
  await loadTemplate(ctx.store, principal, id);
  const record = await updateRecord<TemplateRecord>(
    ctx.store,
    templateKey(principal, id),
    ctx.clock.now,
    (t) => (t.status === "archived" ? undefined : { ...t, status: "archived", archived_at: ctx.clock.now() }),
  );
  return templateView(record);
}

/** state_conflict for an action an archived template does not allow. */
export function archived(record: TemplateRecord): CoreError {
  return new CoreError(
    "state_conflict",
    `Template ${record.id} is archived: it can be read, not sent or updated. Create a new template to send it again.`,
  );
}

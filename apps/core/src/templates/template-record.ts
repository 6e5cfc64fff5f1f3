import type { Store } from "@mailpiece/ports";
import type { TemplateVariable, TemplateVersion } from "@mailpiece/templates";
import { CoreError } from "../errors.ts";
import type { KeyMode } from "../workspaces/api-keys.ts";

/**
 * A template of the Projects API, as stored under `project_templates:<workspace>:<mode>:<id>`: its current version
 * in full and the number and date of every version. A version is never changed; each earlier one is kept in full
 * under `project_template_versions:<id>:<number>`, written once before a newer version replaces it.
 */
export interface TemplateRecord {
  id: string;
  workspace_id: string;
  mode: KeyMode;
  status: "active" | "archived";
  current: TemplateVersion;
  versions: { version: number; created_at: number }[];
  archived_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A template as the API shows it: the current version, the list of versions and the template's state. */
export interface TemplateView {
  object: "template";
  id: string;
  name: string;
  body: string;
  format: TemplateVersion["format"];
  variables: TemplateVariable[];
  /** The current version's number: 1 for a new template, one more for each update that changed something. */
  version: number;
  versions: { version: number; created_at: string }[];
  /** An archived template is kept and readable, but cannot be sent or updated. */
  status: TemplateRecord["status"];
  created_at: string;
  updated_at: string;
}

/** The most versions a template keeps; past it, an update is refused and a new template is made instead. */
export const MAX_TEMPLATE_VERSIONS = 500;

const TEMPLATE_ID = /^tmpl_[0-9a-f]{44}$/;

export const templateKey = (owner: { workspace_id: string; mode: KeyMode }, id: string) =>
  `${templatesPrefix(owner)}${id}`;
export const templatesPrefix = (owner: { workspace_id: string; mode: KeyMode }) =>
  `project_templates:${owner.workspace_id}:${owner.mode}:`;
const versionKey = (id: string, version: number) =>
  `project_template_versions:${id}:${String(version).padStart(6, "0")}`;

/**
 * A new template id: `tmpl_`, the creation time in 12 hex digits, then 32 random hex digits. Ids sort by creation
 * time, so a workspace's templates list oldest first.
 */
export function newTemplateId(now: number, uuid: string): string {
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, "0").slice(-12);
  return `tmpl_${time}${uuid.replaceAll("-", "")}`;
}

/** A template of this workspace and mode, with its store version; not_found for anything else. */
export async function loadTemplate(
  store: Store,
  owner: { workspace_id: string; mode: KeyMode },
  id: string,
): Promise<{ record: TemplateRecord; version: number }> {
  const found = TEMPLATE_ID.test(id) ? await store.get<TemplateRecord>(templateKey(owner, id)) : undefined;
  if (!found) throw new CoreError("not_found", "No template of this workspace and mode has this id.");
  return { record: found.value, version: found.version };
}

/** Keeps the current version in full before a newer one replaces it (once: a later write finds it there). */
export async function archiveVersion(store: Store, record: TemplateRecord): Promise<void> {
  await store.create(versionKey(record.id, record.current.version), record.current);
}

/** One version of a template in full; undefined for a number it never had. */
export async function loadVersion(
  store: Store,
  record: TemplateRecord,
  version: number,
): Promise<TemplateVersion | undefined> {
  if (version === record.current.version) return record.current;
  if (!Number.isSafeInteger(version) || version < 1 || version > record.current.version) return undefined;
  return (await store.get<TemplateVersion>(versionKey(record.id, version)))?.value;
}

export function templateView(record: TemplateRecord): TemplateView {
  const { current } = record;
  return {
    object: "template",
    id: record.id,
    name: current.name,
    body: current.body,
    format: current.format,
    variables: current.variables.map((variable) => ({ ...variable })),
    version: current.version,
    versions: record.versions.map((entry) => ({
      version: entry.version,
      created_at: new Date(entry.created_at).toISOString(),
    })),
    status: record.status,
    created_at: new Date(record.created_at).toISOString(),
    updated_at: new Date(record.updated_at).toISOString(),
  };
}

import type { KeyMode, Permission } from "@mailpiece/core";
import { PERMISSIONS } from "@mailpiece/core";
import type { Issue } from "@mailpiece/errors";
import { echo, readJsonBody } from "../body.ts";
import { validationFailed } from "../errors.ts";
import type { RouteContext } from "../route.ts";
import { json } from "../route.ts";
import { MAX_ROTATION_PERMISSIONS, RotateKeyBody } from "../schemas/requests.ts";

/** The body of POST /api-keys/rotate, once checked. */
export interface RotateRequest {
  mode: KeyMode;
  permissions?: Permission[];
}

/** The fields of a rotation: those its published schema lists. */
const FIELDS = new Set(Object.keys(RotateKeyBody.properties));
/** Most entries of a `permissions` list (each permission at most a few times over). */
const MAX_PERMISSIONS = MAX_ROTATION_PERMISSIONS;

/**
 * API keys (spec 3): GET /api-keys lists the workspace's keys (prefixes and status, never a key); POST
 * /api-keys/rotate makes a key of `mode`, shown once (201), with the calling key's permissions or the narrower
 * `permissions` asked for; the mode's current keys keep working for the overlap, then stop.
 */
export function keyRoutes({ core, route }: RouteContext): void {
  route("GET", "/api-keys", async (_event, principal) => {
    core.workspaces.requirePermission(principal, "read");
    return { object: "list", data: await core.workspaces.listKeys(principal) };
  });

  route("POST", "/api-keys/rotate", async (event, principal) => {
    const request = rotateRequest(await readJsonBody(event));
    const issued = await core.workspaces.rotateKey(principal, request.mode, request.permissions);
    return json(
      {
        mode: issued.mode,
        api_key: issued.api_key,
        api_key_prefix: issued.api_key_prefix,
        permissions: issued.permissions,
      },
      201,
    );
  });
}

/**
 * Checks a rotation body: an object with `mode` ("test" or "live") and optionally `permissions` (a non-empty list of
 * known permissions). Unknown fields are refused rather than ignored: a misspelt `permissions` would otherwise give
 * the new key every permission of the caller. Throws validation_failed with every issue.
 */
export function rotateRequest(body: unknown): RotateRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed([
      { path: "", code: "invalid_type", message: 'The body must be a JSON object such as {"mode": "test"}.' },
    ]);
  }
  const issues: Issue[] = [];
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!FIELDS.has(name)) {
      issues.push({
        path: name,
        code: "unknown_field",
        message: `${echo(name)} is not a field of a rotation; send mode and, optionally, permissions.`,
      });
    }
  }
  const { mode, permissions } = fields;
  if (mode === undefined) {
    issues.push({ path: "mode", code: "required", message: 'mode is required: "test" or "live".' });
  } else if (mode !== "test" && mode !== "live") {
    issues.push({ path: "mode", code: "invalid_mode", message: 'mode must be "test" or "live".' });
  }
  if (permissions !== undefined) {
    if (!Array.isArray(permissions)) {
      issues.push({
        path: "permissions",
        code: "invalid_type",
        message: "permissions must be a list of permission names.",
      });
    } else if (permissions.length === 0 || permissions.length > MAX_PERMISSIONS) {
      issues.push({
        path: "permissions",
        code: permissions.length === 0 ? "empty" : "too_many",
        message: `permissions must list 1 to ${MAX_PERMISSIONS} permissions; leave it out to keep the calling key's.`,
      });
    } else {
      permissions.forEach((permission, index) => {
        if (!(PERMISSIONS as readonly unknown[]).includes(permission)) {
          issues.push({
            path: `permissions.${index}`,
            code: "unknown_permission",
            message: `Permissions are ${PERMISSIONS.join(", ")}.`,
          });
        }
      });
    }
  }
  if (issues.length > 0) throw validationFailed(issues);
  return {
    mode: mode as KeyMode,
    ...(permissions === undefined ? {} : { permissions: permissions as Permission[] }),
  };
}

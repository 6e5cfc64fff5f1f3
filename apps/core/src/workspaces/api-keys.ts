import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** The modes of a workspace: test (simulated printing, test credits) and live. */
export type KeyMode = "test" | "live";

/**
 * What a key may do (spec 3, Authentication): send test mail, send live mail, send live mail without an approval;
 * the older pair letters:write + letters:read keeps broad access.
 */
export const PERMISSIONS = [
  "mailings.submit_test",
  "mailings.submit_live",
  "mailings.submit_without_approval",
  "letters:write",
  "letters:read",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** The permissions of the first test key of a workspace: every test permission. */
export const TEST_KEY_PERMISSIONS: readonly Permission[] = [
  "mailings.submit_test",
  "mailings.submit_without_approval",
  "letters:read",
];

/** The permissions of a workspace's first live key, issued when it is live-enabled: every live permission. */
export const LIVE_KEY_PERMISSIONS: readonly Permission[] = [
  "mailings.submit_live",
  "mailings.submit_without_approval",
  "letters:read",
];

/**
 * An action checked against a key's permissions: reading; preparing mail without sending it (saving drafts, asking
 * for their approval); sending.
 */
export type KeyAction = "read" | "prepare" | "submit";

const PREFIX = { test: "svc_test_", live: "svc_live_" } as const;
/** A key: its mode's prefix, then 32 characters of base64url (24 random bytes). */
const KEY_PATTERN = /^svc_(test|live)_([A-Za-z0-9_-]{32})$/;
/** Characters of the secret part shown in listings after the mode's prefix. */
const SHOWN = 6;

/** A new key of this mode: the secret (shown once), its hash (stored) and its prefix (listed). */
export function newApiKey(mode: KeyMode): { secret: string; hash: string; prefix: string } {
  const secret = `${PREFIX[mode]}${randomBytes(24).toString("base64url")}`;
  return { secret, hash: hashApiKey(secret), prefix: keyPrefix(secret) };
}

/** The mode of a well-formed key, or undefined for anything that is not one. */
export function keyMode(secret: string): KeyMode | undefined {
  return KEY_PATTERN.exec(secret)?.[1] as KeyMode | undefined;
}

/** The SHA-256 of a key, hex: what is stored and looked up (keys carry 192 random bits, so no stretching). */
export function hashApiKey(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** The part of a key that listings show: its mode's prefix and the first characters of the secret. */
export function keyPrefix(secret: string): string {
  const match = KEY_PATTERN.exec(secret);
  return match ? `${PREFIX[match[1] as KeyMode]}${match[2]!.slice(0, SHOWN)}` : "";
}

/** Constant-time equality of two hex digests of the same length. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** Whether a key holds the older pair that keeps broad access. */
function broad(permissions: readonly Permission[]): boolean {
  return permissions.includes("letters:write") && permissions.includes("letters:read");
}

/**
 * What a key of `mode` with `permissions` may do: `allowed`, or the refusal spec 3 names. Reading needs
 * letters:read or any send permission; preparing mail needs the mode's send permission (mailings.submit_test, or
 * mailings.submit_live), with or without approval; a test send needs mailings.submit_test; a live send needs
 * mailings.submit_live and, to go out without a person's approval, mailings.submit_without_approval
 * (approval_required otherwise). The older pair letters:write + letters:read allows everything.
 */
export function checkPermission(
  mode: KeyMode,
  permissions: readonly Permission[],
  action: KeyAction,
): "allowed" | "permission_denied" | "approval_required" {
  if (broad(permissions)) return "allowed";
  if (action === "read") {
    return permissions.some((p) => p !== "letters:write") ? "allowed" : "permission_denied";
  }
  if (mode === "test") return permissions.includes("mailings.submit_test") ? "allowed" : "permission_denied";
  if (!permissions.includes("mailings.submit_live")) return "permission_denied";
  if (action === "prepare") return "allowed";
  return permissions.includes("mailings.submit_without_approval") ? "allowed" : "approval_required";
}

/**
 * The permissions of a key made by rotation: those asked for (default: the calling key's), never more than the
 * calling key holds. Undefined when the request asks for one the caller lacks.
 */
export function rotatedPermissions(
  caller: readonly Permission[],
  asked?: readonly Permission[],
): Permission[] | undefined {
  const wanted = asked ?? caller;
  return wanted.every((p) => caller.includes(p)) ? [...new Set(wanted)] : undefined;
}

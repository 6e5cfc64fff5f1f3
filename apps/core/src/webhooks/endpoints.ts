import type { Issue } from "@mailpiece/errors";
import { generateSigningKeyPair, generateSigningSecret } from "@mailpiece/webhooks";
import { CoreError, invalidRequest } from "../errors.ts";
import { objectBody, unknownFields } from "../projects/credit-requests.ts";
import { updateRecord } from "../records.ts";
import { iso, type WebhookContext, type WebhookPrincipal } from "./context.ts";

/** One signing secret of an endpoint; a rotated-out one keeps signing until `retires_at`. */
interface SecretEntry {
  secret: string;
  created_at: number;
  /** Null for the current secret. */
  retires_at: number | null;
}

/** A receiver of a workspace's events, as stored. */
export interface EndpointRecord {
  id: string;
  url: string;
  status: "enabled" | "disabled";
  /** Newest first: the current secret, then those still in their rotation overlap. */
  secrets: SecretEntry[];
  /** The ed25519 secret key (`whsk_`) and its public key (`whpk_`), when the endpoint asked for v1a signatures. */
  signing_key?: string;
  public_key?: string;
  created_at: number;
  disabled_at?: number;
  /** `requested`: the workspace disabled it; `gone`: the receiver answered 410. */
  disabled_reason?: "requested" | "gone";
}

/** Every endpoint of one workspace, in one record, so that the limit holds under concurrent creates. */
interface WorkspaceWebhooks {
  workspace_id: string;
  endpoints: EndpointRecord[];
  updated_at: number;
}

/** An endpoint as the API shows it: never a secret or the signing key. */
export interface WebhookEndpointView {
  object: "webhook_endpoint";
  id: string;
  url: string;
  status: "enabled" | "disabled";
  /** True when deliveries also carry a `v1a` ed25519 signature in `webhook-signature`. */
  ed25519: boolean;
  /** The `whpk_` key that checks the `v1a` signatures, or null. */
  public_key: string | null;
  created_at: string;
  disabled_at: string | null;
}

/** An endpoint just created or rotated: its signing secret, shown this once. */
export interface WebhookEndpointWithSecret extends WebhookEndpointView {
  signing_secret: string;
}

const webhooksKey = (workspaceId: string) => `webhooks:${workspaceId}`;
const ENDPOINT_ID = /^we_[0-9a-f]{32}$/;
const MAX_URL_LENGTH = 2048;
/** Endpoints kept per workspace, disabled ones included; past it the oldest disabled ones are forgotten. */
const MAX_STORED_ENDPOINTS = 64;

/** The workspace's endpoints, oldest first. */
export async function loadEndpoints(
  ctx: Pick<WebhookContext, "store">,
  workspaceId: string,
): Promise<EndpointRecord[]> {
  return (await ctx.store.get<WorkspaceWebhooks>(webhooksKey(workspaceId)))?.value.endpoints ?? [];
}

/** The secrets that sign at `now`: the current one first, then those still in their rotation overlap. */
export function signingSecrets(endpoint: EndpointRecord, now: number): string[] {
  return endpoint.secrets
    .filter((entry) => entry.retires_at === null || entry.retires_at > now)
    .map((entry) => entry.secret);
}

export function endpointView(endpoint: EndpointRecord): WebhookEndpointView {
  return {
    object: "webhook_endpoint",
    id: endpoint.id,
    url: endpoint.url,
    status: endpoint.status,
    ed25519: endpoint.public_key !== undefined,
    public_key: endpoint.public_key ?? null,
    created_at: iso(endpoint.created_at),
    disabled_at: endpoint.disabled_at === undefined ? null : iso(endpoint.disabled_at),
  };
}

/**
 * Registers a receiver: `{url, ed25519?}`. The URL must be https, without credentials, at most 2048 characters, and
 * pass the deployment's check (public addresses only); `ed25519: true` adds Standard Webhooks `v1a` signatures and a
 * `whpk_` public key. Answers the endpoint with its `whsec_` signing secret, shown this once. A workspace has at
 * most `maxEndpoints` enabled endpoints (state_conflict past it).
 */
export async function createEndpoint(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  body: unknown,
): Promise<WebhookEndpointWithSecret> {
  const input = objectBody(body);
  const issues: Issue[] = unknownFields(input, ["url", "ed25519"]);
  const url = receiverUrl(input.url, issues);
  if (input.ed25519 !== undefined && typeof input.ed25519 !== "boolean") {
    issues.push({ path: "ed25519", code: "invalid_type", message: "ed25519 must be true or false." });
  }
  if (url !== undefined && issues.length === 0 && ctx.checkUrl) await checkReceiver(ctx, url, issues);
  if (issues.length > 0 || url === undefined) throw invalidRequest(issues, "webhook endpoint");

  const now = ctx.clock.now();
  const secret = generateSigningSecret(ctx.random);
  const pair = input.ed25519 === true ? generateSigningKeyPair(ctx.random) : undefined;
  const endpoint: EndpointRecord = {
    id: `we_${ctx.ids.uuid().replaceAll("-", "")}`,
    url,
    status: "enabled",
    secrets: [{ secret, created_at: now, retires_at: null }],
    ...(pair ? { signing_key: pair.signing_key, public_key: pair.public_key } : {}),
    created_at: now,
  };
  let full = false;
  await updateWebhooks(ctx, principal.workspace_id, (record) => {
    full = record.endpoints.filter((e) => e.status === "enabled").length >= ctx.maxEndpoints;
    if (full) return undefined;
    record.endpoints.push(endpoint);
    const excess = record.endpoints.length - MAX_STORED_ENDPOINTS;
    if (excess > 0) {
      const forgotten = new Set(
        record.endpoints
          .filter((e) => e.status === "disabled")
          .slice(0, excess)
          .map((e) => e.id),
      );
      record.endpoints = record.endpoints.filter((e) => !forgotten.has(e.id));
    }
    return record;
  });
  if (full) {
    throw new CoreError(
      "state_conflict",
      `The workspace has ${ctx.maxEndpoints} enabled webhook endpoints, the most it may have; disable one first.`,
    );
  }
  return { ...endpointView(endpoint), signing_secret: secret };
}

/** The workspace's endpoints, oldest first, without their secrets. */
export async function listEndpoints(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
): Promise<WebhookEndpointView[]> {
  return (await loadEndpoints(ctx, principal.workspace_id)).map(endpointView);
}

/**
 * Disables an endpoint of the workspace: it gets no delivery from then on, pending retries included. Disabling a
 * disabled endpoint answers it as it is. Another workspace's endpoint, or none, is not_found.
 */
export async function disableEndpoint(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  endpointId: string,
): Promise<WebhookEndpointView> {
  await endpointOf(ctx, principal, endpointId);
  return endpointView(await disable(ctx, principal.workspace_id, endpointId, "requested"));
}

/** Marks an endpoint disabled (once; a disabled endpoint stays as it was) and answers it. */
export async function disable(
  ctx: Pick<WebhookContext, "store" | "clock">,
  workspaceId: string,
  endpointId: string,
  reason: "requested" | "gone",
): Promise<EndpointRecord> {
  const now = ctx.clock.now();
  const record = await updateWebhooks(ctx, workspaceId, (webhooks) => {
    const endpoint = webhooks.endpoints.find((e) => e.id === endpointId);
    if (!endpoint || endpoint.status === "disabled") return undefined;
    endpoint.status = "disabled";
    endpoint.disabled_at = now;
    endpoint.disabled_reason = reason;
    return webhooks;
  });
  const endpoint = record.endpoints.find((e) => e.id === endpointId);
  if (!endpoint) throw new CoreError("not_found", "No webhook endpoint of this workspace has this id.");
  return endpoint;
}

/**
 * A new signing secret for an enabled endpoint, shown this once. The previous secret keeps signing for the rotation
 * overlap (every delivery then carries a signature for each), then only the new one signs. A disabled endpoint is
 * state_conflict; another workspace's, not_found.
 */
export async function rotateSecret(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  endpointId: string,
): Promise<WebhookEndpointWithSecret> {
  const current = await endpointOf(ctx, principal, endpointId);
  if (current.status === "disabled") {
    throw new CoreError(
      "state_conflict",
      "This webhook endpoint is disabled; create a new endpoint instead.",
    );
  }
  const now = ctx.clock.now();
  const secret = generateSigningSecret(ctx.random);
  let disabled = false;
  const record = await updateWebhooks(ctx, principal.workspace_id, (webhooks) => {
    const endpoint = webhooks.endpoints.find((e) => e.id === endpointId);
    disabled = endpoint?.status !== "enabled";
    if (!endpoint || disabled) return undefined;
    const kept = endpoint.secrets
      .map((entry) =>
        entry.retires_at === null ? { ...entry, retires_at: now + ctx.rotationOverlapMs } : entry,
      )
      .filter((entry) => entry.retires_at !== null && entry.retires_at > now);
    endpoint.secrets = [{ secret, created_at: now, retires_at: null }, ...kept];
    return webhooks;
  });
  if (disabled) {
    throw new CoreError(
      "state_conflict",
      "This webhook endpoint is disabled; create a new endpoint instead.",
    );
  }
  const endpoint = record.endpoints.find((e) => e.id === endpointId)!;
  return { ...endpointView(endpoint), signing_secret: secret };
}

/** An endpoint of the caller's workspace, or not_found. */
async function endpointOf(
  ctx: WebhookContext,
  principal: WebhookPrincipal,
  endpointId: string,
): Promise<EndpointRecord> {
  const endpoint =
    typeof endpointId === "string" && ENDPOINT_ID.test(endpointId)
      ? (await loadEndpoints(ctx, principal.workspace_id)).find((e) => e.id === endpointId)
      : undefined;
  if (!endpoint) throw new CoreError("not_found", "No webhook endpoint of this workspace has this id.");
  return endpoint;
}

function updateWebhooks(
  ctx: Pick<WebhookContext, "store" | "clock">,
  workspaceId: string,
  change: (record: WorkspaceWebhooks) => WorkspaceWebhooks | undefined,
): Promise<WorkspaceWebhooks> {
  return updateRecord<WorkspaceWebhooks>(ctx.store, webhooksKey(workspaceId), ctx.clock.now, change, () => ({
    workspace_id: workspaceId,
    endpoints: [],
    updated_at: ctx.clock.now(),
  }));
}

/** The receiver URL of a request, or undefined with an issue at `url`: https, no credentials, a host. */
function receiverUrl(value: unknown, issues: Issue[]): string | undefined {
  const refuse = (code: string, message: string) => {
    issues.push({ path: "url", code, message });
    return undefined;
  };
  if (value === undefined)
    return refuse("required", "url is required: the https URL that receives the events.");
  if (typeof value !== "string" || value.length > MAX_URL_LENGTH) {
    return refuse("invalid_url", `url must be an https URL of at most ${MAX_URL_LENGTH} characters.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return refuse("invalid_url", "url must be an absolute https URL, such as https://example.com/webhooks.");
  }
  if (parsed.protocol !== "https:") return refuse("url_not_https", "url must use https.");
  if (parsed.username !== "" || parsed.password !== "") {
    return refuse("invalid_url", "url must not carry a user name or password.");
  }
  if (parsed.hash !== "") return refuse("invalid_url", "url must not carry a #fragment.");
  return parsed.href;
}

/** The deployment's check of a receiver (public addresses only); a refusal is an issue at `url` with its code. */
async function checkReceiver(ctx: WebhookContext, url: string, issues: Issue[]): Promise<void> {
  try {
    await ctx.checkUrl?.(url);
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code !== "string") throw error;
    issues.push({
      path: "url",
      code,
      message: `url cannot receive events: ${error instanceof Error ? error.message : code}.`,
    });
  }
}

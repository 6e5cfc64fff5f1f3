import { randomBytes } from "node:crypto";
import { CheckoutPaymentError, type CheckoutPayments, isSharedPaymentToken } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import { updateRecord } from "../records.ts";
import type { WorkspaceCredits } from "../workspaces/credits.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { creditAmount, objectBody, unknownFields } from "./credit-requests.ts";
import { type ProjectDocumentContext, requestProblems } from "./documents.ts";

/** A hosted top-up of a workspace's credits (spec 3: POST /credits/checkout-session), as stored. */
export interface TopUpSessionRecord {
  id: string;
  workspace_id: string;
  mode: Principal["mode"];
  amount_cents: number;
  status: "open" | "paying" | "completed" | "canceled";
  /** The idempotency key of the charge in flight or done: a retry after a crash repeats the same charge. */
  charge_key?: string;
  /** The payment's reference at the provider, once paid. */
  reference?: string;
  last_error?: { code: string; message: string };
  created_at: number;
  expires_at: number;
  updated_at: number;
}

/** What the API and the hosted page show of a top-up. */
export interface TopUpSessionView {
  object: "credit_checkout_session";
  id: string;
  mode: Principal["mode"];
  amount_cents: number;
  currency: "usd";
  status: "open" | "complete_in_progress" | "completed" | "expired" | "canceled";
  /** Relative to the deployment's base URL: the hosted page where a person pays. */
  url_path: string;
  /** True when no money moves (test mode, or a deployment with simulated card payments). */
  simulated: boolean;
  message: { code: string; content: string } | null;
  created_at: string;
  expires_at: string;
}

export interface TopUpContext extends ProjectDocumentContext {
  credits: WorkspaceCredits;
  /** Card payments for live top-ups; absent: live top-ups are refused. */
  livePayments?: CheckoutPayments;
  /** Card payments for test top-ups: never real money; absent: test top-ups are refused. */
  testPayments?: CheckoutPayments;
  /** How long a top-up page can be paid. */
  topUpTtlMs: number;
  /** Told after credits were added: the mode's automatic refill is armed again. */
  creditsChanged?: (workspaceId: string, mode: Principal["mode"]) => Promise<void>;
}

const sessionKey = (id: string) => `credit_top_ups:${id}`;
const SESSION_ID = /^ts_[0-9a-f]{32}$/;

/** A top-up of the caller's workspace and mode, paid by a person on its hosted page. */
export async function createTopUpSession(
  ctx: TopUpContext,
  principal: Principal,
  body: unknown,
): Promise<TopUpSessionView> {
  const fields = objectBody(body);
  const issues = unknownFields(fields, ["amount_cents"]);
  const amount = creditAmount(fields, "amount_cents", issues);
  if (issues.length > 0) throw requestProblems(issues);
  if (!paymentsFor(ctx, principal.mode)) {
    throw new CoreError(
      "payment_rail_unavailable",
      `This deployment takes no card payments for ${principal.mode} credits.`,
    );
  }
  const now = ctx.clock.now();
  const record: TopUpSessionRecord = {
    id: `ts_${randomBytes(16).toString("hex")}`,
    workspace_id: principal.workspace_id,
    mode: principal.mode,
    amount_cents: amount!,
    status: "open",
    created_at: now,
    expires_at: now + ctx.topUpTtlMs,
    updated_at: now,
  };
  await ctx.store.create(sessionKey(record.id), record);
  return topUpView(ctx, record);
}

/** A top-up by its id (the id is the capability to pay it); undefined when there is none. */
export async function getTopUpSession(ctx: TopUpContext, id: string): Promise<TopUpSessionView | undefined> {
  const record = SESSION_ID.test(id)
    ? (await ctx.store.get<TopUpSessionRecord>(sessionKey(id)))?.value
    : undefined;
  return record ? topUpView(ctx, record) : undefined;
}

/**
 * Pays a top-up with a shared payment token, at most once: the session is marked paying (with the charge's
 * idempotency key) before money moves, so a concurrent or repeated payment never charges twice, and the credits
 * are added under the session's own key, so they are added once. A refused card leaves the session open with a
 * message. Throws not_found, validation_failed for a token that is not one, checkout_expired or checkout_canceled.
 */
export async function payTopUpSession(
  ctx: TopUpContext,
  id: string,
  input: { token: unknown },
): Promise<TopUpSessionView> {
  const found = SESSION_ID.test(id)
    ? (await ctx.store.get<TopUpSessionRecord>(sessionKey(id)))?.value
    : undefined;
  if (!found) throw new CoreError("not_found", "No top-up has this id.");
  if (!isSharedPaymentToken(input.token)) {
    throw requestProblems([
      {
        path: "token",
        code: "invalid_payment_token",
        message: "The payment token must be a shared payment token (spt_...).",
      },
    ]);
  }
  if (found.status === "completed" || found.status === "paying") return finish(ctx, found, input.token);
  if (found.status === "canceled") throw new CoreError("checkout_canceled", "This top-up was canceled.");
  if (found.expires_at <= ctx.clock.now())
    throw new CoreError("checkout_expired", "This top-up page has expired.");
  const chargeKey = `${found.id}:${randomBytes(8).toString("hex")}`;
  const paying = await updateRecord<TopUpSessionRecord>(ctx.store, sessionKey(id), ctx.clock.now, (s) =>
    s.status === "open" ? { ...s, status: "paying", charge_key: chargeKey } : undefined,
  );
  return finish(ctx, paying, input.token);
}

/** Charges (again, under the same key) a paying session and adds its credits; answers the session as it ends. */
async function finish(
  ctx: TopUpContext,
  session: TopUpSessionRecord,
  token: string,
): Promise<TopUpSessionView> {
  if (session.status === "completed") return topUpView(ctx, session);
  const payments = paymentsFor(ctx, session.mode);
  if (!payments)
    throw new CoreError(
      "payment_rail_unavailable",
      "This deployment takes no card payments for these credits.",
    );
  let reference: string;
  try {
    reference = (
      await payments.charge({
        token,
        amount_cents: session.amount_cents,
        currency: "usd",
        description: `Mailpiece credits, ${session.mode} mode, ${session.amount_cents} cents`,
        idempotency_key: session.charge_key!,
        metadata: { workspace: session.workspace_id, top_up: session.id },
      })
    ).reference;
  } catch (error) {
    if (!CheckoutPaymentError.isInstance(error) || error.code === "provider_unavailable") throw error;
    if (error.code === "idempotency_conflict") {
      // Another payment of this page (another token) holds the charge: its outcome stands, not this one's.
      const current = await ctx.store.get<TopUpSessionRecord>(sessionKey(session.id));
      return topUpView(ctx, current?.value ?? session);
    }
    const refused = await updateRecord<TopUpSessionRecord>(
      ctx.store,
      sessionKey(session.id),
      ctx.clock.now,
      (s) => {
        if (s.status !== "paying" || s.charge_key !== session.charge_key) return undefined;
        const { charge_key: _key, ...rest } = s;
        return { ...rest, status: "open", last_error: { code: error.code, message: error.message } };
      },
    );
    return topUpView(ctx, refused);
  }
  await ctx.credits.fund(
    session.workspace_id,
    session.mode,
    session.amount_cents,
    `top_up:${session.id}`,
    session.id,
  );
  await ctx.creditsChanged?.(session.workspace_id, session.mode);
  const done = await updateRecord<TopUpSessionRecord>(
    ctx.store,
    sessionKey(session.id),
    ctx.clock.now,
    (s) => {
      if (s.status === "completed") return undefined;
      const { last_error: _error, ...rest } = s;
      return { ...rest, status: "completed", reference };
    },
  );
  return topUpView(ctx, done);
}

/** Test credits are bought with simulated payments only; live ones with the deployment's card payments. */
export function paymentsFor(
  ctx: Pick<TopUpContext, "livePayments" | "testPayments">,
  mode: Principal["mode"],
): CheckoutPayments | undefined {
  if (mode === "live") return ctx.livePayments;
  return ctx.testPayments?.simulated ? ctx.testPayments : undefined;
}

/**
 * What a hosted page shows of the last refused card while it is still open: the refusal's code (`requires_3ds` for
 * a card that needs 3-D Secure) and its message; null otherwise.
 */
export function refusalMessage(record: {
  status: string;
  last_error?: { code: string; message: string };
}): { code: string; content: string } | null {
  if (record.status !== "open" || !record.last_error) return null;
  const { code, message } = record.last_error;
  return { code: code === "requires_action" ? "requires_3ds" : code, content: message };
}

function topUpView(ctx: TopUpContext, record: TopUpSessionRecord): TopUpSessionView {
  const expired = record.status === "open" && record.expires_at <= ctx.clock.now();
  const payments = paymentsFor(ctx, record.mode);
  return {
    object: "credit_checkout_session",
    id: record.id,
    mode: record.mode,
    amount_cents: record.amount_cents,
    currency: "usd",
    status: expired ? "expired" : record.status === "paying" ? "complete_in_progress" : record.status,
    url_path: `/checkout/top-up/${record.id}`,
    simulated: payments?.simulated ?? true,
    message: refusalMessage(record),
    created_at: new Date(record.created_at).toISOString(),
    expires_at: new Date(record.expires_at).toISOString(),
  };
}

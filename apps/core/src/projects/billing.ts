import { randomBytes } from "node:crypto";
import type { Issue } from "@mailpiece/orders";
import type { JobQueue } from "@mailpiece/ports";
import { CheckoutPaymentError, isSharedPaymentToken, type SavedMethod } from "@mailpiece/ports";
import { CoreError } from "../errors.ts";
import type { QueueWork } from "../job-runner.ts";
import { dropJob, liftLegacyNotes } from "../job-runner.ts";
import { updateRecord } from "../records.ts";
import type { KeyMode } from "../workspaces/api-keys.ts";
import { creditBook } from "../workspaces/credits.ts";
import type { IssuedKey, Principal, WorkspaceRecord } from "../workspaces/workspaces.ts";
import { creditAmount, objectBody, unknownFields } from "./credit-requests.ts";
import { requestProblems } from "./documents.ts";
import { paymentsFor, refusalMessage, type TopUpContext } from "./top-ups.ts";

/** A card saved for a workspace's mode, as stored: the provider's references, never the card number. */
export interface PaymentMethodEntry {
  id: string;
  reference: string;
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  setup_id: string;
  created_at: number;
}

/** A refill in flight: charged (again, under the same key) and credited until it is done. */
interface PendingRefill {
  key: string;
  /** Who claimed the crossing: only the claimant starts the charge (others see the claim and leave it). */
  claim: string;
  amount_cents: number;
  payment_method_id: string;
  started_at: number;
  /** When the provider was last asked and could not answer: the next attempt waits a little. */
  last_attempt_at: number;
}

/** The automatic refill of one mode (spec 3: POST /credits/auto-refill). */
interface AutoRefillPolicy {
  enabled: boolean;
  threshold_cents: number;
  refill_amount_cents: number;
  /**
   * True while the balance is at or above the threshold: the next fall below it is a crossing and refills once.
   * Cleared when a crossing is claimed, set again when the balance is back at or above the threshold.
   */
  armed: boolean;
  crossings: number;
  pending?: PendingRefill;
  last_refill?: { amount_cents: number; reference: string; at: number };
  last_error?: { code: string; message: string; at: number };
}

/** The billing of one workspace and mode: its provider customer, saved cards (the newest is used) and refill policy. */
export interface BillingRecord {
  workspace_id: string;
  mode: KeyMode;
  customer?: string;
  methods: PaymentMethodEntry[];
  auto_refill?: AutoRefillPolicy;
  updated_at: number;
}

/** A hosted page where a person saves a card for a workspace's mode (spec 3: POST /credits/payment-methods/setup-session). */
export interface SetupSessionRecord {
  id: string;
  workspace_id: string;
  mode: KeyMode;
  status: "open" | "saving" | "completed";
  /** The idempotency key of the save in flight, and since when: a stale one is taken over after a crash. */
  save_key?: string;
  saving_since?: number;
  payment_method_id?: string;
  /** The prefix of the live key issued when this setup live-enabled the workspace (the key is shown once). */
  live_key_prefix?: string;
  last_error?: { code: string; message: string };
  created_at: number;
  expires_at: number;
  updated_at: number;
}

export interface PaymentMethodView {
  object: "payment_method";
  id: string;
  mode: KeyMode;
  type: "card";
  brand: string | null;
  last4: string | null;
  exp_month: number | null;
  exp_year: number | null;
  /** The method automatic refills charge: the newest saved. */
  default: boolean;
  created_at: string;
}

export interface SetupSessionView {
  object: "payment_method_setup_session";
  id: string;
  mode: KeyMode;
  status: "open" | "complete_in_progress" | "completed" | "expired";
  /** Relative to the deployment's base URL: the hosted page where a person saves a card. */
  url_path: string;
  simulated: boolean;
  /** For a live setup: whether the workspace is live-enabled by it (its live keys work once it completes). */
  enables_live: boolean;
  payment_method: PaymentMethodView | null;
  /** The prefix of the first live key, issued when this setup live-enabled the workspace. */
  live_api_key_prefix: string | null;
  message: { code: string; content: string } | null;
  created_at: string;
  expires_at: string;
}

export interface AutoRefillView {
  object: "auto_refill";
  mode: KeyMode;
  enabled: boolean;
  threshold_cents: number | null;
  refill_amount_cents: number | null;
  currency: "usd";
  /** `refilling` while a refill is charged; `payment_failed` when the last one was refused (the next crossing tries again). */
  status: "not_configured" | "disabled" | "active" | "refilling" | "payment_failed";
  payment_method_id: string | null;
  last_refill: { amount_cents: number; reference: string; created_at: string } | null;
  last_error: { code: string; message: string; created_at: string } | null;
}

export interface BillingContext extends TopUpContext {
  /** Where refills in flight are noted as work. */
  jobs: JobQueue;
  /** Loads a workspace (not_found when there is none). */
  workspace(id: string): Promise<WorkspaceRecord>;
  /** Live-enables a workspace; answers its first live key once. */
  enableLive(id: string): Promise<IssuedKey | undefined>;
  /** Refills that run after the request that started them; `close` waits for them. */
  background: Set<Promise<unknown>>;
  /** Reports a refill failure nobody waits for. */
  onBackgroundError?: (error: unknown) => void;
}

const billingKey = (workspaceId: string, mode: KeyMode) => `billing:${workspaceId}:${mode}`;
const setupKey = (id: string) => `payment_method_setups:${id}`;
/**
 * The job queue of automatic refills: a claimed refill is noted under its key before it charges, due when a charge
 * still running would have answered, and taken back when it ends. One that comes due was cut short by a crash or an
 * unreachable provider and is charged again under its key.
 */
export const AUTO_REFILL_QUEUE = "auto-refill";
/** Where refills were noted before they were jobs: each process lifts such notes onto the queue once. */
export const LEGACY_AUTO_REFILL_PREFIX = "work:auto_refill:";

interface RefillWork {
  workspace_id: string;
  mode: KeyMode;
  key: string;
  at: number;
}

function noteRefill(ctx: BillingContext, work: RefillWork) {
  return ctx.jobs.enqueue<RefillWork>({
    queue: AUTO_REFILL_QUEUE,
    key: work.key,
    payload: work,
    runAt: work.at + REFILL_RETRY_MS,
  });
}
const SETUP_ID = /^ps_[0-9a-f]{32}$/;
/** A save that has not answered for this long was cut short by a crash: the next attempt takes it over. */
const STALE_SAVE_MS = 60_000;
/** A refill whose provider did not answer is asked again after this long. */
const REFILL_RETRY_MS = 30_000;
/** Saved cards kept per mode: the newest ones. */
const MAX_METHODS = 10;

function blankBilling(workspaceId: string, mode: KeyMode, now: number): BillingRecord {
  return { workspace_id: workspaceId, mode, methods: [], updated_at: now };
}

async function readBilling(ctx: BillingContext, workspaceId: string, mode: KeyMode): Promise<BillingRecord> {
  const found = await ctx.store.get<BillingRecord>(billingKey(workspaceId, mode));
  return found?.value ?? blankBilling(workspaceId, mode, ctx.clock.now());
}

/** Changes a mode's billing with compare-and-set, making the record on first use. */
async function updateBilling(
  ctx: BillingContext,
  workspaceId: string,
  mode: KeyMode,
  change: (billing: BillingRecord) => BillingRecord | undefined,
): Promise<BillingRecord> {
  return updateRecord<BillingRecord>(ctx.store, billingKey(workspaceId, mode), ctx.clock.now, change, () =>
    blankBilling(workspaceId, mode, ctx.clock.now()),
  );
}

function methodView(billing: BillingRecord, entry: PaymentMethodEntry): PaymentMethodView {
  return {
    object: "payment_method",
    id: entry.id,
    mode: billing.mode,
    type: "card",
    brand: entry.brand,
    last4: entry.last4,
    exp_month: entry.exp_month,
    exp_year: entry.exp_year,
    default: billing.methods.at(-1)?.id === entry.id,
    created_at: new Date(entry.created_at).toISOString(),
  };
}

/** The cards saved for the caller's mode, newest first. */
export async function listPaymentMethods(
  ctx: BillingContext,
  principal: Principal,
): Promise<{ object: "list"; data: PaymentMethodView[]; has_more: false }> {
  const billing = await readBilling(ctx, principal.workspace_id, principal.mode);
  return {
    object: "list",
    data: billing.methods.map((m) => methodView(billing, m)).reverse(),
    has_more: false,
  };
}

function modeOf(body: Record<string, unknown>, issues: Issue[]): KeyMode | undefined {
  if (body.mode === undefined) return undefined;
  if (body.mode === "test" || body.mode === "live") return body.mode;
  issues.push({ path: "mode", code: "invalid_mode", message: 'mode must be "test" or "live".' });
  return undefined;
}

/**
 * A hosted page that saves a card for `mode` (default the key's). A test key may open a live setup: it moves no
 * money, and completing it live-enables the workspace. Throws validation_failed or payment_rail_unavailable.
 */
export async function createSetupSession(
  ctx: BillingContext,
  principal: Principal,
  rawBody: unknown,
): Promise<SetupSessionView> {
  const body = objectBody(rawBody);
  const issues = unknownFields(body, ["mode"]);
  const mode = modeOf(body, issues) ?? principal.mode;
  if (issues.length > 0) throw requestProblems(issues);
  if (!paymentsFor(ctx, mode)) {
    throw new CoreError("payment_rail_unavailable", `This deployment saves no cards for ${mode} credits.`);
  }
  const now = ctx.clock.now();
  const record: SetupSessionRecord = {
    id: `ps_${randomBytes(16).toString("hex")}`,
    workspace_id: principal.workspace_id,
    mode,
    status: "open",
    created_at: now,
    expires_at: now + ctx.topUpTtlMs,
    updated_at: now,
  };
  await ctx.store.create(setupKey(record.id), record);
  return setupView(ctx, record);
}

async function loadSetup(ctx: BillingContext, id: string): Promise<SetupSessionRecord | undefined> {
  return SETUP_ID.test(id) ? (await ctx.store.get<SetupSessionRecord>(setupKey(id)))?.value : undefined;
}

/** A setup page by its id (the id is the capability to complete it); undefined when there is none. */
export async function getSetupSession(
  ctx: BillingContext,
  id: string,
): Promise<SetupSessionView | undefined> {
  const record = await loadSetup(ctx, id);
  return record ? setupView(ctx, record) : undefined;
}

/** What completing a setup answers: the session, and the workspace's first live key when this setup issued it (once). */
export interface SetupOutcome {
  session: SetupSessionView;
  live_api_key?: IssuedKey;
}

/**
 * Saves the card behind a shared payment token for the setup's workspace and mode, once: the session is marked
 * saving before the provider is asked, so concurrent submissions save one card. The card becomes the mode's
 * default; a live setup live-enables the workspace, and a workspace without a live key gets its first one,
 * answered here once. A refused card leaves the session open with the reason. Throws not_found, validation_failed,
 * checkout_expired or payment_rail_unavailable; an unreachable provider leaves the session open.
 */
export async function completeSetupSession(
  ctx: BillingContext,
  id: string,
  input: { token: unknown },
): Promise<SetupOutcome> {
  const found = await loadSetup(ctx, id);
  if (!found) throw new CoreError("not_found", "No setup session has this id.");
  if (!isSharedPaymentToken(input.token)) {
    throw requestProblems([
      {
        path: "token",
        code: "invalid_payment_token",
        message: "The payment token must be a shared payment token (spt_...).",
      },
    ]);
  }
  if (found.status === "completed") return { session: await setupView(ctx, found) };
  const now = ctx.clock.now();
  if (found.expires_at <= now) throw new CoreError("checkout_expired", "This setup page has expired.");
  const payments = paymentsFor(ctx, found.mode);
  if (!payments) {
    throw new CoreError("payment_rail_unavailable", "This deployment saves no cards for these credits.");
  }
  const saveKey = `${found.id}:${randomBytes(8).toString("hex")}`;
  const claimed = await updateRecord<SetupSessionRecord>(ctx.store, setupKey(id), ctx.clock.now, (s) => {
    const stale = s.status === "saving" && (s.saving_since ?? 0) + STALE_SAVE_MS <= now;
    return s.status === "open" || stale
      ? { ...s, status: "saving", save_key: saveKey, saving_since: now }
      : undefined;
  });
  // Another submission is saving (or saved) this setup: its outcome stands.
  if (claimed.save_key !== saveKey) return { session: await setupView(ctx, claimed) };

  const workspace = await ctx.workspace(found.workspace_id);
  const billing = await readBilling(ctx, found.workspace_id, found.mode);
  let saved: SavedMethod;
  try {
    saved = await payments.saveMethod({
      token: input.token,
      ...(billing.customer ? { customer: billing.customer } : {}),
      description: `Mailpiece workspace ${workspace.name} (${workspace.id}), ${found.mode} credits`,
      idempotency_key: saveKey,
      metadata: { workspace: workspace.id, mode: found.mode, setup: found.id },
    });
  } catch (error) {
    const refused = CheckoutPaymentError.isInstance(error) && error.code !== "provider_unavailable";
    const reopened = await updateRecord<SetupSessionRecord>(ctx.store, setupKey(id), ctx.clock.now, (s) => {
      if (s.save_key !== saveKey || s.status !== "saving") return undefined;
      const { save_key: _key, saving_since: _since, ...rest } = s;
      return {
        ...rest,
        status: "open",
        ...(refused ? { last_error: { code: error.code, message: error.message } } : {}),
      };
    });
    if (!refused) throw error;
    return { session: await setupView(ctx, reopened) };
  }
  const methodId = `pm_${randomBytes(12).toString("hex")}`;
  await updateBilling(ctx, found.workspace_id, found.mode, (b) => {
    if (b.methods.some((m) => m.setup_id === found.id)) return undefined;
    const entry: PaymentMethodEntry = {
      id: methodId,
      reference: saved.reference,
      brand: saved.brand,
      last4: saved.last4,
      exp_month: saved.exp_month,
      exp_year: saved.exp_year,
      setup_id: found.id,
      created_at: ctx.clock.now(),
    };
    return {
      ...b,
      customer: b.customer ?? saved.customer,
      methods: [...b.methods.filter((m) => m.reference !== saved.reference), entry].slice(-MAX_METHODS),
    };
  });
  const liveKey = found.mode === "live" ? await ctx.enableLive(found.workspace_id) : undefined;
  const done = await updateRecord<SetupSessionRecord>(ctx.store, setupKey(id), ctx.clock.now, (s) => {
    if (s.status === "completed") return undefined;
    const { save_key: _key, saving_since: _since, last_error: _error, ...rest } = s;
    return {
      ...rest,
      status: "completed",
      payment_method_id: methodId,
      ...(liveKey ? { live_key_prefix: liveKey.api_key_prefix } : {}),
    };
  });
  // A card saved below the threshold while a refill waits for one: the crossing refills now.
  await startAutoRefill(ctx, found.workspace_id, found.mode);
  return { session: await setupView(ctx, done), ...(liveKey ? { live_api_key: liveKey } : {}) };
}

async function setupView(ctx: BillingContext, record: SetupSessionRecord): Promise<SetupSessionView> {
  const expired = record.status === "open" && record.expires_at <= ctx.clock.now();
  const billing =
    record.payment_method_id === undefined
      ? undefined
      : await readBilling(ctx, record.workspace_id, record.mode);
  const method = billing?.methods.find((m) => m.id === record.payment_method_id);
  return {
    object: "payment_method_setup_session",
    id: record.id,
    mode: record.mode,
    status: expired ? "expired" : record.status === "saving" ? "complete_in_progress" : record.status,
    url_path: `/checkout/setup/${record.id}`,
    simulated: paymentsFor(ctx, record.mode)?.simulated ?? true,
    enables_live: record.mode === "live",
    payment_method: billing && method ? methodView(billing, method) : null,
    live_api_key_prefix: record.live_key_prefix ?? null,
    message: refusalMessage(record),
    created_at: new Date(record.created_at).toISOString(),
    expires_at: new Date(record.expires_at).toISOString(),
  };
}

function refillView(mode: KeyMode, billing: BillingRecord): AutoRefillView {
  const policy = billing.auto_refill;
  const at = (ms: number) => new Date(ms).toISOString();
  const status: AutoRefillView["status"] = !policy
    ? "not_configured"
    : !policy.enabled
      ? "disabled"
      : policy.pending
        ? "refilling"
        : policy.last_error
          ? "payment_failed"
          : "active";
  return {
    object: "auto_refill",
    mode,
    enabled: policy?.enabled ?? false,
    threshold_cents: policy?.threshold_cents ?? null,
    refill_amount_cents: policy?.refill_amount_cents ?? null,
    currency: "usd",
    status,
    payment_method_id: billing.methods.at(-1)?.id ?? null,
    last_refill: policy?.last_refill
      ? {
          amount_cents: policy.last_refill.amount_cents,
          reference: policy.last_refill.reference,
          created_at: at(policy.last_refill.at),
        }
      : null,
    last_error: policy?.last_error
      ? {
          code: policy.last_error.code,
          message: policy.last_error.message,
          created_at: at(policy.last_error.at),
        }
      : null,
  };
}

/** The automatic refill of the caller's mode. */
export async function getAutoRefill(ctx: BillingContext, principal: Principal): Promise<AutoRefillView> {
  return refillView(principal.mode, await readBilling(ctx, principal.workspace_id, principal.mode));
}

/** The refill policies of both modes that have one, for the balance. */
export async function autoRefillPolicies(
  ctx: BillingContext,
  workspaceId: string,
): Promise<AutoRefillView[]> {
  const modes: KeyMode[] = ["test", "live"];
  const billings = await Promise.all(modes.map((mode) => readBilling(ctx, workspaceId, mode)));
  return billings.filter((b) => b.auto_refill).map((b) => refillView(b.mode, b));
}

/**
 * Sets the automatic refill of `mode` (default the key's): when the available credits fall below threshold_cents,
 * the mode's default card is charged refill_amount_cents off-session, once per crossing. A test key sets test
 * refills only. Enabling needs a saved card (payment_method_required). A balance already below the threshold
 * refills at once. Throws validation_failed, forbidden or payment_method_required.
 */
export async function setAutoRefill(
  ctx: BillingContext,
  principal: Principal,
  rawBody: unknown,
): Promise<AutoRefillView> {
  const body = objectBody(rawBody);
  const issues = unknownFields(body, ["mode", "enabled", "threshold_cents", "refill_amount_cents"]);
  const mode = modeOf(body, issues) ?? principal.mode;
  if (body.enabled !== undefined && typeof body.enabled !== "boolean") {
    issues.push({ path: "enabled", code: "invalid_type", message: "enabled must be true or false." });
  }
  const threshold = creditAmount(body, "threshold_cents", issues);
  const amount = creditAmount(body, "refill_amount_cents", issues);
  if (issues.length > 0) throw requestProblems(issues);
  if (mode === "live" && principal.mode === "test") {
    throw new CoreError("forbidden", "A test key cannot set how live credits are refilled; use a live key.");
  }
  const enabled = body.enabled !== false;
  const current = await readBilling(ctx, principal.workspace_id, mode);
  if (enabled && current.methods.length === 0) {
    throw new CoreError(
      "payment_method_required",
      `Save a card for ${mode} credits first: POST /credits/payment-methods/setup-session.`,
    );
  }
  const saved = await updateBilling(ctx, principal.workspace_id, mode, (b) => {
    const before = b.auto_refill;
    const policy: AutoRefillPolicy = {
      enabled,
      threshold_cents: threshold!,
      refill_amount_cents: amount!,
      armed: true,
      crossings: before?.crossings ?? 0,
      ...(before?.pending ? { pending: before.pending } : {}),
      ...(before?.last_refill ? { last_refill: before.last_refill } : {}),
    };
    return { ...b, auto_refill: policy };
  });
  if (enabled) await startAutoRefill(ctx, principal.workspace_id, mode);
  return refillView(
    mode,
    (await ctx.store.get<BillingRecord>(billingKey(principal.workspace_id, mode)))?.value ?? saved,
  );
}

/**
 * Checks a mode's balance against its refill policy after credits were spent: at or above the threshold the
 * policy is armed again; below it, an armed policy claims the crossing (compare-and-set, so one request or process
 * claims it) and the refill is charged after the caller's request, tracked in `background`. A work item names the
 * refill until it is done, so a crash mid-refill is finished by the auto-refill queue (`autoRefillWork`).
 */
export async function startAutoRefill(
  ctx: BillingContext,
  workspaceId: string,
  mode: KeyMode,
): Promise<void> {
  const billing = (await ctx.store.get<BillingRecord>(billingKey(workspaceId, mode)))?.value;
  const policy = billing?.auto_refill;
  if (!billing || !policy?.enabled || policy.pending) return;
  const balance = await ctx.credits.ledger.balance(creditBook(workspaceId, mode));
  const below = balance.available_cents < policy.threshold_cents;
  if (!below) {
    if (!policy.armed) {
      await updateBilling(ctx, workspaceId, mode, (b) =>
        b.auto_refill && !b.auto_refill.armed
          ? { ...b, auto_refill: { ...b.auto_refill, armed: true } }
          : undefined,
      );
    }
    return;
  }
  const method = billing.methods.at(-1);
  if (!policy.armed || !method) return;
  const now = ctx.clock.now();
  const key = `auto_refill:${workspaceId}:${mode}:${policy.crossings + 1}`;
  const claim = randomBytes(8).toString("hex");
  const claimed = await updateBilling(ctx, workspaceId, mode, (b) => {
    const p = b.auto_refill;
    if (!p?.enabled || !p.armed || p.pending || p.crossings !== policy.crossings) return undefined;
    const pending: PendingRefill = {
      key,
      claim,
      amount_cents: p.refill_amount_cents,
      payment_method_id: b.methods.at(-1)!.id,
      started_at: now,
      last_attempt_at: now,
    };
    return { ...b, auto_refill: { ...p, armed: false, crossings: p.crossings + 1, pending } };
  });
  if (claimed.auto_refill?.pending?.claim !== claim) return;
  await noteRefill(ctx, { workspace_id: workspaceId, mode, key, at: now });
  const run = finishRefill(ctx, workspaceId, mode, key).catch((error: unknown) =>
    ctx.onBackgroundError?.(error),
  );
  ctx.background.add(run);
  void run.finally(() => ctx.background.delete(run));
}

/**
 * Charges a claimed refill under its key (a repeat answers the charge that happened) and adds the credits under the
 * same key (added once). A refused card ends the refill with the reason; the next crossing tries again. An
 * unreachable provider leaves it pending for the auto-refill queue.
 */
async function finishRefill(
  ctx: BillingContext,
  workspaceId: string,
  mode: KeyMode,
  key: string,
): Promise<void> {
  const billing = await readBilling(ctx, workspaceId, mode);
  const pending = billing.auto_refill?.pending;
  if (pending?.key !== key) {
    await dropJob(ctx.jobs, AUTO_REFILL_QUEUE, key);
    return;
  }
  const payments = paymentsFor(ctx, mode);
  const method = billing.methods.find((m) => m.id === pending.payment_method_id);
  const end = (change: (policy: AutoRefillPolicy) => AutoRefillPolicy) =>
    updateBilling(ctx, workspaceId, mode, (b) => {
      if (b.auto_refill?.pending?.key !== key) return undefined;
      const { pending: _pending, ...policy } = b.auto_refill;
      return { ...b, auto_refill: change(policy) };
    });
  if (!payments || !method || !billing.customer) {
    await end((p) => ({
      ...p,
      last_error: {
        code: "payment_method_unavailable",
        message: "The saved card can no longer be charged.",
        at: ctx.clock.now(),
      },
    }));
    await dropJob(ctx.jobs, AUTO_REFILL_QUEUE, key);
    return;
  }
  let reference: string;
  try {
    reference = (
      await payments.chargeSaved({
        customer: billing.customer,
        payment_method: method.reference,
        amount_cents: pending.amount_cents,
        currency: "usd",
        description: `Mailpiece credits, automatic refill, ${mode} mode, ${pending.amount_cents} cents`,
        idempotency_key: key,
        metadata: { workspace: workspaceId, refill: key },
      })
    ).reference;
  } catch (error) {
    if (!CheckoutPaymentError.isInstance(error) || error.code === "provider_unavailable") {
      await updateBilling(ctx, workspaceId, mode, (b) =>
        b.auto_refill?.pending?.key === key
          ? {
              ...b,
              auto_refill: {
                ...b.auto_refill,
                pending: { ...b.auto_refill.pending, last_attempt_at: ctx.clock.now() },
              },
            }
          : undefined,
      );
      throw error;
    }
    await end((p) => ({
      ...p,
      last_error: { code: error.code, message: error.message, at: ctx.clock.now() },
    }));
    await dropJob(ctx.jobs, AUTO_REFILL_QUEUE, key);
    return;
  }
  await ctx.credits.fund(workspaceId, mode, pending.amount_cents, key, reference);
  const balance = await ctx.credits.ledger.balance(creditBook(workspaceId, mode));
  await end((p) => {
    const { last_error: _error, ...rest } = p;
    return {
      ...rest,
      armed: balance.available_cents >= p.threshold_cents,
      last_refill: { amount_cents: pending.amount_cents, reference, at: ctx.clock.now() },
    };
  });
  await dropJob(ctx.jobs, AUTO_REFILL_QUEUE, key);
}

/**
 * The automatic refills queue's work: finishes a refill cut short by a crash or an unreachable provider, charging
 * again under its key (a repeat answers the charge that happened). A provider still unreachable is asked again
 * after REFILL_RETRY_MS.
 */
export function autoRefillWork(ctx: BillingContext): QueueWork<RefillWork> {
  return {
    queue: AUTO_REFILL_QUEUE,
    async handle(work) {
      try {
        await finishRefill(ctx, work.workspace_id, work.mode, work.key);
        return "done";
      } catch (error) {
        ctx.onBackgroundError?.(error);
        return { again: ctx.clock.now() + REFILL_RETRY_MS };
      }
    },
  };
}

/** Lifts refills noted under the legacy prefix onto the queue (due as they were), then removes each note. */
export function liftLegacyRefills(ctx: BillingContext): Promise<number> {
  return liftLegacyNotes<RefillWork>(ctx.store, LEGACY_AUTO_REFILL_PREFIX, (work) => noteRefill(ctx, work));
}

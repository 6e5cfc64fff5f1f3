import { createHash, randomBytes } from "node:crypto";
import type { CheckoutBuyer, CheckoutView, MailpieceCore } from "@mailpiece/core";
import { CoreError, updateRecord } from "@mailpiece/core";
import { canonicalJson, claimRequest, fingerprintJson } from "@mailpiece/idempotency";
import { jsonPath, RPC_UNAVAILABLE, type Severity, UcpError, type UcpErrorDetail } from "./errors.ts";
import { MAILPIECE_ITEM_ID, MAILPIECE_MEMBER, SPT_HANDLER_ID } from "./protocol.ts";
import { MAILPIECE_FIELDS } from "./schemas.ts";

/** The buyer as UCP names one. */
export interface UcpBuyer {
  email?: string;
  first_name?: string;
  last_name?: string;
  phone_number?: string;
}

/** A payment instrument as shown back: never its token. */
export interface ShownInstrument {
  id: string;
  handler_id: string;
  type: string;
  credential?: { type: string };
}

/**
 * One UCP checkout, as stored under `ucp_checkouts:<id>`. It points at the hosted checkout session of its current
 * draft: an update that changes the mail order makes a new draft and cancels the old session, so the id stays while
 * the draft behind it changes.
 */
export interface UcpCheckoutRecord {
  id: string;
  /** Bumped by every change of the draft behind it; the compare-and-set of concurrent updates. */
  revision: number;
  session_id: string;
  order_id: string;
  /** SHA-256 of the mail order member's canonical JSON. */
  member_sha256: string;
  /** The line item's id, as the platform named it or `li_1`. */
  line_item_id: string;
  buyer?: UcpBuyer;
  instrument?: ShownInstrument;
  created_at: number;
  updated_at: number;
}

/** A message of the checkout object (UCP). */
export interface UcpMessage {
  type: "error" | "warning" | "info";
  code: string;
  content: string;
  severity?: Severity;
  path?: string;
}

/** What a call answers: the checkout record, its session as the core shows it, and messages for this answer. */
export interface CheckoutState {
  record: UcpCheckoutRecord;
  view: CheckoutView;
  messages: UcpMessage[];
}

const checkoutKey = (id: string) => `ucp_checkouts:${id}`;
const completionKey = (idempotencyKey: string) => `ucp_completions:${idempotencyKey.toLowerCase()}`;
const CHECKOUT_ID = /^chk_[0-9a-f]{32}$/;
/** Fields that are not taken through UCP, with what to use instead. */
const NOT_TAKEN: Record<string, string> = {
  letter: "letter text",
  format: "letter text",
  form: "forms",
  bulk: "bulk campaigns",
  sender_address_manual: "manual addresses",
  recipient_address_manual: "manual addresses",
};
const MEMBER_ROOT = `$[${JSON.stringify(MAILPIECE_MEMBER)}]`;

/** The UCP checkout use cases over the core's drafts and checkout sessions. */
export function ucpCheckouts(core: MailpieceCore) {
  const store = core.store;

  async function load(id: unknown): Promise<UcpCheckoutRecord> {
    const record =
      typeof id === "string" && CHECKOUT_ID.test(id)
        ? (await store.get<UcpCheckoutRecord>(checkoutKey(id)))?.value
        : undefined;
    if (!record) {
      throw UcpError.one("not_found", "No checkout has this id.", {
        severity: "unrecoverable",
        path: "$.id",
      });
    }
    return record;
  }

  async function session(record: UcpCheckoutRecord): Promise<CheckoutView> {
    const view = await core.getCheckout(record.session_id);
    if (!view) throw new CoreError("internal_error", `checkout ${record.id} lost its session`);
    return view;
  }

  /** A draft of the mail order for this checkout; its request_id follows from the checkout and the member. */
  async function draft(
    checkoutId: string,
    member: Record<string, unknown>,
    memberSha: string,
    clientKey: string,
  ) {
    const body = { ...member, request_id: requestIdFor(checkoutId, memberSha) };
    try {
      return await core.createDraft({ body, raw: canonicalJson(body), clientKey, collapse: false });
    } catch (error) {
      throw coreRefusal(error, MEMBER_ROOT);
    }
  }

  async function claim(op: string, idempotencyKey: string, fingerprint: string, checkoutId: string) {
    const outcome = await claimRequest(store, {
      request_id: `ucp:${op}:${idempotencyKey.toLowerCase()}`,
      fingerprint,
      order_id: checkoutId,
      now: core.clock.now(),
    });
    if (outcome.kind === "conflict") {
      throw UcpError.one(
        "idempotency_conflict",
        `This idempotency_key was used with other arguments. Use a new key for a new ${op} request.`,
        { path: "$.idempotency_key" },
      );
    }
    return outcome;
  }

  return {
    async create(args: Record<string, unknown>, clientKey: string): Promise<CheckoutState> {
      const lineItemId = checkLineItems(args.line_items, true)!;
      checkCurrency(args.currency);
      const member = checkMember(args[MAILPIECE_MEMBER]);
      const memberSha = fingerprintJson(member);
      let id = `chk_${randomBytes(16).toString("hex")}`;
      const key = typeof args.idempotency_key === "string" ? args.idempotency_key : undefined;
      if (key) {
        const { idempotency_key: _key, ...rest } = args;
        const outcome = await claim("create", key, fingerprintJson(rest), id);
        id = outcome.claim.order_id;
        const known = (await store.get<UcpCheckoutRecord>(checkoutKey(id)))?.value;
        if (known) return { record: known, view: await session(known), messages: [] };
      }
      const made = await draft(id, member, memberSha, clientKey);
      const now = core.clock.now();
      const record: UcpCheckoutRecord = {
        id,
        revision: 1,
        session_id: made.checkout_session.id,
        order_id: made.order_id,
        member_sha256: memberSha,
        line_item_id: lineItemId,
        ...(args.buyer ? { buyer: args.buyer as UcpBuyer } : {}),
        created_at: now,
        updated_at: now,
      };
      const stored = (await store.create(checkoutKey(id), record)).record.value;
      return { record: stored, view: await session(stored), messages: warnings(made.warnings) };
    },

    async get(id: unknown): Promise<CheckoutState> {
      const record = await load(id);
      return { record, view: await session(record), messages: [] };
    },

    async update(args: Record<string, unknown>, clientKey: string): Promise<CheckoutState> {
      const lineItemId = checkLineItems(args.line_items, false);
      checkCurrency(args.currency);
      const member = args[MAILPIECE_MEMBER] === undefined ? undefined : checkMember(args[MAILPIECE_MEMBER]);
      for (let attempt = 0; ; attempt++) {
        const record = await load(args.id);
        const view = await session(record);
        if (view.status === "completed" || view.status === "complete_in_progress") {
          return { record, view, messages: [notModifiable(view.status)] };
        }
        if (view.status !== "open") throw closed(view.status);
        const memberSha = member ? fingerprintJson(member) : record.member_sha256;
        const buyer = args.buyer === undefined ? record.buyer : (args.buyer as UcpBuyer);
        const same = (r: UcpCheckoutRecord) => r.revision === record.revision;
        if (!member || memberSha === record.member_sha256) {
          const updated = await updateRecord<UcpCheckoutRecord>(
            store,
            checkoutKey(record.id),
            core.clock.now,
            (r) =>
              same(r) ? withBuyer({ ...r, line_item_id: lineItemId ?? r.line_item_id }, buyer) : undefined,
          );
          if (!same(updated) && attempt < 3) continue;
          return { record: updated, view: await session(updated), messages: [] };
        }
        // A changed mail order: a new draft (validated and quoted again), then the old session is canceled.
        const made = await draft(record.id, member, memberSha, clientKey);
        const updated = await updateRecord<UcpCheckoutRecord>(
          store,
          checkoutKey(record.id),
          core.clock.now,
          (r) =>
            same(r)
              ? withBuyer(
                  {
                    ...r,
                    revision: r.revision + 1,
                    session_id: made.checkout_session.id,
                    order_id: made.order_id,
                    member_sha256: memberSha,
                    line_item_id: lineItemId ?? r.line_item_id,
                  },
                  buyer,
                )
              : undefined,
        );
        if (updated.session_id !== made.checkout_session.id) {
          // Another update won: this draft is not the checkout's.
          await core.cancelCheckout(made.checkout_session.id).catch(() => undefined);
          if (attempt < 3) continue;
          return { record: updated, view: await session(updated), messages: [] };
        }
        try {
          await core.cancelCheckout(record.session_id);
        } catch (error) {
          if (!(CoreError.isInstance(error) && error.code === "checkout_completed")) throw error;
          // The old session was paid meanwhile: the checkout is completed as it was, and stays so.
          const reverted = await updateRecord<UcpCheckoutRecord>(
            store,
            checkoutKey(record.id),
            core.clock.now,
            (r) =>
              r.session_id === made.checkout_session.id
                ? {
                    ...r,
                    revision: r.revision + 1,
                    session_id: record.session_id,
                    order_id: record.order_id,
                    member_sha256: record.member_sha256,
                  }
                : undefined,
          );
          await core.cancelCheckout(made.checkout_session.id).catch(() => undefined);
          const now = await session(reverted);
          return { record: reverted, view: now, messages: [notModifiable(now.status)] };
        }
        return { record: updated, view: await session(updated), messages: warnings(made.warnings) };
      }
    },

    async complete(args: Record<string, unknown>): Promise<CheckoutState> {
      const key = args.idempotency_key as string;
      const { idempotency_key: _key, ...rest } = args;
      const claimed = await claim("complete", key, fingerprintJson(rest), String(args.id));
      const record = await load(args.id);
      if (claimed.claim.order_id !== record.id) throw keyOfAnotherCheckout();
      if (claimed.kind === "replay") {
        const earlier = (await store.get<{ messages: UcpMessage[] }>(completionKey(key)))?.value;
        if (earlier) return { record, view: await session(record), messages: earlier.messages };
      }
      const { instrument, token } = pickInstrument(args);
      const buyer = { ...record.buyer, ...(args.buyer as UcpBuyer | undefined) };
      if (!buyer.first_name || !buyer.email) {
        throw UcpError.one(
          "missing_buyer",
          "The buyer's first_name and email are needed to complete: give them with update_checkout (the receipt goes to the email).",
          { path: buyer.first_name ? "$.buyer.email" : "$.buyer.first_name" },
        );
      }
      const paying: CheckoutBuyer = {
        first_name: buyer.first_name,
        ...(buyer.last_name ? { last_name: buyer.last_name } : {}),
        email: buyer.email,
      };
      let view: CheckoutView;
      try {
        view = await core.completeCheckout({
          checkout_session_id: record.session_id,
          buyer: paying,
          payment_data: { token },
        });
      } catch (error) {
        throw coreRefusal(error, "$", completionPath);
      }
      const messages = paymentMessages(view);
      await store.create(completionKey(key), { messages, at: core.clock.now() });
      const updated = await updateRecord<UcpCheckoutRecord>(
        store,
        checkoutKey(record.id),
        core.clock.now,
        (r) => withBuyer({ ...r, instrument }, buyer),
      );
      return { record: updated, view, messages };
    },

    async cancel(args: Record<string, unknown>): Promise<CheckoutState> {
      const key = args.idempotency_key as string;
      const { idempotency_key: _key, ...rest } = args;
      const claimed = await claim("cancel", key, fingerprintJson(rest), String(args.id));
      const record = await load(args.id);
      if (claimed.claim.order_id !== record.id) throw keyOfAnotherCheckout();
      try {
        return { record, view: await core.cancelCheckout(record.session_id), messages: [] };
      } catch (error) {
        throw coreRefusal(error, "$");
      }
    },
  };
}

export type UcpCheckouts = ReturnType<typeof ucpCheckouts>;

/** A UUID that names one draft of one checkout: the same checkout and mail order give the same request_id. */
function requestIdFor(checkoutId: string, memberSha: string): string {
  const hex = createHash("sha256").update(`${checkoutId}:${memberSha}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function withBuyer(record: UcpCheckoutRecord, buyer: UcpBuyer | undefined): UcpCheckoutRecord {
  if (buyer === undefined) return record;
  return { ...record, buyer };
}

function keyOfAnotherCheckout(): UcpError {
  return UcpError.one("idempotency_conflict", "This idempotency_key was used for another checkout.", {
    path: "$.idempotency_key",
  });
}

function notModifiable(status: CheckoutView["status"]): UcpMessage {
  return {
    type: "error",
    code: "checkout_not_modifiable",
    content:
      status === "completed"
        ? "The checkout is completed and was not changed."
        : "The payment of this checkout is in progress; it was not changed.",
    severity: "recoverable",
  };
}

function closed(status: CheckoutView["status"]): UcpError {
  return status === "expired"
    ? UcpError.one("checkout_expired", "This checkout has expired. Create a new checkout.", {
        severity: "unrecoverable",
      })
    : UcpError.one("checkout_canceled", "This checkout was canceled. Create a new checkout.", {
        severity: "unrecoverable",
      });
}

/** The one line item: the mail order; returns the id to show it under. */
function checkLineItems(value: unknown, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  const items = Array.isArray(value) ? value : [];
  const errors: UcpErrorDetail[] = [];
  if (items.length !== 1) {
    errors.push({
      code: "invalid_line_items",
      message: `A checkout mails one piece: give exactly one line item, {item: {id: "${MAILPIECE_ITEM_ID}"}, quantity: 1}.`,
      severity: "recoverable",
      path: "$.line_items",
    });
  } else {
    const item = items[0] as { id?: unknown; item?: { id?: unknown }; quantity?: unknown };
    if (item.item?.id !== MAILPIECE_ITEM_ID) {
      errors.push({
        code: "item_unavailable",
        message: `The only item is "${MAILPIECE_ITEM_ID}": the piece that ${MAILPIECE_MEMBER} describes.`,
        severity: "recoverable",
        path: "$.line_items[0].item.id",
      });
    }
    if (item.quantity !== 1) {
      errors.push({
        code: "invalid_quantity",
        message: "The quantity is 1: one checkout mails one piece.",
        severity: "recoverable",
        path: "$.line_items[0].quantity",
      });
    }
    if (errors.length === 0) return typeof item.id === "string" && item.id !== "" ? item.id : "li_1";
  }
  throw new UcpError(errors);
}

function checkCurrency(value: unknown): void {
  if (value === undefined || (typeof value === "string" && value.toUpperCase() === "USD")) return;
  throw UcpError.one("currency_unsupported", "Prices are in US dollars: the currency is USD.", {
    path: "$.currency",
  });
}

/** The mail order member: only PDF orders with Address-type parties, and only the fields of one. */
function checkMember(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw UcpError.one(
      "missing_mailpiece",
      `${MAILPIECE_MEMBER} is required: the PDF, the sender, the recipient and the mail options.`,
      {
        path: MEMBER_ROOT,
      },
    );
  }
  const member = value as Record<string, unknown>;
  const errors: UcpErrorDetail[] = [];
  for (const [field, what] of Object.entries(NOT_TAKEN)) {
    if (member[field] !== undefined) {
      errors.push({
        code: "unsupported_mailpiece",
        message: `UCP checkout mails PDFs to address-search addresses only; ${what} are not taken here (${field}). Use the svc.create_*_order_draft tools at /mcp for them.`,
        severity: "recoverable",
        path: `${MEMBER_ROOT}.${field}`,
      });
    }
  }
  for (const party of ["sender", "recipient"] as const) {
    const type = member[`${party}_address_type`];
    if (type !== undefined && type !== "Address") {
      errors.push({
        code: "unsupported_mailpiece",
        message: `UCP checkout takes Address-type parties only: ${party}_address_id and ${party}_address_text from svc.search_addresses, not manual addresses.`,
        severity: "recoverable",
        path: `${MEMBER_ROOT}.${party}_address_type`,
      });
    }
  }
  const known = new Set<string>(MAILPIECE_FIELDS);
  for (const field of Object.keys(member)) {
    if (!known.has(field) && !(field in NOT_TAKEN)) {
      errors.push({
        code: "unknown_field",
        message: `${field} is not a field of ${MAILPIECE_MEMBER}.`,
        severity: "recoverable",
        path: `${MEMBER_ROOT}.${field}`,
      });
    }
  }
  if (member.pdf === undefined) {
    errors.push({
      code: "required",
      message:
        "pdf is required: {upload_token} from svc.create_pdf_upload, or a data:application/pdf;base64 URL.",
      severity: "recoverable",
      path: `${MEMBER_ROOT}.pdf`,
    });
  }
  if (errors.length > 0) throw new UcpError(errors);
  return member;
}

/** The shared payment token of the selected instrument, and the instrument as it may be shown back. */
function pickInstrument(args: Record<string, unknown>): { instrument: ShownInstrument; token: string } {
  const payment = args.payment as
    | { instruments?: Record<string, unknown>[]; selected_instrument_id?: string }
    | undefined;
  const instruments = args.payment_data
    ? [args.payment_data as Record<string, unknown>]
    : (payment?.instruments ?? []);
  const index =
    instruments.length === 1
      ? 0
      : instruments.findIndex((i) => i.selected === true || i.id === payment?.selected_instrument_id);
  const base = args.payment_data ? "$.payment_data" : `$.payment.instruments[${Math.max(index, 0)}]`;
  const chosen = instruments[index];
  if (!chosen) {
    throw UcpError.one(
      "missing_payment",
      `complete_checkout needs one payment instrument of the ${SPT_HANDLER_ID} handler (payment.instruments, the selected one when there are several) whose credential carries a shared payment token.`,
      { path: "$.payment.instruments" },
    );
  }
  const credential = chosen.credential as { type?: unknown; token?: unknown } | undefined;
  if (chosen.handler_id !== SPT_HANDLER_ID) {
    throw UcpError.one(
      "payment_handler_unsupported",
      `The instrument's handler_id must be "${SPT_HANDLER_ID}".`,
      {
        path: `${base}.handler_id`,
      },
    );
  }
  if (typeof credential?.token !== "string") {
    throw UcpError.one(
      "missing_payment",
      "The instrument's credential.token must be a shared payment token (spt_...).",
      {
        path: `${base}.credential.token`,
      },
    );
  }
  return {
    token: credential.token,
    instrument: {
      id: String(chosen.id),
      handler_id: SPT_HANDLER_ID,
      type: String(chosen.type),
      ...(typeof credential.type === "string" ? { credential: { type: credential.type } } : {}),
    },
  };
}

/** Where a completion's core issue is in the UCP call: the buyer's fields, or the instrument's token. */
function completionPath(path: string): string {
  if (path.startsWith("payment_data")) return "$.payment.instruments[0].credential.token";
  return jsonPath(path);
}

/** A refused payment, as messages of the checkout (the session stays open and payable). */
function paymentMessages(view: CheckoutView): UcpMessage[] {
  if (view.status !== "open") return [];
  return view.messages
    .filter((message) => message.type === "error")
    .map((message) => ({
      type: "error",
      code: message.code,
      content:
        message.code === "requires_3ds"
          ? `${message.content} The buyer must authenticate the payment on continue_url.`
          : message.content,
      severity: message.code === "requires_3ds" ? "requires_buyer_input" : "recoverable",
    }));
}

function warnings(issues: readonly { path: string; code: string; message: string }[]): UcpMessage[] {
  return issues.map((issue) => ({
    type: "warning",
    code: issue.code,
    content: issue.message,
    path: jsonPath(issue.path, MEMBER_ROOT),
  }));
}

/** A refusal of the core as a UCP error; rate limits stay CoreErrors (the MCP host answers them with 429). */
function coreRefusal(
  error: unknown,
  root: string,
  path: (p: string) => string = (p) => jsonPath(p, root),
): unknown {
  if (!CoreError.isInstance(error) || error.code === "rate_limited") return error;
  const issues = error.issues ?? [];
  if (issues.length > 0) {
    return new UcpError(
      issues.map((issue) => ({
        code: issue.code,
        message: issue.message,
        severity: "recoverable",
        path: path(issue.path),
      })),
    );
  }
  const transient = [
    "address_search_unavailable",
    "service_busy",
    "storage_unavailable",
    "payment_rail_unavailable",
  ];
  if (transient.includes(error.code)) {
    return UcpError.one(error.code, error.message, {
      rpcCode: RPC_UNAVAILABLE,
      ...(error.retryAfterSeconds === undefined
        ? {}
        : { details: { retry_after_seconds: error.retryAfterSeconds } }),
    });
  }
  if (error.code === "internal_error") return error;
  const final = ["checkout_expired", "checkout_canceled", "checkout_completed", "not_found"];
  return UcpError.one(error.code, error.message, {
    severity: final.includes(error.code) ? "unrecoverable" : "recoverable",
  });
}

import type { Issue } from "@mailpiece/errors";
import { pieceAddressLines } from "@mailpiece/orders";
import { parseHandwrittenRequest } from "@mailpiece/templates";
import { todayUtc } from "@mailpiece/typesetter/light";
import { pdfWorkOf } from "../pdf-work.ts";
import { objectBody, unknownFields } from "../projects/credit-requests.ts";
import { requestProblems } from "../projects/documents.ts";
import { parseSendParties, partyIssues, toParty } from "../projects/order-parties.ts";
import type { ProjectOrderView } from "../projects/order-view.ts";
import {
  type OrderPlan,
  type PreparedPrice,
  type ProjectOrderContext,
  placeSend,
  preparedPrice,
} from "../projects/place-order.ts";
import { priceRequest } from "../projects/quotes.ts";
import { typesetSend } from "../projects/typeset-send.ts";
import { pricingInput } from "../quote-order.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { HANDWRITTEN_OPTIONS, HANDWRITTEN_SOURCE } from "./handwritten-piece.ts";

/** A handwritten send, typeset and priced, without anything reserved or written: what a draft of it costs. */
export interface PreparedHandwrittenSend extends PreparedPrice {
  object: "prepared_handwritten_send";
  mailpiece_type: "handwritten";
  /** The send body, as sendPrepared sends it. */
  body: Record<string, unknown>;
}

const FIELDS = ["message", "style", "recipient", "sender", "metadata"];

/**
 * Sends one handwritten piece (POST /handwritten), at most once per Idempotency-Key, through the one order path of
 * the Projects API: the body `{message, recipient, sender, style?, metadata?}` (the message and style as
 * parseHandwrittenRequest checks them, the addresses as a letter's), the proof typeset on the document workers
 * (message_too_long_for_card at `message` when it does not fit the page, never cut), priced from the price book's
 * handwritten price for the route between the sender's and the recipient's countries, and the price reserved; the
 * order is handwritten (no tracking, never returned). A refused send reserves nothing. `expectedPriceCents`: the
 * price the send was prepared at (a released draft); another price now is state_conflict.
 */
export function sendHandwritten(
  ctx: ProjectOrderContext,
  principal: Principal,
  body: unknown,
  idempotencyKey: string | undefined,
  expectedPriceCents?: number,
): Promise<ProjectOrderView> {
  return placeSend(
    ctx,
    principal,
    { idempotencyKey, fingerprint: { kind: "handwritten", body }, expectedPriceCents },
    () => prepareSend(ctx, body),
  );
}

/** A handwritten send typeset and priced as sendHandwritten would, reserving and writing nothing (drafts). */
export async function prepareHandwrittenSend(
  ctx: ProjectOrderContext,
  body: unknown,
): Promise<PreparedHandwrittenSend> {
  const { plan } = await prepareSend(ctx, body);
  return {
    object: "prepared_handwritten_send",
    mailpiece_type: "handwritten",
    ...preparedPrice(plan),
    body: objectBody(body),
  };
}

/** Checks, typesets and prices a send body; throws validation_failed with every issue of the body. */
async function prepareSend(
  ctx: ProjectOrderContext,
  body: unknown,
): Promise<{ plan: OrderPlan; pdf: Uint8Array }> {
  const fields = objectBody(body);
  const issues: Issue[] = unknownFields(fields, FIELDS);
  const card = parseHandwrittenRequest(fields);
  if (!card.ok) issues.push(...card.issues);
  const parties = parseSendParties(fields);
  if (!parties.ok) issues.push(...parties.issues);
  const recipient = parties.ok ? parties.value.recipient : undefined;
  const sender = parties.ok ? parties.value.sender : undefined;
  // The route is the addresses' own: a sender is all it can lack.
  if (recipient) {
    const route = { destination: recipient.address.countryCode, origin: sender?.address.countryCode ?? "" };
    issues.push(...partyIssues(route, recipient, sender, "The send"));
  }
  if (!card.ok || !parties.ok || !recipient || !sender || issues.length > 0) throw requestProblems(issues);
  const lines = pieceAddressLines(toParty(sender), toParty(recipient));
  const proof = await typesetSend(
    () =>
      pdfWorkOf(ctx).typesetHandwritten({
        message: card.value.message,
        style: card.value.style,
        date: todayUtc(new Date(ctx.clock.now())),
        sender: { lines: lines.sender },
        recipient: { lines: lines.recipient },
      }),
    { message: "message", style: "style", recipient: "recipient", sender: "sender" },
    "message",
  );
  const price = priceRequest(
    {
      ...pricingInput({ mailpiece_type: "letter", options: HANDWRITTEN_OPTIONS }, proof.page_count, {
        destination: recipient.address.countryCode,
        origin: sender.address.countryCode,
      }),
      mailpiece_type: "handwritten",
    },
    ctx.config,
    { destination_country: "recipient.countryCode", origin_country: "sender.countryCode" },
  );
  return {
    plan: {
      mailpiece_type: "letter",
      options: { ...HANDWRITTEN_OPTIONS },
      price,
      document: {
        sha256: proof.sha256,
        page_count: proof.page_count,
        source: HANDWRITTEN_SOURCE,
        format: null,
      },
      recipient,
      sender,
      metadata: parties.value.metadata,
    },
    pdf: proof.pdf,
  };
}

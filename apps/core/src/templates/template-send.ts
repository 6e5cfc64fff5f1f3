import type { Issue } from "@mailpiece/errors";
import {
  DEFAULT_RENDER,
  LetterQuoteBody,
  type MailOptions,
  parseLetterQuoteRequest,
} from "@mailpiece/orders";
import { mergeTemplate } from "@mailpiece/templates";
import { todayUtc } from "@mailpiece/typesetter/light";
import { windowLines } from "../party-view.ts";
import { pdfWorkOf } from "../pdf-work.ts";
import { objectBody, unknownFields } from "../projects/credit-requests.ts";
import { requestProblems } from "../projects/documents.ts";
import {
  type MailRoute,
  type OrderParties,
  parseSendParties,
  partyIssues,
  toParty,
} from "../projects/order-parties.ts";
import type { ProjectOrderView } from "../projects/order-view.ts";
import {
  type OrderPlan,
  type PreparedPrice,
  type ProjectOrderContext,
  placeSend,
  preparedPrice,
} from "../projects/place-order.ts";
import { priceRequest, QUOTE_PRICING_PATHS } from "../projects/quotes.ts";
import { typesetSend } from "../projects/typeset-send.ts";
import { pricingInput } from "../quote-order.ts";
import type { Principal } from "../workspaces/workspaces.ts";
import { loadTemplate, loadVersion } from "./template-record.ts";
import { archived } from "./templates.ts";

/**
 * A template send, merged, typeset and priced, without anything reserved or written: what a draft of it costs.
 * `body` is the send body with `version` set to the version merged, so that sending it later sends that version.
 */
export interface PreparedTemplateSend extends PreparedPrice {
  object: "prepared_template_send";
  template_id: string;
  template_version: number;
  mailpiece_type: "letter";
  body: Record<string, unknown>;
}

/** What a send body says besides its variables and version, checked. */
interface TemplateSendRequest {
  parties: Required<OrderParties>;
  options: MailOptions;
  route: MailRoute;
}

/** The letter options of a send: those of a letter quote, without its document (the template is the document). */
const OPTION_FIELDS = Object.keys(LetterQuoteBody.properties).filter(
  (field) => !["document_id", "page_count", "standalone_address_page"].includes(field),
);
const SEND_FIELDS = ["variables", "version", "recipient", "sender", "metadata", ...OPTION_FIELDS];
/** The letter is typeset from the template, not an uploaded document: the quote rules check a stand-in id. */
const TEMPLATE_DOCUMENT = "template";

/**
 * Sends one letter from a template (POST /templates/{id}/send), at most once per Idempotency-Key, through the one
 * order path of the Projects API: the body is `{variables, recipient, sender, metadata?, version?}` with the options
 * of a letter quote (mail_class, color, double_sided, certified and the receipts, destination_country_code and
 * origin_country_code, which default to the recipient's and the sender's countries). The template (not_found;
 * state_conflict when archived) is merged with the variables (issues at `variables.<name>`), typeset on the
 * document workers, priced as a letter quote of its page count and options, and the price reserved; the order is a
 * letter carrying template_id and template_version. A refused send reserves nothing. `expectedPriceCents`: the price
 * the send was prepared at (a released draft); another price now is state_conflict.
 */
export async function sendTemplate(
  ctx: ProjectOrderContext,
  principal: Principal,
  templateId: string,
  body: unknown,
  idempotencyKey: string | undefined,
  expectedPriceCents?: number,
): Promise<ProjectOrderView> {
  return placeSend(
    ctx,
    principal,
    { idempotencyKey, fingerprint: { kind: "template", template_id: templateId, body }, expectedPriceCents },
    () => prepareSend(ctx, principal, templateId, body),
  );
}

/**
 * A template send merged, typeset and priced as sendTemplate would, reserving and writing nothing (drafts). Throws
 * as sendTemplate does before it reserves.
 */
export async function prepareTemplateSend(
  ctx: ProjectOrderContext,
  principal: Principal,
  templateId: string,
  body: unknown,
): Promise<PreparedTemplateSend> {
  const { plan } = await prepareSend(ctx, principal, templateId, body);
  const template = plan.template!;
  return {
    object: "prepared_template_send",
    template_id: template.id,
    template_version: template.version,
    mailpiece_type: "letter",
    ...preparedPrice(plan),
    body: { ...objectBody(body), version: template.version },
  };
}

/** Sends a prepared template send: its version, once per Idempotency-Key, refused if its price changed since. */
export function sendPreparedTemplate(
  ctx: ProjectOrderContext,
  principal: Principal,
  prepared: Pick<PreparedTemplateSend, "template_id" | "body" | "price_cents">,
  idempotencyKey: string | undefined,
): Promise<ProjectOrderView> {
  return sendTemplate(
    ctx,
    principal,
    prepared.template_id,
    prepared.body,
    idempotencyKey,
    prepared.price_cents,
  );
}

const isVersionNumber = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;

/** Checks a send body's fields other than the variables: the send, or every issue. */
function parseTemplateSend(body: unknown): { request?: TemplateSendRequest; issues: Issue[] } {
  const fields = objectBody(body);
  const issues: Issue[] = unknownFields(fields, SEND_FIELDS);
  const parties = parseSendParties(fields);
  if (!parties.ok) issues.push(...parties.issues);
  const optionBody: Record<string, unknown> = { document_id: TEMPLATE_DOCUMENT };
  for (const field of OPTION_FIELDS) if (Object.hasOwn(fields, field)) optionBody[field] = fields[field];
  // The route defaults to the countries of the addresses.
  if (parties.ok) {
    optionBody.destination_country_code ??= parties.value.recipient.address.countryCode;
    optionBody.origin_country_code ??= parties.value.sender?.address.countryCode;
  }
  const options = parseLetterQuoteRequest(optionBody, { standaloneAddressPage: false });
  if (!options.ok) issues.push(...options.issues);
  if (fields.version !== undefined && !isVersionNumber(fields.version)) {
    issues.push({
      path: "version",
      code: "invalid_type",
      message: "version must be a whole number from 1: one of the template's versions.",
    });
  }
  if (!parties.ok) return { issues };
  const { recipient, sender, metadata } = parties.value;
  // Options refused above give no route to check the addresses against; the sender is required all the same.
  const route = options.ok
    ? { destination: options.value.destination, origin: options.value.origin }
    : { destination: recipient.address.countryCode, origin: sender?.address.countryCode ?? "" };
  issues.push(...partyIssues(route, recipient, sender, "The send"));
  if (!options.ok || !sender || issues.length > 0) return { issues };
  return {
    request: {
      parties: { recipient, sender, metadata },
      options: options.value.options,
      route,
    },
    issues,
  };
}

/**
 * Checks a send body against the template, merges, typesets and prices it. Throws not_found, state_conflict (an
 * archived template) or validation_failed with every issue of the body and its variables.
 */
async function prepareSend(
  ctx: ProjectOrderContext,
  principal: Principal,
  templateId: string,
  body: unknown,
): Promise<{ plan: OrderPlan; pdf: Uint8Array }> {
  const { record } = await loadTemplate(ctx.store, principal, templateId);
  if (record.status === "archived") throw archived(record);
  const { request, issues } = parseTemplateSend(body);
  // The version merged: the one asked for (a number it never had is an issue), else the current one.
  const { version: asked, variables } = objectBody(body);
  const version =
    asked === undefined
      ? record.current
      : isVersionNumber(asked)
        ? await loadVersion(ctx.store, record, asked)
        : undefined;
  if (!version && isVersionNumber(asked)) {
    issues.push({
      path: "version",
      code: "version_not_found",
      message: `The template has versions 1 to ${record.current.version}.`,
    });
  }
  const merged = version ? mergeTemplate(version, variables) : undefined;
  if (merged && !merged.ok) issues.push(...merged.issues);
  if (!request || !version || !merged?.ok || issues.length > 0) throw requestProblems(issues);
  const { recipient, sender, metadata } = request.parties;
  const letter = await typesetSend(
    () =>
      pdfWorkOf(ctx).typesetLetter({
        body: merged.value.body,
        format: merged.value.format,
        render: { ...DEFAULT_RENDER },
        date: todayUtc(new Date(ctx.clock.now())),
        ...windowLines(toParty(sender), toParty(recipient)),
      }),
    { recipient: "recipient", sender: "sender" },
    "variables",
  );
  const price = priceRequest(
    pricingInput({ mailpiece_type: "letter", options: request.options }, letter.page_count, request.route),
    ctx.config,
    QUOTE_PRICING_PATHS,
  );
  return {
    plan: {
      mailpiece_type: "letter",
      options: request.options,
      price,
      document: {
        sha256: letter.sha256,
        page_count: letter.page_count,
        source: "letter",
        format: merged.value.format,
      },
      recipient,
      sender,
      metadata,
      template: { id: record.id, version: version.version },
    },
    pdf: letter.pdf,
  };
}

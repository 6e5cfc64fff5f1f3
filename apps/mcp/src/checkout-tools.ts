import type { CheckoutView, OrderDraftView } from "@mailpiece/core";
import { canonicalJson } from "@mailpiece/idempotency";
import { DraftOrderRequest, FormAttachment } from "@mailpiece/orders";
import { type TSchema, Type } from "typebox";
import type { ToolContext } from "./tools.ts";
import { define, ToolFailure } from "./tools.ts";

/** The fields every draft shares with a machine order: request_id, buyer, parties and mail options. */
const { pdf, form: _form, letter, format, bulk: _bulk, file_name, ...common } = DraftOrderRequest.properties;

/** A draft tool's input: the shared fields plus the tool's own, `required` among them. */
function draftInput(own: Record<string, TSchema>, required: string[]): TSchema {
  const base = Type.Object({ ...common, ...own }, { additionalProperties: false });
  return { ...base, required: [...new Set([...(base.required ?? []), ...required])] } as TSchema;
}

const partiesDescription =
  "Sender and recipient as in a machine order: *_name, and either an address search id (*_address_type Address, *_address_id and *_address_text from svc.search_addresses, type Address only) or *_address_manual {line1, line2?, city, state, zip, countryCode}. buyer_name and buyer_email are optional: the person who pays gives them on the checkout page.";

const DraftOutput = Type.Object(
  {
    view: Type.Literal("order_draft"),
    order_id: Type.String(),
    page_count: Type.Integer(),
    price_usd: Type.String(),
    checkout_url: Type.String({ format: "uri" }),
    checkout_session: Type.Object(
      { id: Type.String(), status: Type.String(), expires_at: Type.String() },
      { additionalProperties: true },
    ),
    sender_name: Type.String(),
    sender_address_text: Type.String(),
    recipient_name: Type.String(),
    recipient_address_text: Type.String(),
  },
  { additionalProperties: true },
);

const draftAnnotations = (title: string) => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

const checkoutUrl = (ctx: ToolContext, sessionId: string) => `${ctx.publicUrl}/checkout/${sessionId}`;

async function draft(ctx: ToolContext, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const view: OrderDraftView = await ctx.core.createDraft({
    body,
    // A tool call has no body bytes: the draft's canonical JSON is what a retry must repeat.
    raw: canonicalJson(body),
    clientKey: ctx.clientKey,
  });
  const { document_sha256, ...rest } = view;
  const preview = ctx.core.previewPath(document_sha256);
  return {
    ...rest,
    checkout_url: checkoutUrl(ctx, view.checkout_session.id),
    ...(preview ? { preview_url: `${ctx.publicUrl}${preview}` } : {}),
    message: view.is_paid
      ? "This draft is already paid; nothing more to do. Follow it with svc.get_order_status."
      : "Send checkout_url to the person who pays: they review the letter, the addresses and the price, and pay there. Or pay it yourself with complete_checkout and a shared payment token. Nothing is printed or mailed before that.",
  };
}

export const createLetterOrderDraft = define({
  name: "svc.create_letter_order_draft",
  description: `Creates an unpaid draft of a letter written as text (letter: a string, or {title?, body, signature?, format?, render?}) and a checkout_url where a person reviews and pays it. Validated exactly as a machine order; the same request_id with the same arguments answers the same draft. ${partiesDescription}`,
  inputSchema: draftInput({ letter: letter!, format: format! }, ["letter"]),
  outputSchema: DraftOutput,
  annotations: draftAnnotations("Draft a letter for checkout"),
  run: (ctx, args) => draft(ctx, args as Record<string, unknown>),
});

export const createFormOrderDraft = define({
  name: "svc.create_form_order_draft",
  description: `Creates an unpaid draft of a workflow form (slug from svc.list_forms, fields per svc.get_form_schema, optional inline attachments) mailed as a letter, and a checkout_url where a person reviews and pays it. ${partiesDescription}`,
  inputSchema: draftInput(
    {
      slug: Type.String({ minLength: 1, maxLength: 200, description: "The form's slug or an alias." }),
      fields: Type.Object(
        {},
        { additionalProperties: true, description: "Answers keyed by field id, per svc.get_form_schema." },
      ),
      attachments: Type.Optional(Type.Array(FormAttachment, { maxItems: 100 })),
    },
    ["slug", "fields"],
  ),
  outputSchema: DraftOutput,
  annotations: draftAnnotations("Draft a form letter for checkout"),
  run(ctx, args) {
    const { slug, fields, attachments, ...rest } = args as Record<string, unknown>;
    return draft(ctx, {
      ...rest,
      form: { slug, fields, ...(attachments === undefined ? {} : { attachments }) },
    });
  },
});

export const createOrderDraft = define({
  name: "svc.create_order_draft",
  description: `Creates an unpaid draft of a PDF letter (or a 2-page postcard with mailpiece_type postcard and postcard_size) and a checkout_url where a person reviews and pays it. pdf: {"upload_token": ...} from svc.create_pdf_upload (preferred), a data:application/pdf;base64 URL, or an allowlisted HTTPS URL. ${partiesDescription}`,
  inputSchema: draftInput({ pdf: pdf!, file_name: file_name! }, ["pdf"]),
  outputSchema: DraftOutput,
  annotations: draftAnnotations("Draft a PDF mailing for checkout"),
  run: (ctx, args) => draft(ctx, args as Record<string, unknown>),
});

const CheckoutOutput = Type.Object(
  {
    object: Type.Literal("checkout_session"),
    id: Type.String(),
    status: Type.String(),
    order_id: Type.String(),
    checkout_url: Type.String({ format: "uri" }),
    order_permalink: Type.String({ format: "uri" }),
    messages: Type.Array(Type.Object({ type: Type.String(), code: Type.String(), content: Type.String() })),
  },
  { additionalProperties: true },
);

function checkoutAnswer(ctx: ToolContext, view: CheckoutView): Record<string, unknown> {
  const { document_sha256: _sha, ...rest } = view;
  const url = checkoutUrl(ctx, view.id);
  return { ...rest, checkout_url: url, order_permalink: url };
}

export const completeCheckout = define({
  name: "complete_checkout",
  description:
    "Pays a draft's checkout session with a shared payment token (payment_data.token, spt_...) that the buyer's payment provider granted, for the buyer {first_name, last_name?, email}; the receipt goes to that email. Charges at most once: completing a completed session answers it again. A refused payment answers an error with the code payment_declined (ask for another payment method) or requires_3ds (send the person to checkout_url to authenticate); the session stays open.",
  inputSchema: Type.Object(
    {
      checkout_session_id: Type.String({
        pattern: "^cs_[0-9a-f]{32}$",
        description: "checkout_session.id of a draft.",
      }),
      buyer: Type.Object(
        {
          first_name: Type.String({ minLength: 1, maxLength: 128 }),
          last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          email: Type.String({ format: "email", maxLength: 256 }),
        },
        { additionalProperties: false },
      ),
      payment_data: Type.Object(
        {
          token: Type.String({ pattern: "^spt_", maxLength: 256, description: "A shared payment token." }),
          provider: Type.Optional(
            Type.String({ maxLength: 64, description: 'Who issued the token, e.g. "stripe".' }),
          ),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  outputSchema: CheckoutOutput,
  annotations: {
    title: "Pay a checkout session",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  async run(ctx, args) {
    const view = await ctx.core.completeCheckout(args);
    const answer = checkoutAnswer(ctx, view);
    const refusal = view.messages.find((m) => m.type === "error");
    if (view.status === "open" && refusal) {
      throw new ToolFailure(
        `${refusal.code}: ${refusal.content} The checkout session is still open; nothing was charged.`,
        answer,
      );
    }
    return answer;
  },
});

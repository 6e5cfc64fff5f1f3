import type { MailpieceCore, PaymentAttempt } from "@mailpiece/core";
import { canonicalJson } from "@mailpiece/idempotency";
import type { PaymentRail } from "@mailpiece/ports";
import { type Static, type TSchema, Type } from "typebox";

/** What a tool call may use: the core, how to name things with absolute URLs, and who is calling. */
export interface ToolContext {
  core: MailpieceCore;
  publicUrl: string;
  /** The caller's client key (its IP), for the per-client limits the core keeps. */
  clientKey: string;
  version: string;
}

/** MCP tool annotations (hints to clients). */
interface Annotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition<I extends TSchema = TSchema> {
  name: string;
  description: string;
  inputSchema: I;
  outputSchema: TSchema;
  annotations: Annotations;
  run(ctx: ToolContext, args: Static<I>): Promise<Record<string, unknown>>;
}

const readOnly = (title: string): Annotations => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

export const define = <I extends TSchema>(tool: ToolDefinition<I>): ToolDefinition =>
  tool as unknown as ToolDefinition;

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";

/** An object whose members are described but not all listed: the core checks every field of an order. */
const OpenObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const ping = define({
  name: "svc.ping",
  description: "Checks that the mail service is up. Returns its status, version and the time on the server.",
  inputSchema: Type.Object({}, { additionalProperties: false }),
  outputSchema: Type.Object({
    status: Type.Literal("ok"),
    service: Type.String(),
    version: Type.String(),
    time: Type.String({ format: "date-time" }),
  }),
  annotations: readOnly("Ping"),
  async run(ctx) {
    return { status: "ok", service: "mailpiece", version: ctx.version, time: new Date().toISOString() };
  },
});

export const listForms = define({
  name: "svc.list_forms",
  description:
    "Lists the workflow forms that can be mailed as one mailpiece (for example disputes and notices), each with its slug, name and what it is for. Search with q; page with limit (1-200, default 50) and cursor. Get a form's fields with svc.get_form_schema.",
  inputSchema: Type.Object(
    {
      q: Type.Optional(
        Type.String({ maxLength: 200, description: "Words to look for in slugs, names and aliases." }),
      ),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 200, description: "Forms per page (default 50)." }),
      ),
      cursor: Type.Optional(
        Type.String({ maxLength: 500, description: "next_cursor of the previous page." }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSchema: Type.Object({
    forms: Type.Array(OpenObject("A form: slug, name, summary.")),
    next_cursor: Type.Union([Type.String(), Type.Null()]),
  }),
  annotations: readOnly("List forms"),
  async run(ctx, args) {
    const page = ctx.core.listForms({
      ...(args.q === undefined ? {} : { q: args.q }),
      ...(args.limit === undefined ? {} : { limit: String(args.limit) }),
      ...(args.cursor === undefined ? {} : { cursor: args.cursor }),
    });
    return { forms: page.forms as Record<string, unknown>[], next_cursor: page.next_cursor };
  },
});

export const getFormSchema = define({
  name: "svc.get_form_schema",
  description:
    "Returns a workflow form's live schema by slug (or alias): its fields with types and rules, the dependencies between them, the attachments it takes and their combined size limit (attachments_max_total_size_mb), and the checkout flow. Fill `form.fields` of an order with it.",
  inputSchema: Type.Object(
    { slug: Type.String({ minLength: 1, maxLength: 200, description: "The form's slug or an alias." }) },
    { additionalProperties: false },
  ),
  outputSchema: OpenObject("The form schema."),
  annotations: readOnly("Get a form's schema"),
  async run(ctx, args) {
    const schema = ctx.core.formSchema(args.slug);
    if (schema === undefined) {
      throw new ToolFailure(
        `No form has the slug or alias "${args.slug}". List the forms with svc.list_forms.`,
      );
    }
    return schema as Record<string, unknown>;
  },
});

export const getOrderStatus = define({
  name: "svc.get_order_status",
  description:
    "Tells where an order stands: whether it is paid, its current step (payment, preparation, printing, mailing, delivery) and every step so far. Give the order_id (or the request_id the order was created with).",
  inputSchema: Type.Object(
    {
      order_id: Type.String({
        pattern: UUID,
        description: "The order_id, or the request_id of its creation.",
      }),
    },
    { additionalProperties: false },
  ),
  outputSchema: Type.Object(
    {
      view: Type.Literal("order_status"),
      found: Type.Boolean(),
      order_id: Type.String(),
      is_paid: Type.Boolean(),
      current_step: Type.Union([Type.String(), Type.Null()]),
    },
    { additionalProperties: true },
  ),
  annotations: readOnly("Get an order's status"),
  async run(ctx, args) {
    const status = await ctx.core.getOrderStatus(args.order_id.toLowerCase());
    if (!status) {
      return {
        view: "order_status",
        found: false,
        order_id: args.order_id,
        is_paid: false,
        current_step: null,
      };
    }
    const { object: _object, ...rest } = status;
    return { view: "order_status", found: true, ...rest };
  },
});

export const createPdfUpload = define({
  name: "svc.create_pdf_upload",
  description:
    'Opens an upload slot for a PDF that is too large to send inline. Upload the file with an HTTP POST of multipart/form-data to upload_url, in the field "file", with the required_headers, before expires_at; then send {"pdf": {"upload_token": "<upload_token>"}} in the order.',
  inputSchema: Type.Object(
    {
      file_name: Type.String({ minLength: 1, maxLength: 255 }),
      content_type: Type.Literal("application/pdf"),
      content_length: Type.Integer({ minimum: 1, description: "The file's size in bytes." }),
    },
    { additionalProperties: false },
  ),
  outputSchema: Type.Object({
    upload_url: Type.String({ format: "uri" }),
    upload_token: Type.String(),
    expires_at: Type.String(),
    max_bytes: Type.Integer(),
    required_headers: Type.Record(Type.String(), Type.String()),
  }),
  annotations: {
    title: "Open a PDF upload",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  async run(ctx, args) {
    const { upload_path, ...slot } = await ctx.core.createUpload({ ...args, clientKey: ctx.clientKey });
    return { ...slot, upload_url: `${ctx.publicUrl}${upload_path}` };
  },
});

export const createMachineOrder = define({
  name: "svc.create_machine_order",
  description:
    "Creates a letter or postcard order paid per order with x402 (USDC) or MPP. The order fields are those of the machine API's POST /api/machine/orders (request_id, buyer, sender and recipient, one of letter, pdf or form, and options); validate them first with the machine API's validate endpoint if you like. The first call answers status payment_required with the challenge: for MPP `payment.www_authenticate`, for x402 `payment_required_header`. Pay it, then call this tool again with exactly the same order and payment_authorization (MPP: the Authorization header value) or payment_signature (x402: the PAYMENT-SIGNATURE value). The same request_id with other fields is refused; a paid order is never charged twice.",
  inputSchema: Type.Object(
    {
      payment_protocol: Type.Union([Type.Literal("mpp"), Type.Literal("x402")]),
      order: OpenObject("The order, as the body of POST /api/machine/orders."),
      payment_authorization: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 32768,
          description: "MPP: `Payment <credential>`, on the retry.",
        }),
      ),
      payment_signature: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 32768,
          description: "x402: the PAYMENT-SIGNATURE value, on the retry.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSchema: Type.Object(
    {
      view: Type.Literal("machine_order"),
      protocol: Type.Union([Type.Literal("mpp"), Type.Literal("x402")]),
      order_id: Type.String(),
      status: Type.String(),
    },
    { additionalProperties: true },
  ),
  annotations: {
    title: "Create a paid mail order",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  async run(ctx, args) {
    const protocol = args.payment_protocol;
    const rail = ctx.core.rails[protocol];
    if (!rail) throw new ToolFailure(`This deployment does not accept ${protocol} payments.`);
    const credential = protocol === "mpp" ? args.payment_authorization : args.payment_signature;
    const wrong = protocol === "mpp" ? args.payment_signature : args.payment_authorization;
    if (wrong !== undefined) {
      throw new ToolFailure(
        protocol === "mpp"
          ? "An MPP payment is sent in payment_authorization, not payment_signature."
          : "An x402 payment is sent in payment_signature, not payment_authorization.",
      );
    }
    const outcome = await ctx.core.createOrder({
      body: args.order,
      // A tool call has no body bytes: the order's canonical JSON is what a retry must repeat.
      raw: canonicalJson(args.order),
      clientKey: ctx.clientKey,
      payment: paymentAttempt(rail, credential, ctx.publicUrl, protocol),
    });
    const order = { ...outcome.order };
    const base = { view: "machine_order", protocol, order_id: order.order_id };
    if (outcome.kind === "payment_required") {
      const headers = outcome.challenge.headers;
      const challengeBody = outcome.challenge.body as Record<string, unknown>;
      const payment =
        protocol === "mpp"
          ? {
              payment: {
                www_authenticate: [headers["WWW-Authenticate"] ?? []].flat(),
                retry_header: "Authorization",
                retry_header_value: "Payment <credential>",
              },
            }
          : {
              payment_required_header: String(headers["PAYMENT-REQUIRED"] ?? ""),
              payment_required: challengeBody,
            };
      return {
        ...base,
        status: "payment_required",
        ...payment,
        ...(outcome.error ? { payment_error: outcome.error } : {}),
        order,
        message:
          protocol === "mpp"
            ? "Pay one of the challenges in payment.www_authenticate, then call svc.create_machine_order again with the same order and payment_authorization."
            : "Pay the x402 requirements in payment_required_header, then call svc.create_machine_order again with the same order and payment_signature.",
      };
    }
    return {
      ...base,
      status: order.payment_status === "paid" ? "paid" : "settled",
      order,
      receipt: outcome.receiptHeaders,
      message:
        outcome.kind === "already_paid"
          ? "This order was already paid; nothing was charged now."
          : "Payment received; the order is queued for printing. Follow it with svc.get_order_status.",
    };
  },
});

function paymentAttempt(
  rail: PaymentRail,
  credential: string | undefined,
  publicUrl: string,
  protocol: "mpp" | "x402",
): PaymentAttempt {
  // The charge names the order it pays for, as on the machine API, so one order has one resource on every surface.
  const base = protocol === "mpp" ? "/api/machine/mpp/orders" : "/api/machine/orders";
  return { rail, credential, resourceUrl: (id) => `${publicUrl}${base}/${id}` };
}

export const searchAddresses = define({
  name: "svc.search_addresses",
  description:
    "Finds postal addresses as a person types them (at least 3 characters), in one country (country_code, default US). Each suggestion has an id, its text, a type and a description. A suggestion of type Container (a street, a building with units) must be searched again with container=<its id> to reach single addresses; only the id of a type Address suggestion is valid in an order (sender_address_id / recipient_address_id, with its text as *_address_text). Limited to 120 searches a minute and 3000 a day per client.",
  inputSchema: Type.Object(
    {
      query: Type.String({ minLength: 3, maxLength: 200, description: "What the person typed." }),
      country_code: Type.Optional(
        Type.String({ pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2; default US." }),
      ),
      container: Type.Optional(
        Type.String({ minLength: 1, maxLength: 500, description: "A Container suggestion's id." }),
      ),
      target: Type.Optional(
        Type.Union([Type.Literal("sender"), Type.Literal("recipient")], {
          description: "Whose address is being looked up (informational).",
        }),
      ),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 50, description: "Suggestions at most (default 10)." }),
      ),
    },
    { additionalProperties: false },
  ),
  outputSchema: Type.Object({
    suggestions: Type.Array(
      Type.Object({
        id: Type.String(),
        text: Type.String(),
        type: Type.Union([Type.Literal("Address"), Type.Literal("Container")]),
        description: Type.String(),
      }),
    ),
  }),
  annotations: readOnly("Search addresses"),
  async run(ctx, args) {
    if (!ctx.core.searchAddresses) throw new ToolFailure("Address search is not offered by this deployment.");
    const { target: _target, ...search } = args;
    return { suggestions: await ctx.core.searchAddresses({ ...search, clientKey: ctx.clientKey }) };
  },
});

/**
 * A failure the caller can act on, answered as a tool result with isError and this text, and with `structured` as
 * its structured content when the failure has a state to show (a checkout session still open).
 */
export class ToolFailure extends Error {
  override name = "ToolFailure";
  constructor(
    message: string,
    readonly structured?: Record<string, unknown>,
  ) {
    super(message);
  }
}

import type { CreateOrderOutcome, MailpieceCore, PaymentAttempt } from "@mailpiece/core";
import { createSchemaCheck } from "@mailpiece/orders";
import type { PaymentRail } from "@mailpiece/ports";
import { FloristError } from "@mailpiece/ports";
import type { H3Event, HTTPError, Middleware } from "h3";
import { getRequestIP, H3, noContent, onError } from "h3";
import { createBodyBudget, holdBodyBudget, leaseOf } from "./body-budget.ts";
import { campaignPage } from "./campaign-page.ts";
import { cors } from "./cors.ts";
import { answerMachineError, MachineError, validationFailed } from "./errors.ts";
import { buildOpenApi, buildX402Manifest } from "./openapi.ts";
import {
  FLOWER_BODY_BYTES,
  mediaType,
  readJsonBody,
  readUploadedFile,
  UPLOAD_SLOT_BODY_BYTES,
} from "./read-json.ts";
import { UploadSlotRequest } from "./schemas.ts";

export interface MachineAppOptions {
  /** Absolute base URL used in links, challenges and discovery documents. */
  publicUrl: string;
  /** Largest JSON body accepted, in bytes. */
  maxBodyBytes: number;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you trust). */
  trustProxy?: boolean;
  /** Request body bytes held at once across requests (default 96 MiB); past it a request gets 503 before it is read. */
  maxInflightBodyBytes?: number;
  /** Called with every unexpected error; never with request bodies. */
  onUnexpectedError?: (error: unknown) => void;
}

export const MACHINE_DEFAULTS = {
  maxBodyBytes: 64 * 1024 * 1024,
  maxInflightBodyBytes: 96 * 1024 * 1024,
} as const;

/**
 * The payment part of a create request: the rail's credential as the client sent it in the rail's own header, and
 * each order's URL under the create endpoint (the charge names the order it pays for).
 */
function paymentOf(event: H3Event, rail: PaymentRail, createUrl: string): PaymentAttempt {
  return {
    rail,
    credential: event.req.headers.get(rail.credentialHeader) ?? undefined,
    resourceUrl: (id) => `${createUrl}/${id}`,
  };
}

/** Checks the JSON body that opens an upload slot. */
const uploadSlotIssues = createSchemaCheck(UploadSlotRequest);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type Family = "x402" | "mpp";

/** The machine API (/api/machine/...) as an h3 app that mounts alone. HTTP mapping only; the rules live in core. */
export function createMachineApp(core: MailpieceCore, options: MachineAppOptions): H3 {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const openapi = buildOpenApi({
    publicUrl,
    maxBodyBytes: options.maxBodyBytes,
    rails: core.rails,
    flowers: core.flowers !== undefined,
    orderBounds: core.config.bounds,
    maxPdfBytes: core.config.maxPdfBytes,
  });
  const openapiText = JSON.stringify(openapi);

  const clientKeyOf = (event: H3Event) =>
    getRequestIP(event, { xForwardedFor: options.trustProxy === true }) ?? "unknown";

  const answerError = (error: HTTPError) => answerMachineError(error, options.onUnexpectedError);
  const app = new H3({ onError: answerError });
  /** Every route answers its errors and CORS itself, so both hold when the app is mounted in another. */
  const answering: Middleware[] = [onError(answerError), cors];
  const budget = createBodyBudget(options.maxInflightBodyBytes ?? MACHINE_DEFAULTS.maxInflightBodyBytes);
  const reading: Middleware[] = [...answering, holdBodyBudget(budget)];

  const validate = async (event: H3Event) => {
    const body = await readJsonBody(event, options.maxBodyBytes, leaseOf(event));
    const validation = await core.validateOrder({
      body: body.value,
      raw: body.raw,
      clientKey: clientKeyOf(event),
    });
    if (validation.object === "campaign_validation") return noStore(event, validation);
    const { preview_path, ...view } = validation;
    return noStore(event, preview_path ? { ...view, preview_url: `${publicUrl}${preview_path}` } : view);
  };

  const upload = async (event: H3Event, token?: string) => {
    const type = mediaType(event);
    if (!token && type === "application/json") {
      const body = await readJsonBody(event, UPLOAD_SLOT_BODY_BYTES, leaseOf(event));
      const issues = uploadSlotIssues(body.value);
      if (issues.length > 0) throw validationFailed(issues);
      const v = body.value as { file_name: string; content_type: string; content_length: number };
      const { upload_path, ...rest } = await core.createUpload({ ...v, clientKey: clientKeyOf(event) });
      return Response.json({ ...rest, upload_url: `${publicUrl}${upload_path}` }, { status: 201 });
    }
    if (type !== "multipart/form-data") {
      throw new MachineError(
        "unsupported_media_type",
        "Upload the PDF as multipart/form-data in the field `file` (or `pdf`, `pdfFile`).",
      );
    }
    const file = await readUploadedFile(event, core.config.maxPdfBytes, leaseOf(event));
    let slotToken = token;
    if (!slotToken) {
      const opened = await core.createUpload({
        file_name: file.name,
        content_type: "application/pdf",
        content_length: file.bytes.byteLength,
        clientKey: clientKeyOf(event),
      });
      slotToken = opened.upload_token;
    }
    const filled = await core.fillUpload(slotToken, file.bytes);
    return Response.json(
      {
        object: "upload",
        upload_token: slotToken,
        status: "uploaded",
        file_name: filled.file_name,
        size: filled.size,
        sha256: filled.sha256,
        expires_at: new Date(filled.expires_at).toISOString(),
      },
      { status: 201 },
    );
  };

  const create = (family: Family) => async (event: H3Event) => {
    const rail: PaymentRail | undefined = core.rails[family];
    if (!rail) {
      throw new MachineError(
        "payment_rail_unavailable",
        `This deployment does not accept ${family === "x402" ? "x402" : "MPP"} payments.`,
      );
    }
    const body = await readJsonBody(event, options.maxBodyBytes, leaseOf(event));
    const outcome = await core.createOrder({
      raw: body.raw,
      body: body.value,
      clientKey: clientKeyOf(event),
      payment: paymentOf(
        event,
        rail,
        `${publicUrl}${family === "x402" ? "/api/machine/orders" : "/api/machine/mpp/orders"}`,
      ),
    });
    return createResponse(outcome, publicUrl, family, (sha) => core.previewPath(sha));
  };

  const status = (family: Family) => async (event: H3Event) => {
    const id = event.context.params?.id ?? "";
    const view = UUID.test(id) ? await core.getOrderStatus(id.toLowerCase()) : undefined;
    if (!view) throw new MachineError("not_found", `No order has the id or request_id ${echo(id)}.`);
    return noStore(event, withLinks(view, publicUrl, family));
  };

  /** Every path with the methods it answers, so that another method on it is 405 with Allow, not 404. */
  const routes = new Map<string, string[]>();
  const route = (method: "GET" | "POST", path: string, handler: (event: H3Event) => unknown) => {
    routes.set(path, [...(routes.get(path) ?? []), method]);
    app.on(method, path, handler, { middleware: method === "POST" ? reading : answering });
  };

  const flowers = core.flowers;
  const noFlorist = () =>
    new MachineError("florist_unavailable", "This deployment does not take flower letters.");
  const flowerValidate = async (event: H3Event) => {
    if (!flowers) throw noFlorist();
    const body = await readJsonBody(event, FLOWER_BODY_BYTES, leaseOf(event));
    const quote = await floristCall(() =>
      flowers.validate({ body: body.value, raw: body.raw, clientKey: clientKeyOf(event) }),
    );
    return noStore(event, quote);
  };
  const flowerCreate = (family: Family) => async (event: H3Event) => {
    if (!flowers) throw noFlorist();
    const rail = core.rails[family];
    if (!rail) {
      throw new MachineError(
        "payment_rail_unavailable",
        `This deployment does not accept ${family} payments.`,
      );
    }
    const body = await readJsonBody(event, FLOWER_BODY_BYTES, leaseOf(event));
    const base = family === "x402" ? "/api/machine/flower-letters" : "/api/machine/mpp/flower-letters";
    const outcome = await floristCall(() =>
      flowers.create({
        raw: body.raw,
        body: body.value,
        clientKey: clientKeyOf(event),
        payment: paymentOf(event, rail, `${publicUrl}${base}`),
      }),
    );
    const link = <T extends { order_id: string }>(view: T) => ({
      ...view,
      status_url: `${publicUrl}${base}/${view.order_id}`,
    });
    switch (outcome.kind) {
      case "payment_required": {
        const headers = new Headers({ "content-type": outcome.challenge.contentType });
        for (const [name, value] of Object.entries(outcome.challenge.headers)) {
          for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
        }
        const challengeBody = outcome.challenge.body as Record<string, unknown>;
        return new Response(JSON.stringify({ ...challengeBody, flower_letter: link(outcome.order) }), {
          status: outcome.challenge.status,
          headers,
        });
      }
      case "accepted":
      case "already_paid":
        return Response.json(
          {
            ...link(outcome.order),
            message:
              outcome.kind === "already_paid"
                ? "This flower letter is already paid; nothing was charged now."
                : "Payment settled; the florist submission is queued. Poll status_url.",
          },
          {
            status: outcome.kind === "already_paid" ? 200 : 202,
            headers: { "cache-control": "no-store", ...outcome.receiptHeaders },
          },
        );
    }
  };
  const flowerStatus = (family: Family) => async (event: H3Event) => {
    if (!flowers) throw noFlorist();
    const id = event.context.params?.id ?? "";
    const view = UUID.test(id) ? await floristCall(() => flowers.get(id.toLowerCase())) : undefined;
    if (!view) throw new MachineError("not_found", `No flower letter has the id or request_id ${echo(id)}.`);
    const base = family === "x402" ? "/api/machine/flower-letters" : "/api/machine/mpp/flower-letters";
    return Response.json(
      { ...view, status_url: `${publicUrl}${base}/${view.order_id}` },
      { headers: { "cache-control": "no-store" } },
    );
  };
  route("POST", "/api/machine/flower-letters/validate", flowerValidate);
  route("POST", "/api/machine/mpp/flower-letters/validate", flowerValidate);
  route("POST", "/api/machine/flower-letters", flowerCreate("x402"));
  route("POST", "/api/machine/mpp/flower-letters", flowerCreate("mpp"));
  route("GET", "/api/machine/flower-letters/:id", flowerStatus("x402"));
  route("GET", "/api/machine/mpp/flower-letters/:id", flowerStatus("mpp"));
  route("GET", "/api/machine/forms", (event) => {
    const q = event.url.searchParams;
    const query = {
      ...(q.has("q") ? { q: q.get("q")! } : {}),
      ...(q.has("limit") ? { limit: q.get("limit")! } : {}),
      ...(q.has("cursor") ? { cursor: q.get("cursor")! } : {}),
    };
    const page = core.listForms(query);
    return Response.json({ object: "list", forms: page.forms, next_cursor: page.next_cursor });
  });
  route("GET", "/api/machine/forms/:slug/schema", (event) => {
    // The router has refused any path whose percent-encoding is malformed (400 invalid_path in onError).
    const slug = decodeURIComponent(event.context.params?.slug ?? "");
    const schema = core.formSchema(slug);
    if (!schema) throw new MachineError("not_found", `No workflow form is published under "${echo(slug)}".`);
    return Response.json(schema);
  });
  route("POST", "/api/machine/orders/validate", validate);
  route("POST", "/api/machine/mpp/orders/validate", validate);
  route("POST", "/api/machine/orders", create("x402"));
  route("POST", "/api/machine/mpp/orders", create("mpp"));
  route("POST", "/api/machine/uploads", (event) => upload(event));
  route("POST", "/api/machine/uploads/:token", (event) => upload(event, event.context.params?.token ?? ""));
  route("GET", "/api/machine/previews/:file", async (event) => {
    const file = event.context.params?.file ?? "";
    const sha256 = file.endsWith(".pdf") ? file.slice(0, -4) : file;
    const opened = await core.openPreview(
      sha256,
      event.url.searchParams.get("expires"),
      event.url.searchParams.get("sig"),
    );
    return new Response(opened, {
      headers: {
        "content-type": "application/pdf",
        "content-disposition": `inline; filename="${sha256.slice(0, 12)}.pdf"`,
        "cache-control": "private, no-store",
        "x-content-type-options": "nosniff",
      },
    });
  });
  route("GET", "/api/machine/campaigns/:id", async (event) => {
    const raw = event.context.params?.id ?? "";
    const html = raw.endsWith(".html") || (event.req.headers.get("accept") ?? "").includes("text/html");
    const id = raw.replace(/\.(html|json)$/, "");
    const view = UUID.test(id) ? await core.getCampaign(id.toLowerCase()) : undefined;
    if (!view) throw new MachineError("not_found", `No campaign has the id or request_id ${echo(id)}.`);
    if (html) {
      return new Response(campaignPage(view), {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    }
    return Response.json(view, { headers: { "cache-control": "no-store" } });
  });
  route("GET", "/api/machine/orders/:id", status("x402"));
  route("GET", "/api/machine/mpp/orders/:id", status("mpp"));

  route(
    "GET",
    "/openapi.json",
    () =>
      new Response(openapiText, {
        headers: { "content-type": "application/json", "cache-control": "public, max-age=300" },
      }),
  );

  const manifestText = JSON.stringify(
    buildX402Manifest({ publicUrl, orderBounds: core.config.bounds, flowers: core.flowers !== undefined }),
  );
  route(
    "GET",
    "/.well-known/x402",
    () => new Response(manifestText, { headers: { "content-type": "application/json" } }),
  );

  for (const [path, methods] of routes) {
    const allow = [...methods, "OPTIONS"].join(", ");
    // A CORS preflight is answered by the cors middleware; a plain OPTIONS says which methods the path answers.
    app.all(
      path,
      (event) => {
        if (event.req.method === "OPTIONS") return withAllow(noContent(), allow);
        throw new MachineError("method_not_allowed", `${path} answers ${allow}.`, { headers: { allow } });
      },
      { middleware: answering },
    );
  }
  app.all(
    "/api/machine/**",
    () => {
      throw new MachineError("not_found", "No such resource.");
    },
    { middleware: answering },
  );

  return app;
}

function withLinks<T extends { order_id: string; campaign?: unknown }>(
  view: T,
  publicUrl: string,
  family: Family,
): T & { status_url: string; campaign_url?: string } {
  const base = family === "x402" ? "/api/machine/orders" : "/api/machine/mpp/orders";
  return {
    ...view,
    status_url: `${publicUrl}${base}/${view.order_id}`,
    ...(view.campaign ? { campaign_url: `${publicUrl}/api/machine/campaigns/${view.order_id}` } : {}),
  };
}

function createResponse(
  outcome: CreateOrderOutcome,
  publicUrl: string,
  family: Family,
  previewPath: (sha256: string) => string | undefined,
): Response {
  switch (outcome.kind) {
    case "payment_required": {
      const headers = new Headers({ "content-type": outcome.challenge.contentType });
      for (const [name, value] of Object.entries(outcome.challenge.headers)) {
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const challengeBody = outcome.challenge.body as Record<string, unknown>;
      const preview = outcome.document_sha256 ? previewPath(outcome.document_sha256) : undefined;
      const body = {
        ...challengeBody,
        order: withLinks(outcome.order, publicUrl, family),
        ...(preview ? { preview_url: `${publicUrl}${preview}` } : {}),
      };
      return new Response(JSON.stringify(body), { status: outcome.challenge.status, headers });
    }
    case "accepted":
    case "already_paid": {
      const headers = new Headers({ "cache-control": "no-store", ...outcome.receiptHeaders });
      const view = withLinks(outcome.order, publicUrl, family);
      const message =
        outcome.kind === "already_paid"
          ? "This order is already paid; nothing was charged now. Poll status_url."
          : view.payment_status === "paid"
            ? "Payment settled; the order is queued for printing. Poll status_url."
            : "Payment is being confirmed (settled_pending_webhook): poll status_url and do not pay again.";
      return Response.json(
        { ...view, message },
        { status: outcome.kind === "already_paid" ? 200 : 202, headers },
      );
    }
  }
}

/** A client's value repeated in a message: short, and without characters that could disguise it. */
function echo(value: string): string {
  const clean = value.replace(/[\p{Cc}\p{Cf}]/gu, "");
  return clean.length <= 64 ? clean : `${clean.slice(0, 64)}…`;
}

function withAllow<T extends { headers: Headers }>(response: T, allow: string): T {
  response.headers.set("allow", allow);
  return response;
}

/** Runs a florist call; an unreachable florist is 503 with nothing stored. */
async function floristCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (FloristError.isInstance(error) && error.code === "florist_unavailable") {
      throw new MachineError(
        "florist_unavailable",
        "The florist cannot be reached; nothing was stored or charged. Try again shortly.",
        { retryAfterSeconds: 30, cause: error },
      );
    }
    throw error;
  }
}

/**
 * A JSON answer that no cache keeps. h3 serialises a returned value itself, into a lighter response than
 * `Response.json` builds, so the hot paths return their views as values.
 */
function noStore<T>(event: H3Event, body: T): T {
  event.res.headers.set("cache-control", "no-store");
  return body;
}

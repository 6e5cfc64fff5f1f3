import { errorResponse, RESPONSE_HEADERS, readJsonBody, toV1Error, V1Error } from "@mailpiece/v1";
import type { H3Event } from "h3";
import { getRequestIP, H3 } from "h3";
import { TEST_DRAFTS_ERRORS } from "./errors.ts";
import type { CreateInput, DraftAnswer, PieceAnswer, TestDraftsService } from "./service.ts";

export interface TestDraftsAppOptions {
  /** Absolute base URL of the deployment, for the preview links in answers. */
  publicUrl: string;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you trust that overwrites it). */
  trustProxy?: boolean;
  /** Largest JSON body read, in bytes (default 20 MiB: a form's attachments may hold 12 MB, base64 encoded). */
  maxBodyBytes?: number;
  /** Called with every unexpected error (never with a request body or header). */
  onUnexpectedError?: (error: unknown) => void;
}

export const TEST_DRAFTS_DEFAULTS = { maxBodyBytes: 20 * 1024 * 1024 } as const;

/** The path prefix of the test-mode draft endpoints. */
export const TEST_DRAFTS_BASE = "/v1/test";

type Method = "GET" | "POST";

/**
 * The test-mode draft endpoints of spec 3 ({base_url}/v1/test) as an h3 app that mounts alone: an HTTP mapping over
 * the core's test drafts, where every rule lives. Nothing here is charged, reserved or printed.
 *
 * No credential is asked for: the drafts cost nothing, touch no workspace or credits and never reach a print
 * provider, so a client can try the flow before it has a key. Each client (IP; from X-Forwarded-For with
 * `trustProxy`) is limited instead, in the store (60 drafts an hour by default), and drafts are kept 30 days.
 * An Authorization header is never read.
 *
 * Every answer carries `Cache-Control: no-store`; errors are the Projects API's `{error, message, issues?}` (its
 * V1Error and renderer), with the codes of errors.ts. An unknown path under /v1/test is 404 not_found, another method
 * on a known path 405 with Allow, OPTIONS 204 with Allow.
 */
export function createTestDraftsApp(service: TestDraftsService, options: TestDraftsAppOptions): H3 {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const maxBodyBytes = options.maxBodyBytes ?? TEST_DRAFTS_DEFAULTS.maxBodyBytes;
  const answerError = (error: unknown) =>
    errorResponse(toV1Error(error, options.onUnexpectedError, TEST_DRAFTS_ERRORS));
  const app = new H3({ onError: answerError });
  const clientOf = (event: H3Event) =>
    getRequestIP(event, { xForwardedFor: options.trustProxy === true }) ?? "unknown";

  /** Every path with the methods it answers, so that another method on it is 405 with Allow, not 404. */
  const routes = new Map<string, string[]>();
  const route = (method: Method, path: string, handler: (event: H3Event) => Promise<Response>) => {
    const full = `${TEST_DRAFTS_BASE}${path}`;
    const methods = method === "GET" ? (["GET", "HEAD"] as const) : [method];
    routes.set(full, [...(routes.get(full) ?? []), ...methods]);
    for (const each of methods) {
      app.on(each, full, async (event) => {
        try {
          return await handler(event);
        } catch (error) {
          return answerError(error);
        }
      });
    }
  };

  /** An answer as JSON, its preview path made an absolute preview_pdf_url (null when the deployment signs none). */
  const answer = (piece: PieceAnswer, status = 200) => {
    const { preview_pdf_path, ...rest } = piece;
    const body = {
      ...rest,
      preview_pdf_url: preview_pdf_path === null ? null : `${publicUrl}${preview_pdf_path}`,
    };
    return Response.json(body, { status, headers: RESPONSE_HEADERS });
  };

  /**
   * A creation: the Idempotency-Key first (400 idempotency_key_required, whatever the body), then the JSON body, then
   * the draft. 201 with the new draft; 200 with idempotent_replay true for a retry of the same key and body.
   */
  const create = (make: (input: CreateInput) => Promise<DraftAnswer>) => async (event: H3Event) => {
    const idempotencyKey = service.idempotencyKey(event.req.headers.get("idempotency-key"));
    const body = await readJsonBody(event, maxBodyBytes);
    const draft = await make({ idempotencyKey, body, clientKey: clientOf(event) });
    return answer(draft, draft.idempotent_replay ? 200 : 201);
  };

  /**
   * POST /v1/test/mail_drafts, header Idempotency-Key (a UUID). Body: `letter_text` with `sender: {name}` and
   * `recipient: {name}` (typeset as a letter, the names in the envelope windows), or `pdf_url` (https, from a host
   * the deployment allows; checked as an order's PDF is); `mail_class` (standard by default; the Projects API's
   * classes and `certified`); `simulate` (delivered by default, or provider_rejected, returned, failed). Answers the
   * draft `{id: "tdr_...", object: "test_mail_draft", order_id: "tord_...", mode: "test", status, quote: {price_cents:
   * 0, currency, line_items}, preview_pdf_url, events: [{id, type, created_at, data}], ...}`; the preview has TEST
   * MODE on every page. 422 validation_failed with every issue, 409 idempotency_conflict, 429 rate_limited.
   */
  route(
    "POST",
    "/mail_drafts",
    create((input) => service.createMailDraft(input)),
  );

  /**
   * POST /v1/test/form_drafts, header Idempotency-Key (a UUID). Body: `workflow_slug` (a slug or alias of GET
   * /api/machine/forms), `answers` (the form's fields by id), `attachments` (optional, `[{id, file_name, base64}]` as
   * in a machine order's form) and `simulate`. The workflow's rules are checked at the preview stage (422 with issues
   * at `answers.<field>` and `attachments[i]`) and its packet is watermarked on every page. Answers as mail_drafts,
   * with object "test_form_draft" and the workflow's certified mail in the quote.
   */
  route(
    "POST",
    "/form_drafts",
    create((input) => service.createFormDraft(input)),
  );

  /**
   * GET /v1/test/orders/{id}: the test order (`tord_...`, or its draft's `tdr_...`) with its fake lifecycle as it
   * stands now: the events due since its creation (ids that never change), status, tracking_number and
   * tracking_status, next_event_at, and a freshly signed preview_pdf_url. 404 for an unknown id.
   */
  route("GET", "/orders/:id", async (event) => {
    const order = await service.getOrder(event.context.params?.id ?? "");
    if (!order) throw new V1Error("not_found", "No test order has this id.");
    return answer(order);
  });

  /**
   * GET /v1/test/previews/{sha256}.pdf?expires=&sig=: the watermarked PDF behind a preview link, while the link
   * lasts (403 preview_link_invalid when tampered with or expired; a GET of the order signs a new one).
   */
  route("GET", "/previews/:file", async (event) => {
    const file = event.context.params?.file ?? "";
    const sha256 = file.endsWith(".pdf") ? file.slice(0, -4) : file;
    const query = event.url.searchParams;
    const bytes = await service.openPreview(sha256, query.get("expires"), query.get("sig"));
    return new Response(bytes, {
      headers: {
        ...RESPONSE_HEADERS,
        "cache-control": "private, no-store",
        "content-type": "application/pdf",
        "content-disposition": `inline; filename="test-${sha256.slice(0, 12)}.pdf"`,
      },
    });
  });

  for (const [path, methods] of routes) {
    const allow = [...methods, "OPTIONS"].join(", ");
    app.all(path, (event) => {
      if (event.req.method === "OPTIONS") {
        return new Response(null, { status: 204, headers: { ...RESPONSE_HEADERS, allow } });
      }
      return errorResponse(
        new V1Error("method_not_allowed", `${path} answers ${allow}.`, { headers: { allow } }),
      );
    });
  }
  const notFound = () => errorResponse(new V1Error("not_found", "No such route of the test-mode drafts."));
  app.all(TEST_DRAFTS_BASE, notFound);
  app.all(`${TEST_DRAFTS_BASE}/**`, notFound);
  return app;
}

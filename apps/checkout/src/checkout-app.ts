import type { CheckoutView, MailpieceCore } from "@mailpiece/core";
import { CoreError } from "@mailpiece/core";
import type { H3Event } from "h3";
import { assertBodySize, H3, HTTPError } from "h3";
import type { PageContext } from "./page.ts";
import { checkoutPage, notFoundPage, setupPage, topUpPage } from "./page.ts";

export interface CheckoutAppOptions {
  /** Absolute base URL of the deployment: links are made from it, and a form post must come from its origin. */
  publicUrl: string;
  /** Called with every unexpected error; never with form contents. */
  onUnexpectedError?: (error: unknown) => void;
}

/** The largest form post read: four short fields. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * Everything a checkout page answers with: no caching (it shows a person's addresses), no referrer to other sites
 * (its URL is the capability to pay), no framing, and a policy that allows no script at all and only this origin's preview.
 */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; object-src 'self'; frame-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

const page = (html: string, status = 200) => new Response(html, { status, headers: PAGE_HEADERS });

/**
 * The hosted checkout (spec 1: a draft's checkout_url): `GET /checkout/{session}` shows what will be mailed (the
 * PDF, both addresses, the options), the price with its line items, and a form for the buyer's name, email and
 * shared payment token; `POST` pays through the core's completeCheckout and answers with a redirect to the page
 * (post/redirect/get), or the page again with the problems found. Paid, in-progress, expired and canceled sessions
 * say so. Plain HTML with inline CSS: no scripts, no outside assets.
 */
export function createCheckoutApp(core: MailpieceCore, options: CheckoutAppOptions): H3 {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const origin = new URL(publicUrl).origin;
  const simulated = core.rails.checkout?.simulated ?? false;
  const app = new H3({
    onError(error) {
      const cause = (error as HTTPError).cause ?? error;
      options.onUnexpectedError?.(cause);
      return page(errorPage("Something failed on our side; nothing was charged. Try again."), 500);
    },
  });

  const render = (
    view: CheckoutView,
    extra: Omit<PageContext, "simulated" | "previewUrl"> = {},
    status = 200,
  ) => {
    const preview = core.previewPath(view.document_sha256);
    return page(
      checkoutPage(view, {
        ...extra,
        simulated,
        ...(preview ? { previewUrl: `${publicUrl}${preview}` } : {}),
      }),
      status,
    );
  };

  /**
   * A hosted page of the Projects API whose form takes a shared payment token only: GET shows it; a POST from this
   * origin submits the token and answers the problems in place (422), a refusal the core throws as a notice (409),
   * and otherwise a redirect to the page (post/redirect/get), unless `submit` answers a page to show this once.
   */
  const tokenFormPage = <V>(
    path: string,
    load: (id: string) => Promise<V | undefined>,
    render: (view: V, extra: Pick<PageContext, "notice" | "problems">) => string,
    submit: (id: string, token: string) => Promise<string | undefined>,
  ) => {
    app.get(`${path}/:session`, async (event) => {
      const view = await load(event.context.params?.session ?? "");
      return view ? page(render(view, {})) : page(notFoundPage(), 404);
    });
    app.post(`${path}/:session`, async (event) => {
      const id = event.context.params?.session ?? "";
      if (!sameOrigin(event, origin)) {
        return page(errorPage("This form can only be sent from its own page."), 403);
      }
      const view = await load(id);
      if (!view) return page(notFoundPage(), 404);
      const form = await readForm(event);
      if (!form) {
        const notice = { kind: "error", text: "The form could not be read; send it again." } as const;
        return page(render(view, { notice }), 400);
      }
      try {
        const once = await submit(id, form.get("token") ?? "");
        if (once !== undefined) return page(once);
      } catch (error) {
        if (!CoreError.isInstance(error)) throw error;
        const current = (await load(id)) ?? view;
        if (error.code === "validation_failed") {
          const problems = Object.fromEntries(error.issues.map((issue) => [issue.path, issue.message]));
          return page(render(current, { problems }), 422);
        }
        return page(render(current, { notice: { kind: "error", text: error.message } }), 409);
      }
      return new Response(null, {
        status: 303,
        headers: { location: `${publicUrl}${path}/${id}`, "cache-control": "no-store" },
      });
    });
  };

  // Credit top-ups of the Projects API: the same page rules, a form for the token only.
  tokenFormPage("/checkout/top-up", core.projects.getTopUp, topUpPage, async (id, token) => {
    await core.projects.payTopUp(id, { token });
    return undefined;
  });

  // Payment-method setups: the answer that saves the card shows the workspace's first live key when the save issued
  // one, so that answer is the page itself, never cached, and no later view shows the key.
  tokenFormPage("/checkout/setup", core.projects.getSetup, setupPage, async (id, token) => {
    const outcome = await core.projects.completeSetup(id, { token });
    return outcome.live_api_key ? setupPage(outcome.session, { liveKey: outcome.live_api_key }) : undefined;
  });

  app.get("/checkout/:session", async (event) => {
    const view = await core.getCheckout(event.context.params?.session ?? "");
    return view ? render(view) : page(notFoundPage(), 404);
  });

  app.post("/checkout/:session", async (event) => {
    const id = event.context.params?.session ?? "";
    if (!sameOrigin(event, origin)) {
      return page(errorPage("This form can only be sent from its own checkout page."), 403);
    }
    const view = await core.getCheckout(id);
    if (!view) return page(notFoundPage(), 404);
    const form = await readForm(event);
    if (!form)
      return render(
        view,
        { notice: { kind: "error", text: "The form could not be read; send it again." } },
        400,
      );
    const buyer = {
      first_name: form.get("first_name") ?? "",
      ...(form.get("last_name") ? { last_name: form.get("last_name")! } : {}),
      email: form.get("email") ?? "",
    };
    const typed = {
      first_name: buyer.first_name,
      last_name: form.get("last_name") ?? "",
      email: buyer.email,
    };
    try {
      await core.completeCheckout({
        checkout_session_id: id,
        buyer,
        payment_data: { token: form.get("token") ?? "", provider: "form" },
      });
    } catch (error) {
      if (!CoreError.isInstance(error)) throw error;
      const current = (await core.getCheckout(id)) ?? view;
      if (error.code === "validation_failed") {
        const problems = Object.fromEntries(
          error.issues.map((issue) => [issue.path.replace(/^(buyer|payment_data)\./, ""), issue.message]),
        );
        return render(current, { form: typed, problems }, 422);
      }
      // Expired, canceled, or no card payments here: the page says where the session stands.
      return render(current, { notice: { kind: "error", text: error.message } }, 409);
    }
    // Post/redirect/get: a reload shows the outcome and never sends the payment again.
    return new Response(null, {
      status: 303,
      headers: { location: `${publicUrl}/checkout/${id}`, "cache-control": "no-store" },
    });
  });

  return app;
}

/**
 * A form post from this origin: the browser's Sec-Fetch-Site says same-origin (or none, typed by the person), or,
 * from a client without fetch metadata, Origin is this origin or absent.
 */
function sameOrigin(event: H3Event, origin: string): boolean {
  const site = event.req.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin" || site === "none";
  const sent = event.req.headers.get("origin");
  return sent === null || sent === origin;
}

async function readForm(event: H3Event): Promise<Map<string, string> | undefined> {
  const type = event.req.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return undefined;
  try {
    assertBodySize(event, MAX_FORM_BYTES);
  } catch {
    return undefined;
  }
  let text: string;
  try {
    text = await event.req.text();
  } catch (error) {
    // A body without a length is counted as it is read: past the limit, the read fails with 413.
    if (HTTPError.isError(error) && error.status === 413) return undefined;
    throw error;
  }
  if (text.length > MAX_FORM_BYTES) return undefined;
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) if (!fields.has(name)) fields.set(name, value);
  return fields;
}

function errorPage(text: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Checkout · Mailpiece</title></head><body><main><h1>Checkout</h1><p>${text}</p></main></body></html>`;
}

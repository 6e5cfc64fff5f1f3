import type { MailpieceCore, Principal } from "@mailpiece/core";
import { CoreError } from "@mailpiece/core";
import type { H3Event } from "h3";
import { getRequestIP, H3 } from "h3";
import { errorResponse, RESPONSE_HEADERS, toV1Error, V1Error } from "./errors.ts";
import type { RouteContext, V1Handler, V1Method } from "./route.ts";
import { approvalRoutes } from "./routes/approvals.ts";
import { creditRoutes } from "./routes/credits.ts";
import { documentRoutes } from "./routes/documents.ts";
import { draftRoutes } from "./routes/drafts.ts";
import { handwrittenRoutes } from "./routes/handwritten.ts";
import { keyRoutes } from "./routes/keys.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { orderRoutes } from "./routes/orders.ts";
import { quoteRoutes } from "./routes/quotes.ts";
import { returnReceiptRoutes } from "./routes/return-receipts.ts";
import { templateRoutes } from "./routes/templates.ts";
import { webhookRoutes } from "./routes/webhooks.ts";

export interface V1AppOptions {
  /** Absolute base URL of the deployment, for links in responses. */
  publicUrl: string;
  /** Take the client IP from X-Forwarded-For (only behind a proxy you trust that overwrites it). */
  trustProxy?: boolean;
  /** Requests one API key may make per window (default 120, spec 3); also failed keys per client IP per window. */
  requestsPerMinute?: number;
  /** The rate-limit window in milliseconds (default 60 000), on the core's clock. */
  windowMs?: number;
  /** Called with every unexpected error (never with a request body or header). */
  onUnexpectedError?: (error: unknown) => void;
}

export const V1_DEFAULTS = { requestsPerMinute: 120, windowMs: 60_000 } as const;

/** The path prefix of the Projects API. */
export const V1_BASE = "/api/v1";

/** The route modules, in order. A new resource (documents, quotes, orders, webhooks) is one more module here. */
const MODULES: readonly ((context: RouteContext) => void)[] = [
  keyRoutes,
  creditRoutes,
  documentRoutes,
  quoteRoutes,
  orderRoutes,
  draftRoutes,
  approvalRoutes,
  webhookRoutes,
  returnReceiptRoutes,
  templateRoutes,
  handwrittenRoutes,
  openApiRoutes,
];

/** A route of the Projects API: its method, its path under /api/v1 (with h3 parameters) and whether it takes a key. */
export interface V1Route {
  method: V1Method;
  /** Without the /api/v1 prefix: `/letters/:order_id`. */
  path: string;
  /** Takes no bearer key (the route's URL carries its own authorization, or the route is public). */
  public: boolean;
}

/**
 * Every route createV1App registers over `core`, in order: what each route module adds through its RouteContext
 * (GET routes answer HEAD too, and every known path OPTIONS; neither is listed). The OpenAPI description lists
 * the same set.
 */
export function listV1Routes(core: MailpieceCore, publicUrl = "http://127.0.0.1"): V1Route[] {
  const routes: V1Route[] = [];
  for (const add of MODULES) {
    add({
      core,
      publicUrl,
      route: (method, path) => routes.push({ method, path, public: false }),
      publicRoute: (method, path) => routes.push({ method, path, public: true }),
    });
  }
  return routes;
}

/** The bearer token of an Authorization header (scheme case-insensitive), or undefined for anything else. */
function bearerOf(header: string | null): string | undefined {
  return header === null ? undefined : /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/**
 * The Projects API (spec 3) at /api/v1 as an h3 app that mounts alone: an HTTP mapping over the core's workspace use
 * cases, the rules live in the core.
 *
 * Every route authenticates `Authorization: Bearer <key>` with the core (401 unauthorized with
 * `WWW-Authenticate: Bearer realm="api"`, or 403 forbidden for a live key of a workspace not yet live-enabled), then
 * counts the request against the key's limit (`requestsPerMinute` per `windowMs`, per key id; 429 rate_limited with
 * Retry-After and retry_after_seconds). Refused keys count per client IP: past the same limit a client is answered
 * 429 before its key is looked at, so keys cannot be guessed at speed. Both limits are the core's request limiters:
 * counted together by every process on a shared store, in this process's memory otherwise.
 *
 * An unknown path under /api/v1 is 404 not_found, and another method on a known path 405 method_not_allowed with
 * Allow, both without a key: the routes are public (spec 3), and a client can tell a typo from a bad key. Every
 * answer carries `Cache-Control: no-store`; errors are `{error, message, issues?}` (see errors.ts).
 */
export function createV1App(core: MailpieceCore, options: V1AppOptions): H3 {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const limit = options.requestsPerMinute ?? V1_DEFAULTS.requestsPerMinute;
  const windowMs = options.windowMs ?? V1_DEFAULTS.windowMs;
  const perKey = core.requestLimiter("v1-key", { limit, windowMs });
  const failedPerClient = core.requestLimiter("v1-refused-client", { limit, windowMs });
  const answerError = (error: unknown) => errorResponse(toV1Error(error, options.onUnexpectedError));
  const app = new H3({ onError: answerError });

  const clientOf = (event: H3Event) =>
    getRequestIP(event, { xForwardedFor: options.trustProxy === true }) ?? "unknown";

  /** The principal of the request's key, within its limits; throws unauthorized, forbidden or rate_limited. */
  const authorize = async (event: H3Event): Promise<Principal> => {
    const client = clientOf(event);
    const blocked = await failedPerClient.check(client);
    if (!blocked.allowed) {
      throw new V1Error(
        "rate_limited",
        `Too many requests with a missing or invalid API key from this client; try again in ${blocked.retryAfterSeconds} s.`,
        { retryAfterSeconds: blocked.retryAfterSeconds },
      );
    }
    let principal: Principal;
    try {
      principal = await core.workspaces.authenticate(bearerOf(event.req.headers.get("authorization")));
    } catch (error) {
      if (CoreError.isInstance(error) && (error.code === "unauthorized" || error.code === "forbidden")) {
        await failedPerClient.consume(client);
      }
      throw error;
    }
    const rate = await perKey.consume(principal.key_id);
    if (!rate.allowed) {
      throw new V1Error(
        "rate_limited",
        `This API key has used its ${limit} requests per ${Math.round(windowMs / 1000)} s; try again in ${rate.retryAfterSeconds} s.`,
        { retryAfterSeconds: rate.retryAfterSeconds },
      );
    }
    return principal;
  };

  /** Every path with the methods it answers, so that another method on it is 405 with Allow, not 404. */
  const routes = new Map<string, string[]>();
  /** Notes the methods a route of `method` on `full` answers (GET answers HEAD too), for the path's Allow. */
  const answered = (method: V1Method, full: string): (V1Method | "HEAD")[] => {
    const methods: (V1Method | "HEAD")[] = method === "GET" ? ["GET", "HEAD"] : [method];
    routes.set(full, [...(routes.get(full) ?? []), ...methods]);
    return methods;
  };
  const route = (method: V1Method, path: string, handler: V1Handler) => {
    const full = `${V1_BASE}${path}`;
    for (const each of answered(method, full)) {
      app.on(each, full, async (event) => {
        try {
          return finish(await handler(event, await authorize(event)));
        } catch (error) {
          return answerError(error);
        }
      });
    }
  };

  const publicRoute = (method: V1Method, path: string, handler: (event: H3Event) => unknown) => {
    const full = `${V1_BASE}${path}`;
    for (const each of answered(method, full)) {
      app.on(each, full, async (event) => {
        const client = clientOf(event);
        try {
          const blocked = await failedPerClient.check(client);
          if (!blocked.allowed) {
            throw new V1Error(
              "rate_limited",
              `Too many refused requests from this client; try again in ${blocked.retryAfterSeconds} s.`,
              {
                retryAfterSeconds: blocked.retryAfterSeconds,
              },
            );
          }
          return finish(await handler(event));
        } catch (error) {
          if (CoreError.isInstance(error) && error.code === "not_found")
            await failedPerClient.consume(client);
          return answerError(error);
        }
      });
    }
  };

  for (const add of MODULES) add({ core, publicUrl, route, publicRoute });

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
  const notFound = () => errorResponse(new V1Error("not_found", "No such route in the Projects API."));
  app.all(V1_BASE, notFound);
  app.all(`${V1_BASE}/**`, notFound);
  return app;
}

/** A handler's result as the answer: a Response as it is, anything else as JSON; never cached. */
function finish(result: unknown): Response {
  const response =
    result instanceof Response ? result : Response.json(result ?? null, { headers: RESPONSE_HEADERS });
  for (const [name, value] of Object.entries(RESPONSE_HEADERS)) response.headers.set(name, value);
  return response;
}

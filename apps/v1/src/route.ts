import type { MailpieceCore, Principal } from "@mailpiece/core";
import type { H3Event } from "h3";
import { RESPONSE_HEADERS } from "./errors.ts";

/** The methods a Projects API route answers. */
export type V1Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * A route's handler: called once the bearer key is authenticated and within its rate limit, with the key's
 * principal. It returns a Response, or a value answered as JSON with status 200. It throws V1Error, or a CoreError
 * from the use case it calls (mapped in errors.ts); anything else is an internal_error.
 */
export type V1Handler = (event: H3Event, principal: Principal) => unknown;

/** What a route module gets to add its routes: the core, the deployment's base URL and `route`. */
export interface RouteContext {
  core: MailpieceCore;
  /** Absolute base URL of the deployment, without a trailing slash, for links in responses. */
  publicUrl: string;
  /**
   * Adds a route under /api/v1: `route("GET", "/credits/balance", handler)` answers GET /api/v1/credits/balance.
   * Paths take h3 parameters (`/letters/:order_id`, read with `event.context.params`).
   */
  route(method: V1Method, path: string, handler: V1Handler): void;
  /**
   * Adds a route that takes no bearer key because the URL carries its own authorization (an upload URL's secret).
   * A request it answers with not_found counts against the client's budget of refused requests, as a bad key does.
   */
  publicRoute(method: V1Method, path: string, handler: (event: H3Event) => unknown): void;
}

/** The headers of a PDF answer: never cached, shown inline, never sniffed. */
export const RESPONSE_HEADERS_FOR_PDF: Readonly<Record<string, string>> = {
  ...RESPONSE_HEADERS,
  "content-type": "application/pdf",
  "content-disposition": "inline",
};

/** A JSON answer with `status` (and the headers every Projects API answer carries). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { ...RESPONSE_HEADERS, ...headers } });
}

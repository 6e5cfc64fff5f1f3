import type { ResponseChecker } from "./openapi-responses.ts";
import { responseChecker } from "./openapi-responses.ts";

/** Where an HTTP suite sends its requests: an in-process app or a deployment at a base URL. */
export interface HttpTarget {
  /** A human label for reports, e.g. "in-process" or the base URL. */
  label: string;
  /** Sends a request to `path` (starting with "/") on the target. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** A target for a running deployment. */
export function urlTarget(baseUrl: string): HttpTarget {
  const base = baseUrl.replace(/\/+$/, "");
  return { label: base, fetch: (path, init) => fetch(`${base}${path}`, init) };
}

/** A target for an app that answers Web requests in-process (an h3 app's `fetch`). */
export function appTarget(
  app: { fetch(request: Request): Response | Promise<Response> },
  label = "in-process",
): HttpTarget {
  return {
    label,
    fetch: async (path, init) => app.fetch(new Request(`http://127.0.0.1${path}`, init)),
  };
}

/**
 * A target whose every response is checked against the target's own OpenAPI description (GET /openapi.json,
 * fetched once): a response the description does not allow (an undocumented path, method, status, content type,
 * a missing required header, or a body that does not match its schema) fails the request with the reason.
 */
export function checkedTarget(target: HttpTarget): HttpTarget {
  let checker: Promise<ResponseChecker> | undefined;
  const load = async (): Promise<ResponseChecker> => {
    const res = await target.fetch("/openapi.json");
    if (res.status !== 200)
      throw new Error(`GET /openapi.json answered ${res.status}: no description to check with`);
    return responseChecker((await res.json()) as Record<string, unknown>);
  };
  return {
    label: target.label,
    async fetch(path, init) {
      checker ??= load();
      const response = await target.fetch(path, init);
      await (await checker).check(init?.method ?? "GET", path, response);
      return response;
    },
  };
}

/** A fetch handler served on 127.0.0.1, at `url`, until `close()`. */
export interface LoopbackServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a fetch handler on 127.0.0.1 at a free port (or at `port`), to run suites over real HTTP against an app
 * built in the test. The handler is called per request, so an app that needs its own public URL can be built once
 * `url` is known.
 */
export async function serveOnLoopback(
  fetch: (request: Request) => Response | Promise<Response>,
  port = 0,
): Promise<LoopbackServer> {
  const { serve } = await import("srvx");
  const running = serve({ fetch, hostname: "127.0.0.1", port, silent: true, gracefulShutdown: false });
  await running.ready();
  const address = running.node?.server?.address();
  if (typeof address !== "object" || !address) throw new Error("the loopback server has no port");
  return { url: `http://127.0.0.1:${address.port}`, close: () => running.close(true) };
}

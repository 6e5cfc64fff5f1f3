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

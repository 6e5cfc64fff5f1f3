import { type FacilitatorClient, HTTPFacilitatorClient } from "@x402/core/server";

export interface HttpFacilitatorOptions {
  /** Base URL of the facilitator; `/verify`, `/settle` and `/supported` are appended. */
  url: string;
  /** Per-request timeout in milliseconds (default 90 000). A settle that times out has an unknown outcome. */
  timeoutMs?: number;
  /** Headers sent with every request (for example an API key), or a function that makes them per request. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
}

/** A facilitator reached over HTTP. */
export type HttpFacilitator = FacilitatorClient & { readonly simulated: false; readonly url: string };

/** A production facilitator by URL, on the x402 reference HTTP client. */
export function createHttpFacilitator(options: HttpFacilitatorOptions): HttpFacilitator {
  const url = new URL(options.url);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`facilitator url must be http(s), got ${options.url}`);
  }
  const headers = options.headers;
  const client = new HTTPFacilitatorClient({
    url: url.href,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(headers === undefined
      ? {}
      : {
          createAuthHeaders: async () => {
            const h = typeof headers === "function" ? await headers() : headers;
            return { verify: h, settle: h, supported: h };
          },
        }),
  });
  return {
    simulated: false,
    url: client.url,
    verify: (payload, requirements) => client.verify(payload, requirements),
    settle: (payload, requirements) => client.settle(payload, requirements),
    getSupported: () => client.getSupported(),
  };
}

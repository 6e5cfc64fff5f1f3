import type { AdminOutbox } from "@mailpiece/admin";
import { createAdminApp } from "@mailpiece/admin";
import { createCheckoutApp } from "@mailpiece/checkout";
import type { MailpieceCore } from "@mailpiece/core";
import { answerMachineError, createMachineApp, errorAnswer } from "@mailpiece/machine";
import { createMcpApp } from "@mailpiece/mcp";
import { createTestDraftsApp } from "@mailpiece/test-drafts";
import { createUcpApp, type UcpAppOptions } from "@mailpiece/ucp";
import { createV1App, mergeV1OpenApi, v1OpenApi } from "@mailpiece/v1";
import { H3 } from "h3";
import type { Logger } from "./logger.ts";
import { errorFields } from "./logger.ts";

export interface ServerAppOptions {
  publicUrl: string;
  maxBodyBytes: number;
  /** Request body bytes held at once; default 96 MiB. */
  maxInflightBodyBytes?: number;
  trustProxy?: boolean;
  logger: Logger;
  version: string;
  /** Requests to /mcp (and to /ucp/mcp) one client may send per minute (default 600). */
  mcpRequestsPerMinute?: number;
  /** Enables the operator's admin API and dashboard; absent: they answer 404. */
  adminToken?: string;
  /** The email outbox (the default without SMTP), listed in the dashboard. */
  outbox?: AdminOutbox;
  /** UCP checkout: profile hosts admitted for development, and the signing key (see UcpAppOptions). */
  ucp?: Pick<UcpAppOptions, "profileHosts" | "signingKey" | "fetchProfile">;
}

/** Every surface of the reference deployment on one h3 app, plus /health and a JSON 404. */
export function createServerApp(
  core: MailpieceCore,
  options: ServerAppOptions,
): H3 & { close(): Promise<void> } {
  const { logger } = options;
  const onUnexpectedError = (error: unknown) => logger.error("unexpected error", errorFields(error));
  const app = new H3({
    onRequest(event) {
      (event.context as { startedAt?: number }).startedAt = performance.now();
    },
    onResponse(response, event) {
      const startedAt = (event.context as { startedAt?: number }).startedAt ?? performance.now();
      logger.info("request", {
        method: event.req.method,
        path: event.url.pathname,
        status: response.status,
        ms: Math.round((performance.now() - startedAt) * 10) / 10,
      });
    },
    onError: (error) => answerMachineError(error, onUnexpectedError),
  });

  app.get("/health", async (event) => {
    event.res.headers.set("cache-control", "no-store");
    const health = await core.health();
    if (health.ok) return { status: "ok", version: options.version };
    logger.error("health check failed", { failing: health.failing.join(",") });
    return errorAnswer(
      "store_unavailable",
      `The deployment cannot serve: its ${health.failing.map((part) => (part === "blobs" ? "document store" : "record store")).join(" and ")} does not answer.`,
    );
  });

  // Another method on /health is answered as on every listed path: OPTIONS with Allow, the rest 405 with Allow.
  const healthAllow = "GET, HEAD, OPTIONS";
  app.all("/health", (event) =>
    event.req.method === "OPTIONS"
      ? new Response(null, { status: 204, headers: { allow: healthAllow } })
      : errorAnswer("method_not_allowed", `/health answers ${healthAllow}.`, {
          headers: { allow: healthAllow },
        }),
  );

  const machine = createMachineApp(core, {
    publicUrl: options.publicUrl,
    maxBodyBytes: options.maxBodyBytes,
    ...(options.maxInflightBodyBytes === undefined
      ? {}
      : { maxInflightBodyBytes: options.maxInflightBodyBytes }),
    trustProxy: options.trustProxy === true,
    onUnexpectedError,
  });
  // One description of the whole deployment at /openapi.json: the machine API's own (with its headers), and the
  // Projects API's paths, components and key scheme added, so that a client discovers /api/v1 from it. Registered
  // before the machine app, whose own route it answers for.
  let description: string | undefined;
  app.get("/openapi.json", async (event) => {
    const own = await machine.fetch(new Request(event.req.url, { headers: event.req.headers }));
    if (own.status !== 200) return own;
    const machineDescription = (await own.json()) as Record<string, unknown>;
    description ??= JSON.stringify(
      mergeV1OpenApi(machineDescription, v1OpenApi({ publicUrl: options.publicUrl, limits: core.config })),
    );
    const headers = new Headers(own.headers);
    headers.delete("content-length");
    return new Response(description, { headers });
  });
  app.mount("", machine);

  // The agent tools (spec 1): MCP over streamable HTTP at /mcp, on the same core; UCP checkout on the same MCP host
  // settings, with the business profile at /.well-known/ucp and the checkout tools at /ucp/mcp.
  const host = {
    publicUrl: options.publicUrl,
    version: options.version,
    trustProxy: options.trustProxy === true,
    ...(options.mcpRequestsPerMinute === undefined
      ? {}
      : { requestsPerMinute: options.mcpRequestsPerMinute }),
    onUnexpectedError,
  };
  const mcp = createMcpApp(core, host);
  app.mount("", mcp);
  const ucp = createUcpApp(core, { ...host, ...options.ucp });
  app.mount("", ucp);
  // The Projects API (spec 3) for workspaces with API keys, and the operator's admin API and dashboard.
  app.mount(
    "",
    createV1App(core, {
      publicUrl: options.publicUrl,
      trustProxy: options.trustProxy === true,
      onUnexpectedError,
    }),
  );
  app.mount(
    "",
    createAdminApp(core, {
      publicUrl: options.publicUrl,
      trustProxy: options.trustProxy === true,
      onUnexpectedError,
      ...(options.adminToken ? { adminToken: options.adminToken } : {}),
      ...(options.outbox ? { outbox: options.outbox } : {}),
    }),
  );
  // The test-mode drafts of spec 3 at /v1/test: previews, zero-dollar quotes and fake lifecycles, never charged.
  app.mount(
    "",
    createTestDraftsApp(core.testDrafts, {
      publicUrl: options.publicUrl,
      trustProxy: options.trustProxy === true,
      onUnexpectedError,
    }),
  );
  // The hosted checkout of order drafts (spec 1: a draft's checkout_url).
  app.mount("", createCheckoutApp(core, { publicUrl: options.publicUrl, onUnexpectedError }));

  app.all("/**", () => errorAnswer("not_found", "No such resource."));
  return Object.assign(app, {
    close: async () => {
      await Promise.all([mcp.close(), ucp.close()]);
    },
  });
}

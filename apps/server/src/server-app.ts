import type { MailpieceCore } from "@mailpiece/core";
import { createMachineApp, errorResponse } from "@mailpiece/machine";
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
}

/** Every surface of the reference deployment on one h3 app, plus /health and a JSON 404. */
export function createServerApp(core: MailpieceCore, options: ServerAppOptions): H3 {
  const { logger } = options;
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
    onError(error) {
      if (error.status === 404) return errorResponse(404, "not_found", "No such resource.");
      if (error.status === 405)
        return errorResponse(405, "method_not_allowed", "This method is not allowed here.");
      logger.error("unexpected error", errorFields(error.cause ?? error));
      return errorResponse(
        500,
        "internal_error",
        "Something failed on our side; the request changed nothing.",
      );
    },
  });

  app.get("/health", async () => {
    try {
      await core.store.get("health:probe");
      return Response.json(
        { status: "ok", version: options.version },
        { headers: { "cache-control": "no-store" } },
      );
    } catch (error) {
      logger.error("health check failed", errorFields(error));
      return errorResponse(503, "internal_error", "The store is unavailable.");
    }
  });

  app.mount(
    "",
    createMachineApp(core, {
      publicUrl: options.publicUrl,
      maxBodyBytes: options.maxBodyBytes,
      ...(options.maxInflightBodyBytes === undefined
        ? {}
        : { maxInflightBodyBytes: options.maxInflightBodyBytes }),
      trustProxy: options.trustProxy === true,
      onUnexpectedError: (error) => logger.error("unexpected error", errorFields(error)),
    }),
  );

  app.all("/**", () => errorResponse(404, "not_found", "No such resource."));
  return app;
}

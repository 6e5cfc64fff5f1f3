import type { JsonWebKey } from "node:crypto";
import type { MailpieceCore } from "@mailpiece/core";
import { createSafeFetcher } from "@mailpiece/fetch-https";
import { createMcpHttpApp, type McpHttpApp, type McpHttpOptions } from "@mailpiece/mcp";
import { H3 } from "h3";
import {
  businessProfile,
  loadSigningKey,
  type SigningJwk,
  sharedPaymentTokenHandler,
} from "./business-profile.ts";
import { createProfileResolver } from "./platform-profile.ts";
import { SharedPaymentTokenConfig, SharedPaymentTokenInstrument } from "./schemas.ts";

export interface UcpAppOptions extends McpHttpOptions {
  version: string;
  /**
   * Platform profile hosts admitted although private or loopback, over http too (host[:port]; development and tests
   * only). Profiles are otherwise fetched over HTTPS from public addresses.
   */
  profileHosts?: string[];
  /** Fetches a platform profile instead of the safe fetcher (tests); rejects on any refusal. */
  fetchProfile?: (url: string) => Promise<Uint8Array>;
  /** How long a fetched platform profile is reused; default 5 minutes. */
  profileCacheMs?: number;
  /** The private EC P-256 JWK whose public half the profile lists; absent: one is made once and kept in the store. */
  signingKey?: JsonWebKey;
}

/** Largest platform profile read, and the time one fetch may take. */
const PROFILE_MAX_BYTES = 256 * 1024;
const PROFILE_TIMEOUT_MS = 5_000;

/**
 * The UCP checkout surface (spec 1): the business profile at /.well-known/ucp, the schemas of its payment handler
 * at /ucp/schemas, and the five checkout tools over MCP at /ucp/mcp, on the same drafts, hosted checkout and
 * checkout payments as the agent tools. The MCP server loads with the first session.
 */
export function createUcpApp(core: MailpieceCore, options: UcpAppOptions): McpHttpApp {
  const publicUrl = options.publicUrl.replace(/\/+$/, "");
  const fetcher =
    options.fetchProfile ??
    (() => {
      const safe = createSafeFetcher({
        anyPublicHost: true,
        accept: "application/json",
        maxBytes: PROFILE_MAX_BYTES,
        timeoutMs: PROFILE_TIMEOUT_MS,
        ...(options.profileHosts && options.profileHosts.length > 0
          ? { privateHosts: options.profileHosts }
          : {}),
      });
      return async (url: string) => (await safe.fetch(url)).bytes;
    })();
  const profiles = createProfileResolver({
    fetch: fetcher,
    ...(options.profileCacheMs === undefined ? {} : { cacheMs: options.profileCacheMs }),
  });
  const handlers = () => [sharedPaymentTokenHandler(publicUrl, core.rails.checkout?.simulated ?? true)];

  let signingKey: Promise<SigningJwk> | undefined;
  const signingKeys = async () => {
    signingKey ??= loadSigningKey(core.store, options.signingKey).catch((error: unknown) => {
      signingKey = undefined;
      throw error;
    });
    return [await signingKey];
  };

  const mcp = createMcpHttpApp(
    "/ucp/mcp",
    async (clientKey) =>
      (await import("./ucp-server.ts")).createUcpToolServer(
        {
          core,
          profiles,
          version: options.version,
          render: { publicUrl, handlers: handlers(), previewPath: (sha) => core.previewPath(sha) },
          ...(options.onUnexpectedError ? { onUnexpectedError: options.onUnexpectedError } : {}),
        },
        clientKey,
      ),
    options,
  );

  const app = new H3();
  app.get("/.well-known/ucp", async (event) => {
    event.res.headers.set("cache-control", "public, max-age=300");
    return businessProfile(publicUrl, { handlers: handlers(), signingKeys: await signingKeys() });
  });
  const schemas: Record<string, unknown> = {
    "shared-payment-token-instrument.json": SharedPaymentTokenInstrument,
    "shared-payment-token-config.json": SharedPaymentTokenConfig,
  };
  app.get("/ucp/schemas/:name", (event) => {
    const name = event.context.params?.name ?? "";
    // Own names only: "constructor" or "__proto__" is no schema.
    const schema = Object.hasOwn(schemas, name) ? schemas[name] : undefined;
    if (!schema) {
      return Response.json({ error: "not_found", message: "No such schema." }, { status: 404 });
    }
    event.res.headers.set("cache-control", "public, max-age=3600");
    return {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: `${publicUrl}/ucp/schemas/${name}`,
      ...JSON.parse(JSON.stringify(schema)),
    };
  });
  app.mount("", mcp);
  return Object.assign(app, { close: () => mcp.close() });
}

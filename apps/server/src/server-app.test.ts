import { createMailpieceCore } from "@mailpiece/core";
import type { Store } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";
import { createServerApp } from "./server-app.ts";

/** A record store whose every call fails, as a store behind a lost connection does. */
function unreachable(store: Store): Store {
  const fail = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:6379 password=hunter2"));
  return { ...store, get: fail, create: fail, put: fail, delete: fail, list: fail };
}

function appOver(store: Store, lines: string[]) {
  const core = createMailpieceCore({ store, blobs: createMemoryBlobStore() });
  return createServerApp(core, {
    publicUrl: "http://127.0.0.1:3000",
    maxBodyBytes: 64 * 1024,
    logger: createLogger("info", (line) => lines.push(line)),
    version: "test",
  });
}

describe("the server app", () => {
  it("/health asks the core: 200 with the version while the stores answer", async () => {
    const response = await appOver(createMemoryStore(), []).fetch(new Request("http://x/health"));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "ok", version: "test" });
  });

  it("/health is 503 store_unavailable, naming the failing part but no connection detail", async () => {
    const lines: string[] = [];
    const response = await appOver(unreachable(createMemoryStore()), lines).fetch(
      new Request("http://x/health"),
    );
    expect(response.status).toBe(503);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("store_unavailable");
    expect(body.message).toContain("record store");
    expect(JSON.stringify(body)).not.toMatch(/hunter2|6379/);
  });

  it("answers unknown paths with not_found, and methods /health does not take with method_not_allowed and Allow", async () => {
    const app = appOver(createMemoryStore(), []);
    const missing = await app.fetch(new Request("http://x/nowhere"));
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: string }).error).toBe("not_found");
    const method = await app.fetch(new Request("http://x/health", { method: "DELETE" }));
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    expect(((await method.json()) as { error: string }).error).toBe("method_not_allowed");
    const options = await app.fetch(new Request("http://x/health", { method: "OPTIONS" }));
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

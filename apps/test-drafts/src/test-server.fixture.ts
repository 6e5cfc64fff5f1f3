import { serveOnLoopback } from "@mailpiece/conformance";
import type { H3 } from "h3";
import { testDrafts } from "../../core/src/test-drafts/test-drafts.fixture.ts";
// The core's test drafts and their test support, from the core's sources: the core's public index composes them
// into `core.testDrafts`, which these tests stand in for.
import type { TestDraftsDeps } from "../../core/src/test-drafts/test-drafts.ts";
import type { TestDraftsService } from "./service.ts";
import type { TestDraftsAppOptions } from "./test-drafts-app.ts";
import { createTestDraftsApp } from "./test-drafts-app.ts";

/**
 * The test-mode draft endpoints on 127.0.0.1 over the core's test drafts on memory stores, a manual clock and
 * sequential ids. Unexpected errors are collected.
 */
export async function startTestDraftsServer(
  options: {
    deps?: Partial<TestDraftsDeps>;
    app?: Partial<Omit<TestDraftsAppOptions, "publicUrl">>;
    /** The service the app is given, made from the real one (to stand in for a failure no use case makes). */
    wrap?: (service: TestDraftsService) => TestDraftsService;
  } = {},
) {
  const drafts = testDrafts(options.deps);
  const unexpected: unknown[] = [];
  let app: H3 | undefined;
  const running = await serveOnLoopback((request) => app!.fetch(request));
  const base = running.url;
  app = createTestDraftsApp(options.wrap ? options.wrap(drafts.service) : drafts.service, {
    publicUrl: base,
    onUnexpectedError: (error) => unexpected.push(error),
    ...options.app,
  });
  /** A request to /v1/test + `path`. */
  const call = (path: string, init: RequestInit = {}) => fetch(`${base}/v1/test${path}`, init);
  /** A POST of `body` as JSON with `key` as the Idempotency-Key (none when undefined). */
  const post = (path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
    call(path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(key === undefined ? {} : { "idempotency-key": key }),
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  return { ...drafts, base, unexpected, call, post, close: () => running.close() };
}

export type TestDraftsServer = Awaited<ReturnType<typeof startTestDraftsServer>>;

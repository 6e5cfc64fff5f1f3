import { describe, expect, it } from "vitest";
import { appTarget } from "../machine/http-target.ts";
import { type RecordedRequest, recordingTarget, recordRequests, redactPath } from "./request-log.ts";

describe("redactPath", () => {
  it("hides tokens in path segments and secret query values, and keeps ids and the rest", () => {
    expect(redactPath("/api/machine/uploads/upl_o_z3F-sAaylETJB6-GxkUF0IttRaqHSN")).toBe(
      "/api/machine/uploads/upl_REDACTED",
    );
    expect(redactPath("/api/v1/keys/svc_test_abcdefghijklmnop1234")).toBe("/api/v1/keys/svc_test_REDACTED");
    expect(redactPath(`/p/${"x".repeat(40)}`)).toBe("/p/REDACTED");
    const id = "0b7f6a4e-8d7f-4c39-9a57-5f2b1c0e4d21";
    expect(redactPath(`/api/machine/orders/${id}`)).toBe(`/api/machine/orders/${id}`);
    expect(redactPath("/previews/x?expires=123&sig=abc&signature=d&page=2")).toBe(
      "/previews/x?expires=123&sig=REDACTED&signature=REDACTED&page=2",
    );
    expect(redactPath("/forms?q=tax&cursor=5")).toBe("/forms?q=tax&cursor=5");
  });
});

describe("recordingTarget", () => {
  const target = recordingTarget(appTarget({ fetch: () => new Response("ok", { status: 202 }) }));

  it("records method, path, status and the JSON-RPC call, never headers or the body", async () => {
    const requests: RecordedRequest[] = [];
    await recordRequests(requests, async () => {
      await target.fetch("/mcp", {
        method: "POST",
        headers: { authorization: "Bearer sk_live_secret" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "svc.ping", arguments: { password: "hunter2" } },
        }),
      });
      // Requests sent from calls the test starts are its own too.
      await Promise.all([target.fetch("/a"), target.fetch("/b", { method: "PUT", body: "plain" })]);
    });
    expect(requests).toEqual([
      { method: "POST", path: "/mcp", rpc: "tools/call svc.ping", status: 202 },
      { method: "GET", path: "/a", status: 202 },
      { method: "PUT", path: "/b", status: 202 },
    ]);
    expect(JSON.stringify(requests)).not.toMatch(/secret|hunter2/);
  });

  it("records nothing outside recordRequests, and keeps each run's requests apart", async () => {
    await target.fetch("/outside");
    const one: RecordedRequest[] = [];
    const two: RecordedRequest[] = [];
    await Promise.all([
      recordRequests(one, () => target.fetch("/one")),
      recordRequests(two, () => target.fetch("/two")),
    ]);
    expect(one.map((r) => r.path)).toEqual(["/one"]);
    expect(two.map((r) => r.path)).toEqual(["/two"]);
  });
});

import { describe, expect, it } from "vitest";
import { refusal } from "../projects/projects.fixture.ts";
import { memoryWebhooks, otherWorkspace, principal } from "./webhooks.fixture.ts";

describe("webhook endpoints", () => {
  it("are created with a whsec_ secret shown once and listed without it", async () => {
    const { webhooks, clock } = memoryWebhooks();
    const created = await webhooks.createEndpoint(principal, { url: "https://example.com/hooks?x=1" });
    expect(created).toEqual({
      object: "webhook_endpoint",
      id: expect.stringMatching(/^we_[0-9a-f]{32}$/),
      url: "https://example.com/hooks?x=1",
      status: "enabled",
      ed25519: false,
      public_key: null,
      created_at: new Date(clock.now()).toISOString(),
      disabled_at: null,
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.signing_secret.slice(6), "base64")).toHaveLength(32);
    const listed = await webhooks.listEndpoints(principal);
    const { signing_secret: _secret, ...view } = created;
    expect(listed).toEqual([view]);
    expect(JSON.stringify(listed)).not.toContain(created.signing_secret.slice(6));
    expect(await webhooks.listEndpoints(otherWorkspace)).toEqual([]);
  });

  it("may ask for ed25519 signatures: the view then shows the whpk_ public key, never the secret key", async () => {
    const { webhooks, store } = memoryWebhooks();
    const created = await webhooks.createEndpoint(principal, { url: "https://example.com/a", ed25519: true });
    expect(created.ed25519).toBe(true);
    expect(created.public_key).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(JSON.stringify(await webhooks.listEndpoints(principal))).not.toContain("whsk_");
    const stored = JSON.stringify((await store.get(`webhooks:${principal.workspace_id}`))?.value);
    expect(stored).toContain("whsk_");
  });

  it("refuse a URL that is not https, and every other bad field, at its path, changing nothing", async () => {
    const { webhooks } = memoryWebhooks();
    const issuesOf = async (body: unknown) => {
      const error = await refusal(webhooks.createEndpoint(principal, body));
      expect(error.code).toBe("validation_failed");
      return error.issues.map((issue) => [issue.path, issue.code]);
    };
    expect(await issuesOf({ url: "http://example.com/hooks" })).toEqual([["url", "url_not_https"]]);
    expect(await issuesOf({ url: "ftp://example.com/hooks" })).toEqual([["url", "url_not_https"]]);
    expect(await issuesOf({})).toEqual([["url", "required"]]);
    expect(await issuesOf({ url: "example.com/hooks" })).toEqual([["url", "invalid_url"]]);
    expect(await issuesOf({ url: 42 })).toEqual([["url", "invalid_url"]]);
    expect(await issuesOf({ url: `https://example.com/${"a".repeat(2100)}` })).toEqual([
      ["url", "invalid_url"],
    ]);
    expect(await issuesOf({ url: "https://user:pw@example.com/hooks" })).toEqual([["url", "invalid_url"]]);
    expect(await issuesOf({ url: "https://example.com/hooks", ed25519: "yes", events: ["*"] })).toEqual([
      ["events", "unknown_field"],
      ["ed25519", "invalid_type"],
    ]);
    expect(await issuesOf({ url: "https://private.example.test/hooks" })).toEqual([
      ["url", "address_not_public"],
    ]);
    expect(await issuesOf([1])).toEqual([["", "invalid_type"]]);
    expect(await webhooks.listEndpoints(principal)).toEqual([]);
  });

  it("are limited per workspace to the enabled maximum; a disabled one frees its place", async () => {
    const { webhooks } = memoryWebhooks({ maxEndpoints: 2 });
    const [first] = await Promise.all([
      webhooks.createEndpoint(principal, { url: "https://example.com/1" }),
      webhooks.createEndpoint(principal, { url: "https://example.com/2" }),
    ]);
    const error = await refusal(webhooks.createEndpoint(principal, { url: "https://example.com/3" }));
    expect(error.code).toBe("state_conflict");
    expect(await webhooks.listEndpoints(principal)).toHaveLength(2);
    await webhooks.createEndpoint(otherWorkspace, { url: "https://example.com/other" });
    await webhooks.disableEndpoint(principal, first.id);
    await webhooks.createEndpoint(principal, { url: "https://example.com/3" });
    expect((await webhooks.listEndpoints(principal)).map((e) => e.status)).toEqual([
      "disabled",
      "enabled",
      "enabled",
    ]);
  });

  it("keep at most the enabled maximum even when many are created at once", async () => {
    const { webhooks } = memoryWebhooks({ maxEndpoints: 3 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        webhooks.createEndpoint(principal, { url: `https://example.com/${i}` }),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
    expect(await webhooks.listEndpoints(principal)).toHaveLength(3);
  });

  it("are disabled once, and another workspace's endpoint is not_found", async () => {
    const { webhooks, clock } = memoryWebhooks();
    const created = await webhooks.createEndpoint(principal, { url: "https://example.com/hooks" });
    expect((await refusal(webhooks.disableEndpoint(otherWorkspace, created.id))).code).toBe("not_found");
    expect((await refusal(webhooks.disableEndpoint(principal, "we_nope"))).code).toBe("not_found");
    clock.advance(1000);
    const disabled = await webhooks.disableEndpoint(principal, created.id);
    expect(disabled).toMatchObject({ status: "disabled", disabled_at: new Date(clock.now()).toISOString() });
    clock.advance(1000);
    expect(await webhooks.disableEndpoint(principal, created.id)).toEqual(disabled);
  });

  it("rotate to a new secret shown once; a disabled endpoint cannot, another workspace's is not_found", async () => {
    const { webhooks } = memoryWebhooks();
    const created = await webhooks.createEndpoint(principal, { url: "https://example.com/hooks" });
    const rotated = await webhooks.rotateSecret(principal, created.id);
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.signing_secret).not.toBe(created.signing_secret);
    expect(rotated.id).toBe(created.id);
    expect((await refusal(webhooks.rotateSecret(otherWorkspace, created.id))).code).toBe("not_found");
    await webhooks.disableEndpoint(principal, created.id);
    const error = await refusal(webhooks.rotateSecret(principal, created.id));
    expect(error.code).toBe("state_conflict");
    expect(error.message).not.toContain(rotated.signing_secret.slice(6));
  });

  it("refuse options that are out of range when the use cases are made", () => {
    expect(() => memoryWebhooks({ retryScheduleMs: [0] })).toThrow(/retry delay/);
    expect(() => memoryWebhooks({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => memoryWebhooks({ maxEndpoints: 1.5 })).toThrow(/maxEndpoints/);
  });
});

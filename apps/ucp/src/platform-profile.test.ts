import type { JsonWebKey } from "node:crypto";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { loadSigningKey } from "./business-profile.ts";
import { jsonPath, UcpError } from "./errors.ts";
import { createProfileResolver, negotiate } from "./platform-profile.ts";

const PROFILE = {
  ucp: {
    version: "2026-01-11",
    capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2026-01-11" }],
  },
};
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(UcpError.isInstance(error), String(error)).toBe(true);
  return (error as UcpError).errors[0]!.code;
}

describe("createProfileResolver", () => {
  it("shares one fetch among concurrent calls and reuses the profile until the cache period ends", async () => {
    let now = 0;
    const fetched: string[] = [];
    const resolver = createProfileResolver({
      now: () => now,
      cacheMs: 1000,
      fetch: async (url) => {
        fetched.push(url);
        return bytes(PROFILE);
      },
    });
    const url = "https://agent.example/profile.json";
    const answers = await Promise.all([1, 2, 3].map(() => resolver.resolve(url)));
    expect(answers.every((a) => a.version === "2026-01-11")).toBe(true);
    expect(fetched).toEqual([url]);
    now = 999;
    await resolver.resolve(`${url}#fragment`);
    expect(fetched).toHaveLength(1);
    now = 1001;
    await resolver.resolve(url);
    expect(fetched).toHaveLength(2);
  });

  it("refuses a failed fetch for a while without asking again, then asks again", async () => {
    let now = 0;
    let calls = 0;
    const resolver = createProfileResolver({
      now: () => now,
      failureCacheMs: 100,
      fetch: async () => {
        calls++;
        throw Object.assign(new Error("refused"), { code: "address_not_public" });
      },
    });
    expect(await codeOf(resolver.resolve("https://a.example/p"))).toBe("profile_unreachable");
    expect(await codeOf(resolver.resolve("https://a.example/p"))).toBe("profile_unreachable");
    expect(calls).toBe(1);
    now = 101;
    await resolver.resolve("https://a.example/p").catch(() => undefined);
    expect(calls).toBe(2);
  });

  it("keeps at most maxEntries profiles, dropping the oldest", async () => {
    const fetched: string[] = [];
    const resolver = createProfileResolver({
      maxEntries: 2,
      fetch: async (url) => {
        fetched.push(url);
        return bytes(PROFILE);
      },
    });
    for (const name of ["a", "b", "c", "a"]) await resolver.resolve(`https://${name}.example/p`);
    expect(fetched.map((url) => new URL(url).hostname)).toEqual([
      "a.example",
      "b.example",
      "c.example",
      "a.example",
    ]);
  });

  it("refuses what is not a profile URL before fetching, and what is not a UCP profile after", async () => {
    const resolver = createProfileResolver({
      fetch: async (url) => {
        if (url.endsWith("/text")) return new TextEncoder().encode("<html>");
        if (url.endsWith("/version")) return bytes({ ucp: { version: "latest", capabilities: [] } });
        if (url.endsWith("/caps"))
          return bytes({ ucp: { version: "2026-01-11", capabilities: [{ name: 1 }] } });
        return bytes(PROFILE);
      },
    });
    for (const bad of [
      undefined,
      "",
      42,
      "ftp://a.example/p",
      "/relative",
      `https://a.example/${"x".repeat(2100)}`,
    ]) {
      const code = await codeOf(resolver.resolve(bad));
      expect(["missing_profile", "invalid_profile"], String(bad)).toContain(code);
    }
    for (const path of ["text", "version", "caps"]) {
      expect(await codeOf(resolver.resolve(`https://a.example/${path}`))).toBe("invalid_profile");
    }
  });
});

describe("negotiate", () => {
  it("serves this version and older ones, refuses newer ones and profiles without the checkout capability", () => {
    expect(negotiate(PROFILE.ucp)).toEqual({
      version: "2026-01-11",
      capabilities: [{ name: "dev.ucp.shopping.checkout", version: "2026-01-11" }],
    });
    expect(negotiate({ ...PROFILE.ucp, version: "2025-01-01" }).version).toBe("2026-01-11");
    expect(() => negotiate({ ...PROFILE.ucp, version: "2026-01-12" })).toThrow(/not supported/);
    expect(() => negotiate({ version: "2026-01-11", capabilities: [] })).toThrow(/dev.ucp.shopping.checkout/);
  });
});

describe("jsonPath", () => {
  it("names a core field path as a JSONPath under a root", () => {
    expect(jsonPath("")).toBe("$");
    expect(jsonPath("recipient_address_id", '$["svc.mailpiece"]')).toBe(
      '$["svc.mailpiece"].recipient_address_id',
    );
    expect(jsonPath("pdf.upload_token")).toBe("$.pdf.upload_token");
    expect(jsonPath("line_items.0.quantity")).toBe("$.line_items[0].quantity");
    expect(jsonPath("rows[3].name")).toBe("$.rows[3].name");
    expect(jsonPath("odd key.x")).toBe('$["odd key"].x');
    // A quoted key keeps its dots and brackets.
    expect(jsonPath('["svc.mailpiece"]')).toBe('$["svc.mailpiece"]');
    expect(jsonPath('extra["a.b"][2]["c]d"]')).toBe('$.extra["a.b"][2]["c]d"]');
  });
});

describe("loadSigningKey", () => {
  it("makes one key per store, also for concurrent callers, and publishes only its public half", async () => {
    const store = createMemoryStore();
    const keys = await Promise.all([1, 2, 3].map(() => loadSigningKey(store)));
    expect(new Set(keys.map((key) => key.kid)).size).toBe(1);
    expect(keys[0]).not.toHaveProperty("d");
    expect((await loadSigningKey(createMemoryStore())).kid).not.toBe(keys[0]!.kid);
  });

  it("publishes the configured key, named by its RFC 7638 thumbprint", async () => {
    const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    const key = await loadSigningKey(createMemoryStore(), jwk as JsonWebKey);
    expect(key).toMatchObject({ x: jwk.x, y: jwk.y, kty: "EC", crv: "P-256" });
    const canonical = JSON.stringify({ crv: "P-256", kty: "EC", x: jwk.x, y: jwk.y });
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical)));
    expect(key.kid).toBe(Buffer.from(digest).toString("base64url"));
  });
});

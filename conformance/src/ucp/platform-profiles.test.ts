import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PlatformProfileServer, servePlatformProfiles } from "./platform-profiles.ts";

let platform: PlatformProfileServer;
beforeAll(async () => {
  platform = await servePlatformProfiles();
});
afterAll(() => platform?.close());

describe("a platform publishing UCP profiles on 127.0.0.1", () => {
  it("serves each published profile as JSON at its own URL on its host", async () => {
    const first = { ucp: { version: "2026-01-11", capabilities: [] } };
    const second = { ucp: { version: "2099-01-01", capabilities: [] } };
    const a = platform.publish(first);
    const b = platform.publish(second);
    expect(a).not.toBe(b);
    expect(new URL(a).host).toBe(platform.host);
    expect(platform.host).toMatch(/^127\.0\.0\.1:\d+$/);
    const answer = await fetch(a);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect(await answer.json()).toEqual(first);
    expect(await (await fetch(b)).json()).toEqual(second);
  });

  it("answers 404 for a path it did not publish", async () => {
    const answer = await fetch(`${platform.url}/profiles/unknown.json`);
    expect(answer.status).toBe(404);
    await answer.body?.cancel();
  });
});

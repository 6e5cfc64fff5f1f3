import { describe, expect, it } from "vitest";
import { createPreviewSigner } from "./previews.ts";

const SHA = "a".repeat(64);
const OTHER = "b".repeat(64);
const TTL = 15 * 60_000;

describe("preview links", () => {
  it("last at least the configured time and at most a minute more", () => {
    const signer = createPreviewSigner("s".repeat(32), TTL);
    for (const now of [1_800_000_000_000, 1_800_000_000_001, 1_800_000_059_999]) {
      const { expiresAt, path } = signer.sign(SHA, now);
      expect(expiresAt).toBeGreaterThanOrEqual(now + TTL);
      expect(expiresAt).toBeLessThan(now + TTL + 60_000);
      expect(path).toContain(`expires=${expiresAt / 1000}&`);
      expect(
        signer.verify(SHA, String(expiresAt / 1000), new URL(path, "http://x").searchParams.get("sig"), now),
      ).toBe("ok");
    }
  });

  it("gives every link to a document made in one minute the same text, and other documents their own", () => {
    const signer = createPreviewSigner("s".repeat(32), TTL);
    const start = 1_800_000_000_000;
    const first = signer.sign(SHA, start + 1);
    expect(signer.sign(SHA, start + 59_000).path).toBe(first.path);
    expect(signer.sign(OTHER, start + 1).path).not.toBe(first.path);
    const later = signer.sign(SHA, start + 61_000);
    expect(later.expiresAt).toBe(first.expiresAt + 60_000);
    expect(later.path).not.toBe(first.path);
  });

  it("refuses a link signed with another secret, or for another document", () => {
    const signer = createPreviewSigner("s".repeat(32), TTL);
    const other = createPreviewSigner("t".repeat(32), TTL);
    const now = 1_800_000_000_000;
    const link = new URL(other.sign(SHA, now).path, "http://x").searchParams;
    expect(signer.verify(SHA, link.get("expires"), link.get("sig"), now)).toBe("invalid");
    const own = new URL(signer.sign(SHA, now).path, "http://x").searchParams;
    expect(signer.verify(OTHER, own.get("expires"), own.get("sig"), now)).toBe("invalid");
    expect(signer.verify(SHA, own.get("expires"), own.get("sig"), now + TTL + 61_000)).toBe("expired");
  });
});

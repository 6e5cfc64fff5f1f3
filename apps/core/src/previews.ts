import { createHmac, timingSafeEqual } from "node:crypto";

/** A signed, short-lived link to a document: `/api/machine/previews/<sha256>.pdf?expires=<unix s>&sig=<hex>`. */
export interface PreviewSigner {
  /** The path and query of a preview link for a stored document, valid for the configured time. */
  sign(sha256: string, now: number): { path: string; expiresAt: number };
  /** Whether a link is genuine and unexpired; compares signatures in constant time. */
  verify(
    sha256: string,
    expires: string | null,
    sig: string | null,
    now: number,
  ): "ok" | "expired" | "invalid";
}

export function createPreviewSigner(secret: string, ttlMs: number): PreviewSigner {
  const mac = (sha256: string, expires: number) =>
    createHmac("sha256", secret).update(`preview.v1.${sha256}.${expires}`).digest("hex");
  return {
    sign(sha256, now) {
      const expires = Math.floor((now + ttlMs) / 1000);
      return {
        path: `/api/machine/previews/${sha256}.pdf?expires=${expires}&sig=${mac(sha256, expires)}`,
        expiresAt: expires * 1000,
      };
    },
    verify(sha256, expires, sig, now) {
      if (
        !/^[0-9a-f]{64}$/.test(sha256) ||
        !expires ||
        !/^\d{1,12}$/.test(expires) ||
        !sig ||
        !/^[0-9a-f]{64}$/.test(sig)
      ) {
        return "invalid";
      }
      const expected = Buffer.from(mac(sha256, Number(expires)), "hex");
      const given = Buffer.from(sig, "hex");
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
      return Number(expires) * 1000 < now ? "expired" : "ok";
    },
  };
}

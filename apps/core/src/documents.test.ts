import { letterOrder, makePdf, pdfDataUrl } from "@mailpiece/conformance";
import { manualClock } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { ValidateOutcome } from "./core.ts";
import { createMailpieceCore } from "./core.ts";

const issuesOf = (outcome: ValidateOutcome) => (outcome.ok ? [] : (outcome.issues ?? []));

const postcard = (size: string, pdf: string, overrides: Record<string, unknown> = {}) =>
  letterOrder({ letter: undefined, mailpiece_type: "postcard", postcard_size: size, pdf, ...overrides });

describe("the document preflight cache", () => {
  it("keys a postcard check by its size: a 4x6 card that passed is refused as 6x9", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    try {
      const card = pdfDataUrl(await makePdf(2, [450, 306]));
      const asFourBySix = await core.validateOrder({ body: postcard("4x6", card) });
      expect(asFourBySix.ok).toBe(true);
      const asSixByNine = await core.validateOrder({ body: postcard("6x9", card) });
      expect(asSixByNine.ok).toBe(false);
      expect(issuesOf(asSixByNine)[0]).toMatchObject({ path: "pdf" });
      // And the other way round, with the 6x9 canvas checked first.
      const big = pdfDataUrl(await makePdf(2, [666, 450]));
      expect((await core.validateOrder({ body: postcard("6x9", big) })).ok).toBe(true);
      expect((await core.validateOrder({ body: postcard("4x6", big) })).ok).toBe(false);
    } finally {
      await core.close();
    }
  }, 60_000);
});

describe("postcard routes", () => {
  it("routes a postcard with a return address outside the US to the second provider instead of refusing it", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    try {
      const card = pdfDataUrl(await makePdf(2, [450, 306]));
      const outcome = await core.validateOrder({
        body: postcard("4x6", card, {
          sender_address_manual: {
            line1: "10 Downing Street",
            city: "London",
            zip: "SW1A 2AA",
            countryCode: "GB",
          },
          recipient_address_manual: {
            line1: "Unter den Linden 77",
            city: "Berlin",
            zip: "10117",
            countryCode: "DE",
          },
        }),
      });
      expect(issuesOf(outcome)).toEqual([]);
      expect(outcome.ok).toBe(true);
      if (!outcome.ok || outcome.view.object !== "order_validation") return;
      expect(outcome.view.postcard_route?.route).toBe("international_second");
    } finally {
      await core.close();
    }
  }, 60_000);
});

describe("previews of unpaid work", () => {
  it("keep a validated PDF only while its link works, then collect it", async () => {
    const clock = manualClock(Date.parse("2026-11-24T10:00:00Z"));
    const blobs = createMemoryBlobStore();
    const core = createMailpieceCore({
      store: createMemoryStore({ clock }),
      blobs,
      clock,
      config: { previewSecret: "preview-secret-of-at-least-thirty-two-bytes", previewTtlMs: 15 * 60_000 },
    });
    try {
      const outcome = await core.validateOrder({
        body: letterOrder({ letter: undefined, pdf: pdfDataUrl(await makePdf(1)) }),
      });
      if (!outcome.ok || outcome.view.object !== "order_validation") throw new Error("valid");
      const link = new URL(`https://mailpiece.test${outcome.view.preview_path}`);
      const sha256 = link.pathname
        .split("/")
        .at(-1)!
        .replace(/\.pdf$/, "");
      const open = () =>
        core.openPreview(sha256, link.searchParams.get("expires"), link.searchParams.get("sig"));
      expect((await open()).ok).toBe(true);
      // Nothing is ordered: the bytes are not kept as a document.
      expect(await blobs.head(`documents:${sha256}`)).toBeUndefined();
      await core.fulfil();
      expect((await open()).ok).toBe(true);
      clock.advance(30 * 60_000);
      await core.fulfil();
      expect(await blobs.head(`previews:${sha256}`)).toBeUndefined();
      expect(await open()).toEqual({ ok: false, reason: "expired" });
    } finally {
      await core.close();
    }
  }, 60_000);
});

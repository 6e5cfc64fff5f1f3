import { letterOrder, makePdf, pdfDataUrl } from "@mailpiece/conformance";
import type { Issue } from "@mailpiece/errors";
import { manualClock } from "@mailpiece/ports";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { ValidationView } from "./core.ts";
import { createMailpieceCore } from "./core.ts";
import { CoreError } from "./errors.ts";
import { refusalOf } from "./refusal.fixture.ts";

type Outcome = { ok: true; view: ValidationView } | { ok: false; issues: readonly Issue[] };

/** A validation as a value: the view, or the issues of the validation_failed it threw. */
const outcomeOf = (call: Promise<ValidationView>): Promise<Outcome> =>
  call.then(
    (view) => ({ ok: true, view }),
    (error: unknown) => {
      if (CoreError.isInstance(error) && error.code === "validation_failed")
        return { ok: false, issues: error.issues };
      throw error;
    },
  );
const issuesOf = (outcome: Outcome) => (outcome.ok ? [] : outcome.issues);
/** Whether a preview link opens. */
const opens = (call: Promise<Uint8Array>): Promise<boolean> =>
  call.then(
    () => true,
    (error: unknown) => {
      if (CoreError.isInstance(error)) return false;
      throw error;
    },
  );

const postcard = (size: string, pdf: string, overrides: Record<string, unknown> = {}) =>
  letterOrder({ letter: undefined, mailpiece_type: "postcard", postcard_size: size, pdf, ...overrides });

describe("the document preflight cache", () => {
  it("keys a postcard check by its size: a 4x6 card that passed is refused as 6x9", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    try {
      const card = pdfDataUrl(await makePdf(2, [450, 306]));
      const asFourBySix = await outcomeOf(core.validateOrder({ body: postcard("4x6", card) }));
      expect(asFourBySix.ok).toBe(true);
      const asSixByNine = await outcomeOf(core.validateOrder({ body: postcard("6x9", card) }));
      expect(asSixByNine.ok).toBe(false);
      expect(issuesOf(asSixByNine)[0]).toMatchObject({ path: "pdf" });
      // And the other way round, with the 6x9 canvas checked first.
      const big = pdfDataUrl(await makePdf(2, [666, 450]));
      expect((await outcomeOf(core.validateOrder({ body: postcard("6x9", big) }))).ok).toBe(true);
      expect((await outcomeOf(core.validateOrder({ body: postcard("4x6", big) }))).ok).toBe(false);
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
      const outcome = await outcomeOf(
        core.validateOrder({
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
        }),
      );
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
      const outcome = await outcomeOf(
        core.validateOrder({
          body: letterOrder({ letter: undefined, pdf: pdfDataUrl(await makePdf(1)) }),
        }),
      );
      if (!outcome.ok || outcome.view.object !== "order_validation") throw new Error("valid");
      const link = new URL(`https://mailpiece.test${outcome.view.preview_path}`);
      const sha256 = link.pathname
        .split("/")
        .at(-1)!
        .replace(/\.pdf$/, "");
      const open = () =>
        core.openPreview(sha256, link.searchParams.get("expires"), link.searchParams.get("sig"));
      expect(await opens(open())).toBe(true);
      // Nothing is ordered: the bytes are not kept as a document.
      expect(await blobs.head(`documents:${sha256}`)).toBeUndefined();
      await core.fulfil();
      expect(await opens(open())).toBe(true);
      clock.advance(30 * 60_000);
      await core.fulfil();
      expect(await blobs.head(`previews:${sha256}`)).toBeUndefined();
      expect(await refusalOf(open())).toMatchObject({
        code: "preview_link_invalid",
        message: expect.stringContaining("expired"),
      });
    } finally {
      await core.close();
    }
  }, 60_000);
});

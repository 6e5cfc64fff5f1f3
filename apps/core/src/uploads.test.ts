import { makePdf } from "@mailpiece/conformance";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import { createMailpieceCore } from "./core.ts";
import { displayName, MAX_DISPLAY_NAME } from "./display-name.ts";
import { refusalOf } from "./refusal.fixture.ts";

describe("displayName", () => {
  it("keeps the last path segment, without controls, direction overrides or invisible marks", () => {
    expect(displayName("../../../../etc/passwd")).toBe("passwd");
    expect(displayName("C:\\Users\\ada\\letter.pdf")).toBe("letter.pdf");
    expect(displayName("in\u0000voice.pdf")).toBe("invoice.pdf");
    expect(displayName("invoice\u202Efdp.exe")).toBe("invoicefdp.exe");
    expect(displayName("\u200Bhidden\u2066.pdf")).toBe("hidden.pdf");
    expect(displayName("bad\ud800name.pdf")).toBe("badname.pdf");
    expect(displayName("Zoe\u0308.pdf")).toBe("Zoë.pdf");
  });

  it("falls back for names that clean to nothing, and never starts with a dot", () => {
    expect(displayName("")).toBe("document.pdf");
    expect(displayName("../..")).toBe("document.pdf");
    expect(displayName("\u0000\u202E")).toBe("document.pdf");
    expect(displayName(".hidden.pdf")).toBe("hidden.pdf");
  });

  it("bounds a long name and keeps its extension", () => {
    const name = displayName(`${"a".repeat(100_000)}.pdf`);
    expect([...name].length).toBeLessThanOrEqual(MAX_DISPLAY_NAME);
    expect(name.endsWith(".pdf")).toBe(true);
    expect([...displayName("😀".repeat(500))].length).toBeLessThanOrEqual(MAX_DISPLAY_NAME);
  });
});

describe("upload slots", () => {
  const slot = (clientKey: string, content_length = 1000, file_name = "letter.pdf") => ({
    file_name,
    content_type: "application/pdf",
    content_length,
    clientKey,
  });

  it("stores the cleaned display name and echoes it on upload", async () => {
    const core = createMailpieceCore({ store: createMemoryStore(), blobs: createMemoryBlobStore() });
    try {
      const opened = await core.createUpload(
        slot("198.51.100.1", 10_000, "../../../../etc/passwd\u202E.pdf"),
      );
      const filled = await core.fillUpload(opened.upload_token, await makePdf(1));
      expect(filled.file_name).toBe("passwd.pdf");
    } finally {
      await core.close();
    }
  });

  it("counts slots and declared bytes per client, refusing past either budget before storing anything", async () => {
    const store = createMemoryStore();
    const core = createMailpieceCore({
      store,
      blobs: createMemoryBlobStore(),
      config: {
        uploadLimits: {
          slots: { limit: 3, windowMs: 3_600_000 },
          bytes: { limit: 250_000, windowMs: 3_600_000 },
        },
      },
    });
    try {
      for (let i = 0; i < 3; i++) await core.createUpload(slot("198.51.100.1"));
      const refused = await refusalOf(core.createUpload(slot("198.51.100.1")));
      expect(refused.code).toBe("rate_limited");
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      // Bytes: one large slot fits, the next one passes the budget.
      await core.createUpload(slot("198.51.100.2", 200_000));
      expect((await refusalOf(core.createUpload(slot("198.51.100.2", 100_000)))).code).toBe("rate_limited");
      await core.createUpload(slot("198.51.100.2", 50_000));
      const stored = await store.list("uploads:", { limit: 100 });
      expect(stored.records).toHaveLength(5);
    } finally {
      await core.close();
    }
  });
});

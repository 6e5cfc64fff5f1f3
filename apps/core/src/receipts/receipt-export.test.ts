import type { BlobStore } from "@mailpiece/ports";
import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { runQueue } from "../job-runner.ts";
import { refusal } from "../projects/projects.fixture.ts";
import {
  bareSetup,
  deliveredLetter,
  readAll,
  receiptProvider,
  T0,
  tinyPdf,
  unzip,
} from "./receipts.fixture.ts";
import { createReturnReceipts } from "./return-receipts.ts";

const MINUTE = 60_000;
const MINE = { workspace_id: "ws_mine", mode: "test" as const };
const OTHER = { workspace_id: "ws_other", mode: "test" as const };
const signedAt = (n: number) => new Date(T0 + n * MINUTE).toISOString();
/** Signer names, some of them hard for a CSV file: a comma, quotes, a formula. */
const signerOf = (n: number) =>
  n === 7 ? 'Doe, "Jane"' : n === 8 ? '=HYPERLINK("http://example.com")' : `Signer ${n}`;

/**
 * `count` delivered letters of MINE (and two of OTHER) whose receipts are stored, signed a minute apart, noted in a
 * shuffled order. The blob store streams each PDF in two parts and records which were opened.
 */
async function stored(count: number) {
  const base = bareSetup();
  const opened: string[] = [];
  const blobs: BlobStore = {
    ...base.blobs,
    getStream: async (key) => {
      opened.push(key);
      const blob = await base.blobs.get(key);
      if (!blob) return undefined;
      const cut = Math.floor(blob.bytes.byteLength / 2);
      return {
        info: blob.info,
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(blob.bytes.slice(0, cut));
            controller.enqueue(blob.bytes.slice(cut));
            controller.close();
          },
        }),
      };
    },
  };
  const provider = receiptProvider();
  const receipts = createReturnReceipts({ ...base, blobs, providers: [provider] });
  const order = Array.from({ length: count }, (_, n) => n).sort(
    (a, b) => ((a * 7919) % count) - ((b * 7919) % count),
  );
  for (const n of order) {
    provider.receipts.set(`job-${n}`, {
      pdf: tinyPdf(`n${n}`),
      tracking_number: `9407 1000 ${n}`,
      signed_at: signedAt(n),
      signer_name: signerOf(n),
    });
    await receipts.noteDelivered(deliveredLetter(`order-${n}`, MINE, provider.name, `job-${n}`));
  }
  for (const n of [0, 1]) {
    provider.receipts.set(`other-${n}`, {
      pdf: tinyPdf(`other${n}`),
      tracking_number: `other ${n}`,
      signed_at: signedAt(n),
      signer_name: "Someone Else",
    });
    await receipts.noteDelivered(deliveredLetter(`other-${n}`, OTHER, provider.name, `other-${n}`));
  }
  await runQueue(base.jobs, receipts.work, { owner: "test", leaseMs: 10_000, batch: 50, parallel: 8 });
  return { ...base, receipts, opened };
}

const manifestRows = (csv: string) =>
  Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });

describe("the receipts export", () => {
  it("streams 500 receipts with a manifest, oldest signed first, read back with yauzl; the rest with the cursor", async () => {
    const { receipts, opened } = await stored(503);
    const archive = await receipts.exportZip(MINE);
    expect(archive).toMatchObject({ count: 500, file_name: "return-receipts.zip" });
    expect(archive.next_cursor).toEqual(expect.any(String));

    // Built as it is read: the first bytes come before most PDFs are even opened.
    const reader = archive.stream.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    expect(opened.length).toBeLessThanOrEqual(2);
    const parts = [Buffer.from(first.value!)];
    for (let part = await reader.read(); !part.done; part = await reader.read())
      parts.push(Buffer.from(part.value));
    expect(opened).toHaveLength(500);

    const files = await unzip(Buffer.concat(parts));
    expect(files.size).toBe(501);
    const manifest = files.get("manifest.csv")!.bytes.toString("utf8");
    expect(manifest.split("\r\n")[0]).toBe("order_id,tracking_number,signed_at,signer_name,file_name");
    const parsed = manifestRows(manifest);
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toHaveLength(500);
    parsed.data.forEach((row, n) => {
      expect(row).toEqual({
        order_id: `order-${n}`,
        tracking_number: `9407 1000 ${n}`,
        signed_at: signedAt(n),
        signer_name: n === 8 ? `'${signerOf(n)}` : signerOf(n),
        file_name: `receipts/order-${n}.pdf`,
      });
      const file = files.get(row.file_name!);
      expect(file?.bytes.toString()).toBe(Buffer.from(tinyPdf(`n${n}`)).toString());
    });
    expect(files.get("receipts/order-8.pdf")?.modified.getUTCMinutes()).toBe(8);

    const rest = await receipts.exportZip(MINE, { cursor: archive.next_cursor! });
    expect(rest).toMatchObject({ count: 3, next_cursor: null });
    const restRows = manifestRows(
      (await unzip(await readAll(rest.stream))).get("manifest.csv")!.bytes.toString(),
    );
    expect(restRows.data.map((row) => row.order_id)).toEqual(["order-500", "order-501", "order-502"]);
  });

  it("takes a smaller limit and a range of signing times, and only the caller's workspace", async () => {
    const { receipts } = await stored(30);
    const first = await receipts.exportZip(MINE, { limit: "4" });
    expect(first.count).toBe(4);
    const second = await receipts.exportZip(MINE, { limit: 4, cursor: first.next_cursor! });
    const names = async (archive: typeof first) =>
      [...(await unzip(await readAll(archive.stream))).keys()].filter((name) => name !== "manifest.csv");
    expect(await names(second)).toEqual([4, 5, 6, 7].map((n) => `receipts/order-${n}.pdf`));

    const range = await receipts.exportZip(MINE, { from: signedAt(10), to: signedAt(20) });
    expect(range).toMatchObject({ count: 10, next_cursor: null });
    expect(await names(range)).toEqual(Array.from({ length: 10 }, (_, n) => `receipts/order-${n + 10}.pdf`));
    expect((await receipts.exportZip(MINE, { from: "2026-03-03" })).count).toBe(0);
    expect((await receipts.exportZip(MINE, { to: "2026-03-02" })).count).toBe(0);

    const other = await receipts.exportZip(OTHER);
    expect(await names(other)).toEqual(["receipts/other-0.pdf", "receipts/other-1.pdf"]);
    const empty = await receipts.exportZip({ workspace_id: "ws_none", mode: "test" });
    expect(empty).toMatchObject({ count: 0, next_cursor: null });
    const files = await unzip(await readAll(empty.stream));
    expect([...files.keys()]).toEqual(["manifest.csv"]);
    expect(files.get("manifest.csv")!.bytes.toString()).toBe(
      "order_id,tracking_number,signed_at,signer_name,file_name\r\n",
    );
  });

  it("refuses more than 500 receipts per archive and every bad parameter, naming each", async () => {
    const { receipts } = await stored(2);
    for (const limit of [501, "501", 0, 2.5, "ten"]) {
      const error = await refusal(receipts.exportZip(MINE, { limit }));
      expect(error.code).toBe("invalid_query");
      expect(error.issues).toEqual([expect.objectContaining({ path: "limit", code: "invalid_limit" })]);
    }
    const error = await refusal(
      receipts.exportZip(MINE, { limit: 1000, cursor: "not a cursor", from: "yesterday", to: "2026-13-45" }),
    );
    expect(error.issues?.map((issue) => [issue.path, issue.code])).toEqual([
      ["limit", "invalid_limit"],
      ["cursor", "invalid_cursor"],
      ["from", "invalid_date_time"],
      ["to", "invalid_date_time"],
    ]);
    const backwards = await refusal(receipts.exportZip(MINE, { from: "2026-03-02", to: "2026-03-01" }));
    expect(backwards.issues).toEqual([expect.objectContaining({ path: "to", code: "invalid_range" })]);
  });

  it("leaves out a receipt deleted while the archive is read, from the files and the manifest", async () => {
    const { receipts, blobs } = await stored(3);
    const archive = await receipts.exportZip(MINE);
    await blobs.delete("receipts:order-1");
    const files = await unzip(await readAll(archive.stream));
    expect([...files.keys()]).toEqual(["receipts/order-0.pdf", "receipts/order-2.pdf", "manifest.csv"]);
    expect(manifestRows(files.get("manifest.csv")!.bytes.toString()).data.map((row) => row.order_id)).toEqual(
      ["order-0", "order-2"],
    );
  });
});

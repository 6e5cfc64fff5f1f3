import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { TEMP_PREFIX } from "./atomic-fs-driver.ts";
import { startCrashChild } from "./crash-child.fixture.ts";
import type { CrashRecord } from "./crash-writer.fixture.ts";
import { BLOB_KEYS, blobGeneration, RECORD_KEYS, recordSum } from "./crash-writer.fixture.ts";
import { createFileBlobStore, createFileStore } from "./file-store.ts";

const ROUNDS = 12;
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function countTempFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((entry) => entry.split("/").pop()?.startsWith(TEMP_PREFIX)).length;
}

/** The highest version / generation the child acknowledged per key, over every round so far. */
function recordAcks(lines: string[], acked: Map<string, number>): number {
  let count = 0;
  for (const line of lines) {
    const [kind, key, number] = line.split(" ");
    if ((kind !== "rec" && kind !== "blob") || !key) continue;
    acked.set(key, Math.max(acked.get(key) ?? 0, Number(number)));
    count += 1;
  }
  return count;
}

describe("file store under kill -9", () => {
  it("leaves every record and blob readable, self-consistent and at least as new as acknowledged", async () => {
    const root = await mkdtemp(join(tmpdir(), "mailpiece-crash-"));
    roots.push(root);
    const recordsDir = join(root, "records");
    const blobsDir = join(root, "blobs");
    const acked = new Map<string, number>();
    /** The version or generation found per key after the previous kill. */
    const seen = new Map<string, number>();
    const recordKeys = RECORD_KEYS.flat();
    const blobKeys = BLOB_KEYS.flat();
    let acknowledgedWrites = 0;
    let tempFilesFound = 0;

    for (let round = 0; round < ROUNDS; round++) {
      const child = startCrashChild(["write", recordsDir, blobsDir]);
      if (round % 3 === 2) {
        // Kill at a random moment from the start, possibly while it opens the stores and cleans up.
        await sleep(Math.floor(Math.random() * 600));
      } else {
        await child.ready;
        await sleep(50 + Math.floor(Math.random() * 400));
      }
      child.process.kill("SIGKILL");
      const ended = await child.ended;
      expect(ended.signal, `round ${round}: the child ran until killed; stderr: ${ended.stderr}`).toBe(
        "SIGKILL",
      );
      acknowledgedWrites += recordAcks(child.lines, acked);
      tempFilesFound += await countTempFiles(root);

      const store = await createFileStore({ dir: recordsDir });
      const blobs = await createFileBlobStore({ dir: blobsDir });
      try {
        expect(await countTempFiles(root), "opening removes leftover temporary files").toBe(0);
        const listed = await store.list<CrashRecord>("rec:", { limit: 1000 });
        const listedKeys = listed.records.map((r) => r.key);
        for (const key of recordKeys) {
          const record = await store.get<CrashRecord>(key);
          const ack = acked.get(key) ?? 0;
          if (!record) {
            expect(ack, `round ${round}: ${key} was acknowledged, so it exists`).toBe(0);
            expect(listedKeys).not.toContain(key);
            continue;
          }
          const value = record.value;
          expect(value.key, `round ${round}: ${key} holds its own value`).toBe(key);
          expect(value.sum, `round ${round}: ${key} is self-consistent`).toBe(
            recordSum(value.key, value.n, value.payload),
          );
          expect(value.n, `round ${round}: ${key}'s value matches its version`).toBe(record.version);
          expect(
            record.version,
            `round ${round}: ${key} keeps every acknowledged write`,
          ).toBeGreaterThanOrEqual(ack);
          // A write can land unacknowledged (killed between the write and its line), and the next round's child
          // reads it and writes on top: at most one write past what was acknowledged or seen after the last kill.
          const floor = Math.max(ack, seen.get(key) ?? 0);
          expect(record.version, `round ${round}: ${key} holds a value that was written`).toBeLessThanOrEqual(
            floor + 1,
          );
          seen.set(key, record.version);
          expect(listedKeys).toContain(key);
        }
        for (const key of blobKeys) {
          const blob = await blobs.get(key);
          const ack = acked.get(key) ?? 0;
          if (!blob) {
            expect(ack, `round ${round}: ${key} was acknowledged, so it exists`).toBe(0);
            continue;
          }
          const generation = blobGeneration(blob.bytes);
          expect(generation, `round ${round}: ${key} is self-consistent`).toBeDefined();
          expect(blob.info.sha256).toBe(createHash("sha256").update(blob.bytes).digest("hex"));
          expect(blob.info.size).toBe(blob.bytes.byteLength);
          expect(generation, `round ${round}: ${key} keeps every acknowledged write`).toBeGreaterThanOrEqual(
            ack,
          );
          const floor = Math.max(ack, seen.get(key) ?? 0);
          expect(generation, `round ${round}: ${key} holds a blob that was written`).toBeLessThanOrEqual(
            floor + 1,
          );
          seen.set(key, generation!);
          expect(await blobs.head(key)).toEqual(blob.info);
        }
      } finally {
        await store.close();
        await blobs.close();
      }
    }
    // The rounds did real work: writes were acknowledged before the kills.
    expect(acknowledgedWrites).toBeGreaterThan(ROUNDS);
    console.info(
      `[crash test] ${ROUNDS} rounds, ${acknowledgedWrites} acknowledged writes, ${tempFilesFound} temporary files left by kills`,
    );
  }, 120_000);
});

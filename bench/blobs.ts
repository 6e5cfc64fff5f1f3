import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createS3BlobStore } from "../adapters/blob-s3/src/index.ts";
import {
  measureStreamMemory,
  type StepMemory,
  type StreamMemoryPlan,
} from "../adapters/blob-s3/src/stream-memory.fixture.ts";
import type { BlobStore } from "../adapters/ports/src/index.ts";
import { MAX_BLOB_BYTES } from "../adapters/ports/src/index.ts";
import { createFileBlobStore } from "../adapters/store-unstorage/src/index.ts";
import { type S3rver, startS3rver } from "../conformance/src/servers/s3-server.ts";
import { table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "3");
const SMALL = 1024 * 1024;
const MiB = 2 ** 20;

interface BlobKind {
  name: string;
  /** Opens a fresh store in this process. */
  open(): Promise<{ blobs: BlobStore; dispose(): Promise<void> }>;
  /** How stream-memory-child.fixture.ts opens the same kind of store in its own process. */
  plan(): Omit<StreamMemoryPlan, "bytes" | "collectEveryBytes">;
}

function kinds(server: S3rver, dirs: string[]): BlobKind[] {
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "mailpiece-bench-blobs-"));
    dirs.push(dir);
    return dir;
  };
  const s3Options = () => ({
    bucket: server.bucket,
    region: server.region,
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    prefix: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}/`,
  });
  return [
    {
      name: "file (baseline)",
      async open() {
        const blobs = await createFileBlobStore({ dir: freshDir() });
        return { blobs, dispose: () => blobs.close() };
      },
      plan: () => ({
        module: new URL("../adapters/store-unstorage/src/index.ts", import.meta.url).href,
        export: "createFileBlobStore",
        options: { dir: freshDir() },
      }),
    },
    {
      name: "s3 on s3rver",
      async open() {
        const blobs = createS3BlobStore(s3Options());
        return { blobs, dispose: () => blobs.close() };
      },
      plan: () => ({
        module: new URL("../adapters/blob-s3/src/index.ts", import.meta.url).href,
        export: "createS3BlobStore",
        options: s3Options(),
      }),
    },
  ];
}

/** Sequential calls of `step` for `seconds`; calls per second. */
async function rate(seconds: number, step: (n: number) => Promise<void>): Promise<number> {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let n = 0;
  while (performance.now() < deadline) await step(n++);
  return n / ((performance.now() - start) / 1000);
}

/** 1 MiB puts and gets per second, one caller, on 10 keys in turn. */
async function smallRates(kind: BlobKind, seconds: number): Promise<{ put: number; get: number }> {
  const { blobs, dispose } = await kind.open();
  const bytes = new Uint8Array(SMALL).map((_, i) => (i * 131 + 17) & 0xff);
  try {
    const put = await rate(seconds, async (n) => {
      await blobs.put(`small-${n % 10}`, bytes, { contentType: "application/pdf" });
    });
    const get = await rate(seconds, async (n) => {
      const blob = await blobs.get(`small-${n % 10}`);
      if (blob?.bytes.byteLength !== SMALL) throw new Error("the 1 MiB blob did not come back");
    });
    return { put, get };
  } finally {
    await dispose();
  }
}

const ratio = (value: number, baseline: number) => (value / baseline).toFixed(2);
const ofBlob = (growth: number | null) => (growth === null ? "n/a" : (growth / MAX_BLOB_BYTES).toFixed(2));
const mib = (bytes: number | null) => (bytes === null ? "n/a" : (bytes / MiB).toFixed(1));

/**
 * The S3 blob store on s3rver (a local S3-compatible server in its own process) against the embedded file blob
 * store, in the same run: 1 MiB put and get rates, and a 100 MiB blob (MAX_BLOB_BYTES) written from a stream of
 * 256 KiB chunks and
 * read back, each in a fresh process (putStream and getStream on S3; put of the joined chunks and get on the file
 * store, which has no stream methods), with its time and its peak memory growth as a ratio to the blob's size. The
 * natural peaks depend on when V8 collects; the held peaks collect garbage once per MiB passed.
 */
export async function benchBlobs(): Promise<string> {
  const server = await startS3rver();
  const dirs: string[] = [];
  try {
    const [file, s3] = kinds(server, dirs) as [BlobKind, BlobKind];
    // Warm-up, not counted.
    await smallRates(file, 0.3);
    await smallRates(s3, 0.3);
    const fileSmall = await smallRates(file, SECONDS);
    const s3Small = await smallRates(s3, SECONDS);

    const small: (string | number)[][] = [
      ["1 MiB blob", "store", "calls/s", "ratio to file (rate)"],
      ["put", file.name, fileSmall.put.toFixed(0), "1.00"],
      ["put", s3.name, s3Small.put.toFixed(0), ratio(s3Small.put, fileSmall.put)],
      ["get", file.name, fileSmall.get.toFixed(0), "1.00"],
      ["get", s3.name, s3Small.get.toFixed(0), ratio(s3Small.get, fileSmall.get)],
    ];

    const large: (string | number)[][] = [
      [
        "100 MiB blob",
        "store",
        "memory",
        "s",
        "ratio to file (time)",
        "peak RSS growth MiB",
        "/ blob",
        "peak arrayBuffers growth MiB",
        "/ blob",
      ],
    ];
    for (const [memory, collectEveryBytes] of [
      ["natural", undefined],
      ["held", MiB],
    ] as const) {
      const reports = [];
      for (const kind of [file, s3]) {
        const report = await measureStreamMemory({
          ...kind.plan(),
          bytes: MAX_BLOB_BYTES,
          collectEveryBytes,
        });
        if (report.read.sha256 !== report.sha256 || report.write.info.sha256 !== report.sha256) {
          throw new Error(`${kind.name}: the 100 MB blob did not come back whole`);
        }
        reports.push({ kind, report });
      }
      const [baseline] = reports;
      for (const { kind, report } of reports) {
        for (const step of ["write", "read"] as const) {
          const figures: StepMemory = report[step];
          const how = report.streamed
            ? step === "write"
              ? "putStream"
              : "getStream"
            : step === "write"
              ? "put"
              : "get";
          large.push([
            `${step} (${how})`,
            kind.name,
            memory,
            (figures.ms / 1000).toFixed(2),
            ratio(figures.ms, baseline?.report[step].ms ?? Number.NaN),
            mib(figures.peakRssGrowth),
            ofBlob(figures.peakRssGrowth),
            mib(figures.peakArrayBuffersGrowth),
            ofBlob(figures.peakArrayBuffersGrowth),
          ]);
        }
      }
    }
    return [
      `${SECONDS} s a 1 MiB case, one caller, 10 keys in turn; ratio to file is of calls/s (below 1: slower)`,
      table(small),
      "",
      "100 MiB: a fresh process each, after a 12 MiB warm-up; ratio to file is of time (above 1: slower); growth is over",
      "the memory before the step (natural: V8 collects when it chooses; held: garbage collected once per MiB passed)",
      table(large),
    ].join("\n");
  } finally {
    await server.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

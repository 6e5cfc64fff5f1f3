/**
 * Run in a process of its own (with --expose-gc) by the tests and the bench, so that its memory is the blob store's
 * alone: opens a blob store, writes one blob of `bytes` bytes from a stream of fresh 256 KiB chunks (with
 * `putStream`, or for a store without it, `put` of the chunks joined), reads it back (`getStream`, or `get`), and
 * prints one JSON line: for each step, the time taken and the peak growth of resident memory (VmHWM, reset before
 * the step) and of `arrayBuffers` (sampled at every chunk) over their values before the step.
 *
 * With `collectEveryBytes`, garbage is collected before the sample whenever that many bytes have passed since the
 * last collection, so the figures are of the memory the store holds, which does not depend on when V8 chooses to
 * collect (that depends on the load of the machine); without it they are the process's natural peaks.
 *
 * Argument: a JSON `StreamMemoryPlan`. Started by `measureStreamMemory` (stream-memory.fixture.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { BlobInfo, BlobStore } from "@mailpiece/ports";
import type { StepMemory, StreamMemoryPlan, StreamMemoryReport } from "./stream-memory.fixture.ts";

const CHUNK = 256 * 1024;
const STATUS = "/proc/self/status";

function statusBytes(field: "VmHWM" | "VmRSS"): number {
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(STATUS, "utf8"))?.[1] ?? Number.NaN);
  return kb * 1024;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run this fixture with --expose-gc");

/** Starts a step: collects garbage, resets the peak, and returns a sampler and the step's end. */
function startStep(collectEveryBytes: number | undefined): {
  sample(passed: number): void;
  end(): StepMemory;
} {
  if (!gc) throw new Error("run this fixture with --expose-gc");
  gc();
  gc();
  const proc = existsSync(STATUS);
  // Writing 5 to clear_refs resets the peak resident size (VmHWM) to the current one (Linux).
  let hwmReset = false;
  if (proc) {
    try {
      writeFileSync("/proc/self/clear_refs", "5");
      hwmReset = true;
    } catch {}
  }
  const rssBefore = proc ? statusBytes("VmRSS") : process.memoryUsage().rss;
  const arrayBuffersBefore = process.memoryUsage().arrayBuffers;
  let arrayBuffersPeak = arrayBuffersBefore;
  const started = performance.now();
  let uncollected = 0;
  return {
    sample(passed) {
      uncollected += passed;
      if (collectEveryBytes !== undefined && uncollected >= collectEveryBytes) {
        gc?.();
        uncollected = 0;
      }
      arrayBuffersPeak = Math.max(arrayBuffersPeak, process.memoryUsage().arrayBuffers);
    },
    end() {
      const ms = performance.now() - started;
      this.sample(0);
      // Without a reset, VmHWM may be a peak from before the step: still an upper bound of the step's.
      const peakRssGrowth = proc ? statusBytes("VmHWM") - rssBefore : null;
      return {
        ms,
        peakRssGrowth: hwmReset || peakRssGrowth === null ? peakRssGrowth : Math.max(peakRssGrowth, 0),
        peakArrayBuffersGrowth: arrayBuffersPeak - arrayBuffersBefore,
      };
    },
  };
}

/** `bytes` bytes in fresh 256 KiB chunks, each stamped with its index; calls `sample` before each chunk. */
async function* chunks(
  bytes: number,
  template: Uint8Array,
  sample: (passed: number) => void,
): AsyncGenerator<Uint8Array> {
  for (let index = 0, start = 0; start < bytes; index++, start += CHUNK) {
    sample(index === 0 ? 0 : CHUNK);
    const chunk = template.slice(0, Math.min(CHUNK, bytes - start));
    if (chunk.byteLength >= 4) new DataView(chunk.buffer).setUint32(0, index);
    yield chunk;
  }
}

async function roundTrip(
  blobs: BlobStore,
  key: string,
  bytes: number,
  collectEveryBytes: number | undefined,
): Promise<StreamMemoryReport> {
  // A plain Uint8Array: its slice() copies (a Buffer's would be a view of it).
  const template = new Uint8Array(randomBytes(CHUNK));
  const expected = createHash("sha256");
  for await (const chunk of chunks(bytes, template, () => undefined)) expected.update(chunk);
  const sha256 = expected.digest("hex");
  const streamed = blobs.putStream !== undefined && blobs.getStream !== undefined;

  const writing = startStep(collectEveryBytes);
  let info: BlobInfo;
  if (blobs.putStream) {
    info = await blobs.putStream(key, chunks(bytes, template, writing.sample), {
      contentType: "application/pdf",
    });
  } else {
    const parts: Uint8Array[] = [];
    for await (const chunk of chunks(bytes, template, writing.sample)) parts.push(chunk);
    info = await blobs.put(key, Buffer.concat(parts), { contentType: "application/pdf" });
    parts.length = 0;
  }
  const write = { ...writing.end(), info };

  const reading = startStep(collectEveryBytes);
  const hash = createHash("sha256");
  let size = 0;
  if (blobs.getStream) {
    const found = await blobs.getStream(key);
    if (!found) throw new Error(`${key} is missing after it was written`);
    const reader = found.body.getReader();
    for (let last = 0; ; ) {
      reading.sample(last);
      const { done, value } = await reader.read();
      if (done) break;
      last = value.byteLength;
      hash.update(value);
      size += value.byteLength;
    }
  } else {
    const found = await blobs.get(key);
    if (!found) throw new Error(`${key} is missing after it was written`);
    reading.sample(0);
    hash.update(found.bytes);
    size = found.bytes.byteLength;
  }
  const read = { ...reading.end(), sha256: hash.digest("hex"), size };
  return { bytes, streamed, collectEveryBytes: collectEveryBytes ?? null, sha256, write, read };
}

const plan = JSON.parse(process.argv[2] ?? "{}") as StreamMemoryPlan;
const factory = (await import(plan.module))[plan.export] as (
  options: unknown,
) => BlobStore | Promise<BlobStore>;
const blobs = await factory(plan.options);
try {
  // Warm-up, not measured: loads the code of both steps, for a body of a few parts.
  await roundTrip(blobs, "warm-up", 12 * 1024 * 1024, undefined);
  await blobs.delete("warm-up");
  const report = await roundTrip(blobs, "measured", plan.bytes, plan.collectEveryBytes);
  await blobs.delete("measured");
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await blobs.close();
}

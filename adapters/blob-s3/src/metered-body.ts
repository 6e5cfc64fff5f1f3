import { createHash } from "node:crypto";
import type { BlobBody } from "@mailpiece/ports";
import { MAX_BLOB_BYTES, PortError } from "@mailpiece/ports";

/** A `putStream` body read once, counted and hashed as its chunks pass. */
export interface MeteredBody {
  /**
   * The body's chunks, as the body yields them. Throws `blob_too_large` as soon as more than `MAX_BLOB_BYTES` have
   * passed, a RangeError as soon as the length cannot be the declared one, and the body's own error when it fails.
   * Ending it early cancels the body.
   */
  readonly chunks: AsyncGenerator<Uint8Array, void, undefined>;
  /** The number of bytes passed so far. */
  size(): number;
  /** The lowercase hex sha256 of the whole body; only once `chunks` has ended without error. */
  sha256(): string;
  /** What ended `chunks` with an error, if anything did. */
  failure(): { error: unknown } | undefined;
}

/** Checks that `body` is a web stream or an async iterable, before anything is read from it. */
export function assertBody(tag: string, body: unknown): asserts body is BlobBody {
  const readable = typeof (body as { getReader?: unknown } | null)?.getReader === "function";
  const iterable =
    typeof (body as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === "function";
  if (!readable && !iterable) {
    throw new TypeError(
      `${tag} putStream takes the body as a ReadableStream or an async iterable of Uint8Array`,
    );
  }
}

export function meterBody(
  body: BlobBody,
  options: { tag: string; key: string; declaredSize: number | undefined },
): MeteredBody {
  const { tag, key, declaredSize } = options;
  const hash = createHash("sha256");
  let size = 0;
  let digest: string | undefined;
  let failed: { error: unknown } | undefined;

  const refuse = (error: unknown): never => {
    failed ??= { error };
    throw error;
  };

  async function* chunks(): AsyncGenerator<Uint8Array, void, undefined> {
    try {
      for await (const chunk of chunksOf(body)) {
        if (!(chunk instanceof Uint8Array)) {
          refuse(
            new TypeError(
              `${tag} the body of ${JSON.stringify(key)} yielded a chunk that is not a Uint8Array`,
            ),
          );
        }
        const bytes = chunk as Uint8Array;
        size += bytes.byteLength;
        if (size > MAX_BLOB_BYTES) {
          refuse(
            new PortError(
              "blob_too_large",
              `${tag} the blob ${JSON.stringify(key)} has more than ${MAX_BLOB_BYTES} bytes; the limit is ${MAX_BLOB_BYTES}`,
            ),
          );
        }
        if (declaredSize !== undefined && size > declaredSize) {
          refuse(
            new RangeError(
              `${tag} the body of ${JSON.stringify(key)} has more than the ${declaredSize} bytes declared as its size`,
            ),
          );
        }
        hash.update(bytes);
        if (bytes.byteLength > 0) yield bytes;
      }
      if (declaredSize !== undefined && size !== declaredSize) {
        refuse(
          new RangeError(
            `${tag} the body of ${JSON.stringify(key)} has ${size} bytes, not the ${declaredSize} declared as its size`,
          ),
        );
      }
      digest = hash.digest("hex");
    } catch (error) {
      failed ??= { error };
      throw error;
    }
  }

  return {
    chunks: chunks(),
    size: () => size,
    sha256() {
      if (digest === undefined)
        throw new Error(`${tag} the body of ${JSON.stringify(key)} has not been read to its end`);
      return digest;
    },
    failure: () => failed,
  };
}

/** The chunks of a web stream or an async iterable; ending early cancels a web stream. */
async function* chunksOf(body: BlobBody): AsyncGenerator<unknown, void, undefined> {
  if (!(typeof (body as { getReader?: unknown }).getReader === "function")) {
    yield* body as AsyncIterable<unknown>;
    return;
  }
  const reader = (body as ReadableStream<unknown>).getReader();
  let ended = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        ended = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

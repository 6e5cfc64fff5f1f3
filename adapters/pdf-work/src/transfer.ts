/**
 * Bytes to post to another thread, copied at most once: a private copy of exactly the viewed bytes whose buffer is
 * then transferred (moved, not copied again). Posting the view itself would copy its whole backing buffer, which can
 * be far larger than the view (a slice of a request body). The caller's bytes are never detached or changed.
 * Bytes on a SharedArrayBuffer are posted as they are (shared, not copied). Anything that is not a Uint8Array is
 * posted as null, which every engine refuses the same way it refuses the original.
 */
export function sendableBytes(bytes: unknown): { bytes: Uint8Array | null; transfer: ArrayBuffer[] } {
  if (!(bytes instanceof Uint8Array)) return { bytes: null, transfer: [] };
  if (!(bytes.buffer instanceof ArrayBuffer)) return { bytes, transfer: [] };
  const copy = copyOf(bytes);
  return { bytes: copy, transfer: [copy.buffer] };
}

/**
 * Bytes to hand back from a worker without a copy: when the view covers its whole buffer the buffer itself is
 * transferred; otherwise the view is copied first (its buffer may be shared with other data of the worker).
 */
export function returnableBytes(bytes: Uint8Array): { bytes: Uint8Array; transfer: ArrayBuffer[] } {
  const { buffer } = bytes;
  if (buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength) {
    return { bytes, transfer: [buffer] };
  }
  const copy = copyOf(bytes);
  return { bytes: copy, transfer: [copy.buffer] };
}

/**
 * A copy of the viewed bytes on a buffer of their own. Not `bytes.slice()`: on a Node Buffer that is a view of the
 * same memory, and transferring its buffer would detach the caller's bytes.
 */
function copyOf(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}

import { createHash, timingSafeEqual } from "node:crypto";

/**
 * True when two texts are equal, in time that does not depend on where they differ: both are hashed to the same
 * length first, so neither their contents nor the position of a difference can be learnt from the time taken.
 */
export function sameText(a: string, b: string): boolean {
  const left = createHash("sha256").update(a, "utf8").digest();
  const right = createHash("sha256").update(b, "utf8").digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

import { createHash } from "node:crypto";

const TALL = new Set("bdfhklt");
const LOW = new Set("gjpqyz");

/**
 * A handwritten-looking signature of `name` as an SVG path (y grows downwards) that fits a `width` x `height` box:
 * one stroke per word, a loop or hump per letter, a taller loop for capitals and ascenders, a dip for descenders,
 * and an underline flourish. The strokes wobble by a SHA-256 of `seed` and `name`, so the same inputs always
 * give the same path.
 */
export function signaturePath(seed: string, name: string, width: number, height: number): string {
  const wobble = wobbleOf(`signature:${seed}:${name}`);
  const words = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/\s+/)
    .map((word) => [...word].filter((c) => /\p{L}/u.test(c)))
    .filter((letters) => letters.length > 0);
  const baseline = height * 0.6;
  const xHeight = height * 0.22;
  const strokes: string[] = [];
  let x = 0;
  for (const letters of words.length > 0 ? words : [["x"]]) {
    let penX = x + wobble(0, 2);
    let penY = baseline + wobble(-1, 1);
    const parts = [`M ${fmt(penX)} ${fmt(penY)}`];
    for (const [index, letter] of letters.entries()) {
      const capital = index === 0 || letter !== letter.toLowerCase();
      const lower = letter.toLowerCase();
      const rise = capital || TALL.has(lower) ? xHeight * 2.3 : xHeight;
      const step = (capital ? 13 : 8) + wobble(0, 3);
      const top = baseline - rise * (0.85 + wobble(0, 0.3));
      const slant = rise * 0.35;
      const endX = penX + step;
      // Up-stroke leaning right, then back down past it: the crossing strokes make the loop.
      parts.push(
        `C ${fmt(penX + step * 0.2)} ${fmt(penY - rise * 0.3)} ${fmt(penX + slant + step)} ${fmt(top)} ${fmt(penX + slant + step * 0.45)} ${fmt(top)}`,
        `C ${fmt(penX + slant * 0.2)} ${fmt(top)} ${fmt(penX + step * 0.3)} ${fmt(baseline)} ${fmt(endX)} ${fmt(baseline + wobble(-1, 1))}`,
      );
      if (LOW.has(lower)) {
        const depth = baseline + xHeight * (1 + wobble(0, 0.4));
        parts.push(
          `C ${fmt(endX + 2)} ${fmt(depth)} ${fmt(endX - 6)} ${fmt(depth)} ${fmt(endX - 3)} ${fmt(baseline - 1)}`,
        );
      }
      penX = endX;
      penY = baseline;
    }
    strokes.push(parts.join(" "));
    x = penX + 10 + wobble(0, 4);
  }
  const end = Math.max(x - 10, 1);
  const under = baseline + xHeight * 0.9;
  strokes.push(
    `M ${fmt(end * 0.05)} ${fmt(under + wobble(0, 3))} C ${fmt(end * 0.4)} ${fmt(under - 4)} ${fmt(end * 0.7)} ${fmt(under + 6)} ${fmt(end * 1.02)} ${fmt(under - 3)}`,
  );
  return fitPath(strokes.join(" "), width, height);
}

/** Numbers drawn from a SHA-256 chain of `seed`: `wobble(min, max)` is the next one in [min, max). */
function wobbleOf(seed: string): (min: number, max: number) => number {
  let block = createHash("sha256").update(seed).digest();
  let offset = 0;
  return (min, max) => {
    if (offset + 2 > block.length) {
      block = createHash("sha256").update(block).digest();
      offset = 0;
    }
    const value = block.readUInt16BE(offset) / 65_536;
    offset += 2;
    return min + value * (max - min);
  };
}

/**
 * A path of absolute `M`/`C` commands squeezed to `width` (x scaled down when it is wider, never up), with y kept
 * inside `height`.
 */
function fitPath(path: string, width: number, height: number): string {
  const xs = (path.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number).filter((_, index) => index % 2 === 0);
  const factor = Math.min(1, width / Math.max(...xs, 1));
  let isX = true;
  return path.replace(/-?\d+(?:\.\d+)?/g, (number) => {
    const value = Number(number);
    const scaled = isX ? Math.max(value * factor, 0) : Math.min(Math.max(value, 0), height);
    isX = !isX;
    return fmt(scaled);
  });
}

function fmt(value: number): string {
  return (Math.round(value * 100) / 100).toString();
}

/** An affine transform [a b c d e f] as in PDF: x' = a x + c y + e, y' = b x + d y + f. */
export type Matrix = readonly [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** The transform that applies `first`, then `then` (PDF writes this `first x then`, as in `cm`: M x CTM). */
export function multiply(first: Matrix, then: Matrix): Matrix {
  const [a, b, c, d, e, f] = first;
  const [A, B, C, D, E, F] = then;
  return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F];
}

export function translate(tx: number, ty: number): Matrix {
  return [1, 0, 0, 1, tx, ty];
}

export function applyX(m: Matrix, x: number, y: number): number {
  return m[0] * x + m[2] * y + m[4];
}

export function applyY(m: Matrix, x: number, y: number): number {
  return m[1] * x + m[3] * y + m[5];
}

/** The largest factor by which `m` stretches a length (its largest singular value). */
export function maxScale(m: Matrix): number {
  const [a, b, c, d] = m;
  const sum = a * a + b * b + c * c + d * d;
  const det = a * d - b * c;
  return Math.sqrt((sum + Math.sqrt(Math.max(0, sum * sum - 4 * det * det))) / 2);
}

import { randomBytes as nodeRandomBytes } from "node:crypto";

/** A source of random bytes: `size` bytes, cryptographically strong in production. Tests may inject their own. */
export type RandomBytes = (size: number) => Uint8Array;

/** The operating system's random source (node:crypto). */
export const systemRandom: RandomBytes = (size) => new Uint8Array(nodeRandomBytes(size));

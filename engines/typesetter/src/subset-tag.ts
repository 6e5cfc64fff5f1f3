import { createHash } from "node:crypto";

/**
 * The six-letter tag that prefixes the name of a subset font ("ABCDEF+Tinos-Regular"), derived from the font's name
 * and the characters drawn with it, so the same letter always yields the same PDF bytes and different subsets of
 * one font get different names.
 */
export function subsetTag(fontName: string, text: string): string {
  const characters = [...new Set(text)].sort().join("");
  const digest = createHash("sha256").update(fontName).update("\u0000").update(characters).digest();
  let tag = "";
  for (let index = 0; index < 6; index++) tag += String.fromCharCode(65 + (digest[index]! % 26));
  return tag;
}

import { describe, expect, it } from "vitest";
import { signaturePath } from "./signature-path.ts";

/** The x, y pairs of a path of absolute M and C commands. */
function points(path: string): Array<[number, number]> {
  const numbers = (path.match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i + 1 < numbers.length; i += 2)
    pairs.push([numbers[i] as number, numbers[i + 1] as number]);
  return pairs;
}

describe("signaturePath", () => {
  it("draws one stroke per word, a curve per letter, and an underline", () => {
    const path = signaturePath("sim_1", "Grace Recipient", 270, 68);
    expect(path.match(/M /g)).toHaveLength(3);
    expect((path.match(/C /g) ?? []).length).toBeGreaterThanOrEqual(2 * "GraceRecipient".length + 1);
    expect(path).toMatch(/^M [\d.]+ [\d.]+ C /);
  });

  it("is the same for the same seed and name, and differs for another seed or name", () => {
    const path = signaturePath("sim_1", "Grace Recipient", 270, 68);
    expect(signaturePath("sim_1", "Grace Recipient", 270, 68)).toBe(path);
    expect(signaturePath("sim_2", "Grace Recipient", 270, 68)).not.toBe(path);
    expect(signaturePath("sim_1", "Grace Recipiant", 270, 68)).not.toBe(path);
  });

  it("stays inside its box, however long the name", () => {
    for (const name of [
      "Al",
      "Grace Recipient",
      `Maximiliana ${"Featherstonehaugh ".repeat(6)}Jr`,
      "李 小龙",
      "",
    ]) {
      const pairs = points(signaturePath("sim_1", name, 270, 68));
      expect(pairs.length, name).toBeGreaterThan(3);
      for (const [x, y] of pairs) {
        expect(x, `${name}: x`).toBeGreaterThanOrEqual(0);
        expect(x, `${name}: x`).toBeLessThanOrEqual(270);
        expect(y, `${name}: y`).toBeGreaterThanOrEqual(0);
        expect(y, `${name}: y`).toBeLessThanOrEqual(68);
      }
    }
  });
});

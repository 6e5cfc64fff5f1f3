import { describe, it } from "vitest";
import type { Suite } from "./kit.ts";

/** Registers every test of a suite with vitest, one `it` per contract, so failures name the contract. */
export function registerSuite<Name extends string>(
  suite: Suite<Name>,
  options: { skip?: ReadonlyArray<Name>; timeoutMs?: number } = {},
): void {
  const skip = new Set<string>(options.skip ?? []);
  describe(suite.name, () => {
    for (const test of suite.tests) {
      if (skip.has(test.name)) continue;
      it(test.name, () => test.run(), options.timeoutMs ?? 20_000);
    }
  });
}

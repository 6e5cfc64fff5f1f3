import { describe, it } from "vitest";
import { type ContractTest, isNotApplicable, type Suite } from "./kit.ts";

export interface RegisterSuiteOptions<Name extends string> {
  /** Tests left out of the run. */
  skip?: ReadonlyArray<Name>;
  /**
   * Tests expected to answer "not applicable" for this target (an adapter without the optional capability they
   * check). Any other test that answers "not applicable" fails with its reason, and so does a listed test that
   * applies after all: the list says exactly what the target does not offer.
   */
  notApplicable?: ReadonlyArray<Name>;
  timeoutMs?: number;
}

/** Registers every test of a suite with vitest, one `it` per contract, so failures name the contract. */
export function registerSuite<Name extends string>(
  suite: Suite<Name>,
  options: RegisterSuiteOptions<Name> = {},
): void {
  const skip = new Set<string>(options.skip ?? []);
  const expected = new Set<string>(options.notApplicable ?? []);
  const names = new Set<string>(suite.tests.map((test) => test.name));
  describe(suite.name, () => {
    for (const name of [...skip, ...expected]) {
      if (!names.has(name)) {
        it(`lists only tests of the suite: ${name}`, () => {
          throw new Error(`"${name}" is not a test of ${suite.name}`);
        });
      }
    }
    for (const test of suite.tests) {
      if (skip.has(test.name)) continue;
      it(test.name, () => runExpecting(test, expected.has(test.name)), options.timeoutMs ?? 20_000);
    }
  });
}

/**
 * Runs one test and throws when it fails, when it answers "not applicable" without `listed`, or when it applies
 * although `listed` says it does not.
 */
export async function runExpecting(test: ContractTest, listed: boolean): Promise<void> {
  const answer = await test.run();
  if (isNotApplicable(answer) && !listed) throw new Error(`not applicable: ${answer.notApplicable}`);
  if (!isNotApplicable(answer) && listed) {
    throw new Error("listed in notApplicable, but the test applies to this target");
  }
}

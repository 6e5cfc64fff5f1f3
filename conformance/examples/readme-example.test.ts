import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

/** The code block that follows `<!-- example: FILE -->` in the README, for each such marker. */
function examplesIn(readme: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of readme.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)\n```\n/g)) {
    found.set(match[1] as string, `${match[2]}\n`);
  }
  return found;
}

it("the README's print-provider guide shows the example file exactly as the tests run it", () => {
  const examples = examplesIn(readFileSync(join(root, "README.md"), "utf8"));
  expect([...examples.keys()]).toEqual(["examples/print-provider.example.test.ts"]);
  for (const [file, code] of examples) expect(code).toBe(readFileSync(join(root, file), "utf8"));
});

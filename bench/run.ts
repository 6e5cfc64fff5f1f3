import { benchValidate } from "./validate.ts";

/** `pnpm bench`: every benchmark, each printed as ratios against a baseline measured in the same run. */
const benches: [string, () => Promise<string>][] = [["validate", benchValidate]];
const only = process.argv[2];
for (const [name, run] of benches) {
  if (only && only !== name) continue;
  process.stdout.write(`\n== ${name} ==\n${await run()}\n`);
}

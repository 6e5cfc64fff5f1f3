import { existsSync } from "node:fs";
import { benchPayments } from "./payments.ts";
import { benchValidate } from "./validate.ts";

/** `pnpm bench [name]`: every benchmark, each printed as ratios against a baseline measured in the same run. */
const benches: [string, () => Promise<string>][] = [
  ["validate", benchValidate],
  ["payments", benchPayments],
];
for (const [name, file, exportName] of [
  ["letters", "./letters.ts", "benchLetters"],
  ["postcard", "./postcard.ts", "benchPostcard"],
] as const) {
  if (existsSync(new URL(file, import.meta.url))) {
    const mod = (await import(file)) as Record<string, () => Promise<string>>;
    const run = mod[exportName];
    if (run) benches.push([name, run]);
  }
}
const only = process.argv[2];
for (const [name, run] of benches) {
  if (only && only !== name) continue;
  process.stdout.write(`\n== ${name} ==\n${await run()}\n`);
}

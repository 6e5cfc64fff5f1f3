// Adds up the vitest JSON reports of every package and prints one closing line: "N passed, N failed".
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const workspace = readFileSync("pnpm-workspace.yaml", "utf8");
const { readdirSync, statSync } = await import("node:fs");
const dirs = [];
for (const line of workspace.split("\n")) {
  const m = /^\s*-\s*(.+?)\s*$/.exec(line);
  if (!m) continue;
  const pattern = m[1].replace(/["']/g, "");
  if (pattern.endsWith("/*")) {
    const parent = pattern.slice(0, -2);
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent)) {
      if (statSync(join(parent, name)).isDirectory()) dirs.push(join(parent, name));
    }
  } else dirs.push(pattern);
}
if (process.argv.includes("--clean")) {
  const { rmSync } = await import("node:fs");
  for (const dir of dirs) rmSync(join(dir, ".vitest-report.json"), { force: true });
  process.exit(0);
}
let passed = 0;
let failed = 0;
let skipped = 0;
let packages = 0;
for (const dir of dirs) {
  const file = join(dir, ".vitest-report.json");
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  packages++;
  passed += report.numPassedTests ?? 0;
  // A test file that fails to load has no failed tests of its own: it counts as one failure.
  failed += Math.max(report.numFailedTests ?? 0, report.success === false ? 1 : 0);
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`Test packages: ${packages}`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
if (failed > 0 || passed === 0) process.exit(1);

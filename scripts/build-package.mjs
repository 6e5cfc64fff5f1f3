/**
 * Builds Mailpiece packages for publishing: `tsc -b` on each package's tsconfig.build.json (which first builds the
 * Mailpiece packages it references), then makes every emitted declaration file import its siblings as `./x.js`.
 *
 * Sources import `./x.ts`; tsc rewrites those imports in the JavaScript it emits (`rewriteRelativeImportExtensions`)
 * but keeps them as written in declaration files, where a consumer's TypeScript would look for sources that are not
 * the published entry points. The rewrite covers each package and every project it references, since `tsc -b` may
 * have rebuilt them.
 *
 * Usage: node scripts/build-package.mjs [package folder...]   (default: the current folder; exits with tsc's status)
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";

const CONFIG = "tsconfig.build.json";

/** Relative module specifiers ending in .ts, .mts or .cts after `from`, `import(` or a bare `import`. */
const TS_SPECIFIER = /((?:\bfrom|\bimport)\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.([mc]?)ts\2/g;

/** The folders of the given packages and of every project their build configs reference, directly or not. */
function referencedProjects(starts) {
  const seen = new Set();
  const visit = (dir) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const config = JSON.parse(readFileSync(join(dir, CONFIG), "utf8"));
    for (const reference of config.references ?? []) {
      const target = resolve(dir, reference.path);
      visit(target.endsWith(".json") ? dirname(target) : target);
    }
  };
  for (const start of starts) visit(start);
  return seen;
}

/** Rewrites `./x.ts` to `./x.js` (and .mts, .cts to .mjs, .cjs) in every .d.ts, .d.mts and .d.cts under `dir`. */
function rewriteDeclarations(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.d\.[mc]?ts$/.test(entry.name)) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    const text = readFileSync(file, "utf8");
    const rewritten = text.replace(TS_SPECIFIER, (match, lead, quote, path, kind) =>
      path.endsWith(".d") ? match : `${lead}${quote}${path}.${kind}js${quote}`,
    );
    if (rewritten !== text) writeFileSync(file, rewritten);
  }
}

const packages = (process.argv.length > 2 ? process.argv.slice(2) : ["."]).map((dir) => resolve(dir));
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const configs = packages.map((dir) => join(dir, CONFIG));
const built = spawnSync(process.execPath, [tsc, "-b", ...configs], { stdio: "inherit" });
if (built.status !== 0) process.exit(built.status ?? 1);

for (const project of referencedProjects(packages)) {
  const dist = join(project, "dist");
  if (existsSync(dist)) rewriteDeclarations(dist);
}

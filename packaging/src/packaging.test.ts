/**
 * Every engine and adapter, and the conformance kit, as its users get it: built, packed with pnpm (which applies `publishConfig` and turns
 * `workspace:*` into versions), installed with plain `npm i` into an empty project together with the tarballs of
 * the Mailpiece packages it depends on and nothing else of ours, then run with plain `node` (no TypeScript
 * loader): its README example (or, for an adapter whose README has none, the example in `examples/`) must print
 * what it states, and every entry point must export what its source exports. publint and attw (ESM-only profile)
 * must find no problem in the tarball. A package's command-line programs (the kit's `mailpiece-conformance`) must
 * run with `npm exec --offline` from the tarballs alone.
 *
 * Packs run a few at a time and installs share one npm cache (kept under node_modules/.cache between runs, with
 * --prefer-offline), so a run after the first needs the registry only for what changed.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerEnv, limit, run, runOk } from "./processes.ts";
import { arrowExpectations, printedLines, readmeExample } from "./readme-example.ts";
import {
  type Manifest,
  optionalPeers,
  packagesIn,
  ROOT,
  readManifest,
  registryOptionalPeers,
  runtimeClosure,
  sourceEntries,
  specifier,
  type WorkspacePackage,
} from "./workspace.ts";

/**
 * Adapters left out, each with its reason. Every other adapter, and every engine, is checked. An adapter that needs
 * a service to run is still packed and imported: leave one out only when even that cannot work.
 */
const LEFT_OUT: Record<string, string> = {};

const MINUTE = 60_000;
const BUILD_AND_PACK_BUDGET = 20 * MINUTE;
/** Installs wait their turn (three at a time), so their budget counts the wait. */
const INSTALL_BUDGET = 15 * MINUTE;
const ATTW_BUDGET = 10 * MINUTE;
const PUBLINT_BUDGET = 5 * MINUTE;

/**
 * Programs a package publishes that must run from its tarball alone: `npm exec --offline` with the packed tarballs
 * of the package and of the Mailpiece packages it needs, in an empty folder, once the install test has filled the
 * npm cache. Each runs with `args`, must exit 0 and print `prints`.
 */
const RUNS_FROM_TARBALL: Record<string, { bin: string; args: string[]; prints: RegExp }> = {
  "@mailpiece/conformance": {
    bin: "mailpiece-conformance",
    args: ["--help"],
    prints: /^Usage: mailpiece-conformance run --base-url URL/,
  },
  "@mailpiece/store-postgres": {
    bin: "mailpiece-store-postgres",
    args: ["--help"],
    prints: /mailpiece-store-postgres migrate/,
  },
};

const engines = packagesIn("engines");
const adapters = packagesIn("adapters").filter((pkg) => LEFT_OUT[pkg.dir] === undefined);
/** The published conformance kit: its suites, its CLI and its `./vitest` entry. */
const kit: WorkspacePackage = { dir: "conformance", manifest: readManifest("conformance") };
const checked = [...engines, ...adapters, kit];
const byName = new Map<string, WorkspacePackage>(
  [...checked, ...packagesIn("apps")].map((pkg) => [pkg.manifest.name, pkg]),
);

const work = mkdtempSync(join(tmpdir(), "mailpiece-packaging-"));
const tarballDir = join(work, "tarballs");
const npmCache = join(ROOT, "node_modules", ".cache", "mailpiece-packaging", "npm");
const tarballs = new Map<string, string>();
const installs = limit(3);
const attwRuns = limit(2);
const env = consumerEnv();

// Removing every installed project is slow on a loaded machine: it gets a budget of its own.
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
}, 180_000);

describe.concurrent("packages as published", () => {
  beforeAll(async () => {
    mkdirSync(tarballDir, { recursive: true });
    // One tsc -b over every package builds each once, dependencies first.
    await runOk(
      process.execPath,
      [join(ROOT, "scripts", "build-package.mjs"), ...needed().map((p) => p.dir)],
      {
        cwd: ROOT,
        timeoutMs: BUILD_AND_PACK_BUDGET,
      },
    );
    const [pnpm, pnpmArgs] = pnpmCommand();
    const packs = limit(4);
    await Promise.all(
      needed().map((pkg) =>
        packs(async () => {
          // The build above is what `prepack` runs; skipping it here keeps packs from racing to rebuild.
          await runOk(
            pnpm,
            [...pnpmArgs, "pack", "--pack-destination", tarballDir, "--config.ignore-scripts=true"],
            { cwd: join(ROOT, pkg.dir), timeoutMs: BUILD_AND_PACK_BUDGET },
          );
          const file = join(tarballDir, tarballName(pkg.manifest));
          if (!existsSync(file)) throw new Error(`pnpm pack made no ${file} for ${pkg.dir}.`);
          tarballs.set(pkg.manifest.name, file);
        }),
      ),
    );
  }, BUILD_AND_PACK_BUDGET);

  for (const pkg of checked) {
    const { name } = pkg.manifest;

    it(`${pkg.dir}: builds before it is packed`, () => {
      const build = `node ${relative(join(ROOT, pkg.dir), join(ROOT, "scripts", "build-package.mjs"))}`;
      expect(pkg.manifest.scripts?.prepack).toBe(build);
      expect(pkg.manifest.scripts?.build).toBe(build);
    });

    it(
      `${pkg.dir}: publint finds no problem`,
      async () => {
        const { publint } = await import("publint");
        const bytes = readFileSync(tarballOf(name));
        const tarball = bytes.buffer.slice(
          bytes.byteOffset,
          bytes.byteOffset + bytes.byteLength,
        ) as ArrayBuffer;
        const result = await publint({ pack: { tarball }, level: "warning" });
        const problems = result.messages.map(
          (message) => `${message.type}: ${formatMessage(message, result.pkg) ?? message.code}`,
        );
        expect(problems).toEqual([]);
      },
      PUBLINT_BUDGET,
    );

    it(
      `${pkg.dir}: attw (ESM only) finds no problem with its types`,
      async () => {
        const attw = attwBin();
        const args = [
          attw,
          tarballOf(name),
          "--profile",
          "esm-only",
          "--no-definitely-typed",
          "--format",
          "ascii",
        ];
        const finished = await attwRuns(() =>
          run(process.execPath, args, { cwd: work, env, timeoutMs: ATTW_BUDGET }),
        );
        expect({ code: finished.code, output: finished.stdout + finished.stderr }).toMatchObject({ code: 0 });
      },
      ATTW_BUDGET,
    );

    it(
      `${pkg.dir}: installs with npm in an empty project and runs with node`,
      async () => {
        const project = join(work, "projects", basename(pkg.dir));
        mkdirSync(project, { recursive: true });
        writeFileSync(
          join(project, "package.json"),
          `${JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
        );
        const ours = runtimeClosure(name, byName);
        await installs(() => npmInstall(project, ours));
        expect(installedOurs(project)).toEqual(ours);
        for (const installed of ours)
          expect(tsSpecifiersIn(join(project, "node_modules", installed, "dist"))).toEqual([]);

        const example = exampleOf(pkg);
        if (example !== undefined) {
          writeFileSync(join(project, "example.mjs"), example.code);
          const finished = await runOk(process.execPath, ["example.mjs"], {
            cwd: project,
            env,
            timeoutMs: 2 * MINUTE,
          });
          expect(printedLines(finished.stdout)).toEqual(example.expected);
        } else {
          expect(pkg.dir.startsWith("adapters/"), "every engine runs its README example").toBe(true);
        }

        const entries = sourceEntries(pkg.manifest);
        const peers = optionalPeers(pkg.manifest);
        const fromRegistry = registryOptionalPeers(pkg.manifest);
        const withoutPeers = await exportsAsInstalled(project, name, [...entries.keys()]);
        // The root entry never needs an optional peer; another entry may, and then names the peer it misses.
        expect(withoutPeers["."]).toEqual(await sourceExports(pkg, "."));
        const missed = new Set<string>();
        for (const [subpath, outcome] of Object.entries(withoutPeers)) {
          if (Array.isArray(outcome)) continue;
          const peer = [...peers, ...fromRegistry.keys()].find((p) => outcome.missing.includes(`'${p}'`));
          expect(peer, `${subpath}: ${outcome.missing}`).toBeDefined();
          missed.add(peer as string);
        }
        // Optional peers from the registry are installed only when an entry needs them (vitest, not s3rver).
        const registrySpecs = [...fromRegistry]
          .filter(([peer]) => missed.has(peer))
          .map(([p, r]) => `${p}@${r}`);
        if (peers.length > 0 || registrySpecs.length > 0) {
          const withPeers = [
            ...new Set([...ours, ...peers.flatMap((peer) => runtimeClosure(peer, byName))]),
          ].sort();
          await installs(() => npmInstall(project, withPeers, registrySpecs));
          expect(installedOurs(project)).toEqual(withPeers);
        }
        const asInstalled =
          peers.length > 0 || registrySpecs.length > 0
            ? await exportsAsInstalled(project, name, [...entries.keys()])
            : withoutPeers;
        for (const subpath of entries.keys()) {
          expect(asInstalled[subpath], subpath).toEqual(await sourceExports(pkg, subpath));
        }

        const program = RUNS_FROM_TARBALL[name];
        if (program) {
          expect(Object.keys(publishedBins(pkg))).toContain(program.bin);
          const empty = join(work, "npx", basename(pkg.dir));
          mkdirSync(empty, { recursive: true });
          const finished = await runOk(
            "npm",
            [
              "exec",
              "--offline",
              "--yes",
              "--cache",
              npmCache,
              ...ours.map((dependency) => `--package=${tarballOf(dependency)}`),
              "--",
              program.bin,
              ...program.args,
            ],
            { cwd: empty, env, timeoutMs: 5 * MINUTE },
          );
          expect(finished.stdout).toMatch(program.prints);
        }
      },
      INSTALL_BUDGET,
    );
  }
});

/** The packages to pack: those checked and every Mailpiece package they or their optional peers need. */
function needed(): WorkspacePackage[] {
  const names = new Set<string>();
  for (const pkg of checked) {
    for (const name of runtimeClosure(pkg.manifest.name, byName)) names.add(name);
    for (const peer of optionalPeers(pkg.manifest))
      for (const name of runtimeClosure(peer, byName)) names.add(name);
  }
  return [...names].sort().map((name) => byName.get(name) as WorkspacePackage);
}

function tarballOf(name: string): string {
  const file = tarballs.get(name);
  if (file === undefined) throw new Error(`${name} was not packed.`);
  return file;
}

/** pnpm's file name for a package's tarball: `@mailpiece/orders` 0.1.0 → mailpiece-orders-0.1.0.tgz. */
function tarballName(manifest: Manifest): string {
  return `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`;
}

/** The pnpm running this test when there is one, else the version the repository names, through npx. */
function pnpmCommand(): [string, string[]] {
  const execpath = process.env.npm_execpath;
  if (execpath !== undefined && /^pnpm(\.[cm]?js)?$/.test(basename(execpath))) {
    return /\.[cm]?js$/.test(execpath) ? [process.execPath, [execpath]] : [execpath, []];
  }
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    devEngines: { packageManager: { version: string } };
  };
  return ["npx", ["-y", `pnpm@${root.devEngines.packageManager.version}`]];
}

function attwBin(): string {
  const require = createRequire(join(ROOT, "package.json"));
  const manifestPath = require.resolve("@arethetypeswrong/cli/package.json");
  const bin = (JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: { attw: string } }).bin.attw;
  return join(manifestPath, "..", bin);
}

/** The programs a package's tarball declares: `publishConfig.bin` when it has one, else `bin`. */
function publishedBins(pkg: WorkspacePackage): Record<string, string> {
  const manifest = readManifest(pkg.dir) as WorkspacePackage["manifest"] & {
    bin?: Record<string, string>;
    publishConfig?: { bin?: Record<string, string> };
  };
  return manifest.publishConfig?.bin ?? manifest.bin ?? {};
}

/** Installs the tarballs of `names` and, from the registry, `registrySpecs` (`vitest@>=4.1`). */
async function npmInstall(
  project: string,
  names: readonly string[],
  registrySpecs: readonly string[] = [],
): Promise<void> {
  await runOk(
    "npm",
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "--cache",
      npmCache,
      ...names.map(tarballOf),
      ...registrySpecs,
    ],
    { cwd: project, env, timeoutMs: INSTALL_BUDGET },
  );
}

/** The Mailpiece packages in a project's lockfile; each must come from one of our tarballs. */
function installedOurs(project: string): string[] {
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, { resolved?: string; link?: boolean }>;
  };
  const ours: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const match = /(?:^|\/)node_modules\/(@mailpiece\/[^/]+)$/.exec(path);
    if (match === null) continue;
    const where = entry.resolved ?? "";
    if (!where.startsWith("file:") || !where.endsWith(".tgz")) {
      throw new Error(`${path} was not installed from a packed tarball (${where || "no resolved"}).`);
    }
    ours.push(match[1] as string);
  }
  return [...new Set(ours)].sort();
}

/** Relative imports of .ts files left in built JavaScript or declarations (there must be none). */
function tsSpecifiersIn(dist: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dist, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(js|d\.ts)$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"'\n]*\.[mc]?ts)["']/g)) {
      if (!match[1]?.endsWith(".d.ts")) found.push(`${file}: ${match[1]}`);
    }
  }
  return found;
}

function exampleOf(pkg: WorkspacePackage): { code: string; expected: string[] } | undefined {
  const readme = readFileSync(join(ROOT, pkg.dir, "README.md"), "utf8");
  if (/^ {0,3}```(js|javascript|mjs)\b/m.test(readme) || pkg.dir.startsWith("engines/"))
    return readmeExample(readme);
  const file = join(ROOT, "packaging", "examples", `${basename(pkg.dir)}.mjs`);
  let code: string;
  try {
    code = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return { code, expected: arrowExpectations(code) };
}

type EntryOutcome = string[] | { missing: string };

/**
 * What each entry point exports when node imports it in the project: its export names, or the module it could not
 * find.
 */
async function exportsAsInstalled(
  project: string,
  name: string,
  subpaths: readonly string[],
): Promise<Record<string, EntryOutcome>> {
  const script = `
const out = {};
for (const [subpath, spec] of ${JSON.stringify(subpaths.map((subpath) => [subpath, specifier(name, subpath)]))}) {
  try {
    out[subpath] = Object.keys(await import(spec)).sort();
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
    out[subpath] = { missing: String(error.message) };
  }
}
console.log(JSON.stringify(out));
`;
  writeFileSync(join(project, "exports.mjs"), script);
  const finished = await runOk(process.execPath, ["exports.mjs"], {
    cwd: project,
    env,
    timeoutMs: 2 * MINUTE,
  });
  return JSON.parse(finished.stdout) as Record<string, EntryOutcome>;
}

/** The export names of an entry point's TypeScript source in the workspace. */
async function sourceExports(pkg: WorkspacePackage, subpath: string): Promise<string[]> {
  const source = sourceEntries(readManifest(pkg.dir)).get(subpath);
  if (source === undefined) throw new Error(`${pkg.dir} has no entry ${subpath}.`);
  const module = (await import(/* @vite-ignore */ pathToFileURL(join(ROOT, pkg.dir, source)).href)) as object;
  return Object.keys(module).sort();
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this package sits one level below it). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface Manifest {
  name: string;
  version: string;
  /** Workspace entry points: the source file, or conditions (`mailpiece-built`: the built file) with the source as default. */
  exports?: Record<string, string | { default: string; [condition: string]: string }>;
  publishConfig?: { exports?: Record<string, unknown> };
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface WorkspacePackage {
  /** The folder, relative to the root: `engines/orders`. */
  dir: string;
  manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8")) as Manifest;
}

/** Every package in the folders under `parent` (`engines`), by folder name. */
export function packagesIn(parent: string): WorkspacePackage[] {
  return readdirSync(join(ROOT, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, parent, entry.name, "package.json")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ dir: `${parent}/${name}`, manifest: readManifest(`${parent}/${name}`) }));
}

/** The Mailpiece packages `name` needs at run time, itself included: its dependencies, transitively (no peers). */
export function runtimeClosure(name: string, byName: ReadonlyMap<string, WorkspacePackage>): string[] {
  const seen = new Set<string>();
  const visit = (current: string) => {
    if (seen.has(current)) return;
    const pkg = byName.get(current);
    if (pkg === undefined) throw new Error(`${current} is not a package of this workspace.`);
    seen.add(current);
    for (const dependency of Object.keys(pkg.manifest.dependencies ?? {})) {
      if (dependency.startsWith("@mailpiece/")) visit(dependency);
    }
  };
  visit(name);
  return [...seen].sort();
}

/** The Mailpiece packages a package declares as optional peers (entry points that need them load them). */
export function optionalPeers(manifest: Manifest): string[] {
  return Object.keys(manifest.peerDependencies ?? {}).filter(
    (peer) => peer.startsWith("@mailpiece/") && manifest.peerDependenciesMeta?.[peer]?.optional === true,
  );
}

/**
 * The optional peers a package declares that come from the registry, not from this workspace (`vitest` of the
 * conformance kit's `./vitest` entry), each with its version range.
 */
export function registryOptionalPeers(manifest: Manifest): Map<string, string> {
  return new Map(
    Object.entries(manifest.peerDependencies ?? {}).filter(
      ([peer]) => !peer.startsWith("@mailpiece/") && manifest.peerDependenciesMeta?.[peer]?.optional === true,
    ),
  );
}

/** The workspace source of each published entry point: `.` → `src/index.ts`. */
export function sourceEntries(manifest: Manifest): Map<string, string> {
  const entries = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    // A workspace entry is its source file, or conditions whose default is the source file.
    entries.set(subpath, typeof target === "string" ? target : target.default);
  }
  return entries;
}

/** The import specifier of an entry point: `.` of @mailpiece/forms is `@mailpiece/forms`, `./packet` adds `/packet`. */
export function specifier(name: string, subpath: string): string {
  return subpath === "." ? name : `${name}/${subpath.replace(/^\.\//, "")}`;
}

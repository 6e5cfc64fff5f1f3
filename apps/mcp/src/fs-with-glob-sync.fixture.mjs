/**
 * `node:fs` with `globSync` for Node 20 (see fs-glob-sync.fixture.mjs). It answers the one form the MCP conformance
 * runner uses, `**\/<file name>` under `cwd`, and throws for any other pattern rather than answer wrongly.
 */
import * as fs from "node:fs";
import { join, relative } from "node:path";

export * from "node:fs";
export default fs;

export function globSync(pattern, options = {}) {
  const match = /^\*\*\/([^*?/]+)$/.exec(pattern);
  if (!match) throw new Error(`globSync here answers **/<file name> only, not ${pattern}`);
  const root = options.cwd ?? process.cwd();
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name === match[1])
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)));
}

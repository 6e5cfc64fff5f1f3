/**
 * Supplies `globSync` of `node:fs` (Node 22 and later) on Node 20 for the MCP conformance runner, which imports it.
 * Registered with `node --import` for the runner's process only: every import of `fs` then resolves to
 * `fs-with-glob-sync.fixture.mjs`, which is `node:fs` plus `globSync`.
 */
import * as fs from "node:fs";
import { register } from "node:module";

if (typeof fs.globSync !== "function") {
  const shim = new URL("./fs-with-glob-sync.fixture.mjs", import.meta.url).href;
  const hooks = `export async function resolve(specifier, context, next) {
    if ((specifier === "fs" || specifier === "node:fs") && context.parentURL !== ${JSON.stringify(shim)}) {
      return { url: ${JSON.stringify(shim)}, shortCircuit: true };
    }
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

#!/usr/bin/env node
// Installed from npm, every Mailpiece package resolves to built JavaScript and the server runs as it is. In the
// workspace, without the `mailpiece-built` condition, they resolve to their TypeScript sources: tsx loads those.
if (/\.[cm]?ts$/.test(import.meta.resolve("@mailpiece/core"))) {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/main.ts");
} else {
  await import("../dist/main.js");
}

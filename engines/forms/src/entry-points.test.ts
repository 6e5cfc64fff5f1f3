import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;

/** Every module the file imports, statically or dynamically, following this package's own files. */
function importsReachedFrom(entry: string): Set<string> {
  const reached = new Set<string>();
  const files = [new URL(entry, import.meta.url)];
  const seen = new Set<string>();
  for (let file = files.pop(); file !== undefined; file = files.pop()) {
    if (seen.has(file.href)) continue;
    seen.add(file.href);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? "";
      if (specifier.startsWith("./") || specifier.startsWith("../")) {
        if (specifier.endsWith(".ts")) files.push(new URL(specifier, file));
      } else reached.add(specifier);
    }
  }
  return reached;
}

describe("entry points", () => {
  it("the root entry needs no typesetter; the packet entry does", () => {
    const root = importsReachedFrom("./index.ts");
    expect([...root].filter((specifier) => specifier.startsWith("@mailpiece/"))).toEqual([
      "@mailpiece/errors",
    ]);
    expect(importsReachedFrom("./packet.ts").has("@mailpiece/typesetter")).toBe(true);
  });
});

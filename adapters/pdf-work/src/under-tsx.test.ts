import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { createInlinePdfWork } from "./inline-pdf-work.ts";
import { shortLetter } from "./test-support.ts";

const run = promisify(execFile);

it("works in a process that itself runs under tsx, as the server does", { timeout: 60_000 }, async () => {
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  const fixture = fileURLToPath(new URL("./under-tsx.fixture.ts", import.meta.url));
  const { stdout } = await run(process.execPath, [tsx, fixture], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    timeout: 58_000,
  });
  const expected = await createInlinePdfWork().typesetLetter(shortLetter());
  expect(JSON.parse(stdout)).toEqual({
    underTsx: true,
    page_count: expected.page_count,
    bytes: expected.pdf.byteLength,
    inspected: expected.page_count,
    marked: expected.page_count,
  });
});

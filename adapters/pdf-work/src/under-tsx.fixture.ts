/**
 * Run by under-tsx.test.ts as `tsx src/under-tsx.fixture.ts`, the way the server runs: creates a pool, typesets a
 * letter, reads it back and watermarks it, and prints what it got as JSON.
 */
import { createPdfWorkerPool } from "./index.ts";
import { shortLetter } from "./test-support.ts";

const pool = createPdfWorkerPool({ threads: 1, deadlineMs: 55_000 });
try {
  const letter = await pool.typesetLetter(shortLetter());
  const info = await pool.inspectPdf(letter.pdf);
  const marked = await pool.watermarkPdf(letter.pdf, { text: "TEST MODE" });
  const underTsx = process.execArgv.some((argument) => argument.includes("tsx"));
  const report = {
    underTsx,
    page_count: letter.page_count,
    bytes: letter.pdf.byteLength,
    inspected: info.page_count,
    marked: marked.page_count,
  };
  process.stdout.write(JSON.stringify(report));
} finally {
  await pool.close();
}

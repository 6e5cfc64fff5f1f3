import { checkPostcard } from "../engines/postcard/src/index.ts";
import { PDFDocument, samplePostcardPdf } from "../engines/postcard/src/sample-postcard.fixture.ts";
import { table } from "./lib.ts";

const WARMUP = 20;
const ITERATIONS = 200;
const ROUND = 20;

/**
 * Postcard checks per second against pdf-lib merely loading the same file (`PDFDocument.load`), measured in the
 * same run: a realistic 4x6 card (page 1 a full-bleed 1800 x 1200 px photo, page 2 a message, a divider and a small
 * picture outside the address zone). Fixed iteration counts after a warm-up; one call at a time, the cases taking
 * turns.
 */
export async function benchPostcard(): Promise<string> {
  const pdf = await samplePostcardPdf();
  const first = await checkPostcard(pdf, "4x6");
  if (!first.ok) throw new Error(`the bench postcard must pass: ${JSON.stringify(first.problems)}`);
  const measured = await rates([
    () => PDFDocument.load(pdf),
    () =>
      PDFDocument.load(pdf, {
        ignoreEncryption: true,
        updateMetadata: false,
        parseSpeed: Number.POSITIVE_INFINITY,
      }),
    () => checkPostcard(pdf, "4x6"),
  ]);
  const [load, loadLikeCheck, check] = [measured[0]!, measured[1]!, measured[2]!];
  const row = (name: string, perSecond: number) => [
    name,
    perSecond.toFixed(1),
    (1000 / perSecond).toFixed(2),
    (perSecond / load).toFixed(2),
  ];
  return [
    `4x6 postcard of ${(pdf.length / 1024).toFixed(0)} KiB (1800 x 1200 px photo on page 1, text on page 2); ` +
      `${ITERATIONS} calls each after ${WARMUP} warm-up calls, in turns of ${ROUND}`,
    table([
      ["case", "per second", "ms each", "ratio to PDFDocument.load"],
      row("PDFDocument.load(pdf) (baseline)", load),
      row("PDFDocument.load, the check's load options", loadLikeCheck),
      row('checkPostcard(pdf, "4x6")', check),
    ]),
  ].join("\n");
}

/**
 * Calls per second of each case: after the warm-up, the cases take turns in rounds of ROUND calls, so that garbage
 * collection and CPU frequency drift fall on all of them alike.
 */
async function rates(cases: (() => Promise<unknown>)[]): Promise<number[]> {
  for (const run of cases) for (let i = 0; i < WARMUP; i++) await run();
  const nanos = cases.map(() => 0n);
  for (let round = 0; round < ITERATIONS / ROUND; round++) {
    for (const [c, run] of cases.entries()) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < ROUND; i++) await run();
      nanos[c]! += process.hrtime.bigint() - start;
    }
  }
  return nanos.map((n) => ITERATIONS / (Number(n) / 1e9));
}

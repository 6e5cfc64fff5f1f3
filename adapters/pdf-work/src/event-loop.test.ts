import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { heavyLetter, shortLetter } from "./test-support.ts";
import { createPdfWorkerPool } from "./worker-pool.ts";

/** Generous: inline, the heavy letter holds the loop for its whole typesetting (about a second on a busy machine). */
const MAX_DELAY_MS = 500;

it("the caller's event loop stays free while a thread typesets a long markdown letter", {
  timeout: 60_000,
}, async () => {
  const pool = createPdfWorkerPool({ threads: 1, deadlineMs: 55_000 });
  try {
    // Start the thread and load the typesetter and its fonts first; only the heavy job is measured.
    await pool.typesetLetter(shortLetter());
    const letter = heavyLetter();
    expect(letter.body.length).toBeGreaterThanOrEqual(19_000);

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // The sampler measures a stall between two of its ticks: let it tick before the job and after it.
    await sleep(50);
    const result = await pool.typesetLetter(letter);
    await sleep(50);
    delay.disable();

    expect(result.page_count).toBeGreaterThan(5);
    expect(delay.max / 1e6).toBeLessThan(MAX_DELAY_MS);
  } finally {
    await pool.close();
  }
});

import type { Piscina } from "piscina";
import { describe, expect, it, vi } from "vitest";
import { PdfWorkError } from "./pdf-work-error.ts";
import { resolvePoolOptions } from "./pool-options.ts";
import { handMadePdf, heavyLetter, rejectionOf, shortCard, shortLetter } from "./test-support.ts";
import { createPdfWorkerPool, openPdfWorkerPool } from "./worker-pool.ts";

const THREADS = { timeout: 60_000 };
/** Far above any job here, so that only the deadline under test can fire. */
const GENEROUS_MS = 55_000;
const PDF = handMadePdf([{ width: 612, height: 792 }]);

describe("deadline", () => {
  it("a job past deadlineMs rejects with pdf_work_deadline", THREADS, async () => {
    const pool = createPdfWorkerPool({ threads: 1, deadlineMs: 1 });
    try {
      const error = await rejectionOf(pool.typesetLetter(heavyLetter()));
      expect(PdfWorkError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "pdf_work_deadline" });
      expect((error as Error).message).toContain("typesetLetter");
    } finally {
      await pool.close();
    }
  });

  it("a handwritten card past deadlineMs rejects with pdf_work_deadline", THREADS, async () => {
    // A fresh thread loads the typesetter and its fonts first: far longer than 1 ms.
    const pool = createPdfWorkerPool({ threads: 1, deadlineMs: 1 });
    try {
      const error = await rejectionOf(pool.typesetHandwritten(shortCard()));
      expect(error).toMatchObject({ code: "pdf_work_deadline" });
      expect((error as Error).message).toContain("typesetHandwritten");
    } finally {
      await pool.close();
    }
  });

  it("a running job past its deadline ends its thread; a new thread runs the next job", THREADS, async () => {
    let piscina: Piscina | undefined;
    const pool = openPdfWorkerPool({
      ...resolvePoolOptions({ threads: 1 }),
      deadlineMsFor: (operation) => (operation === "typesetLetter" ? 1 : GENEROUS_MS),
      observe: (created) => {
        piscina = created;
      },
    });
    try {
      // A first job starts the thread, so that the late job runs on it rather than waiting in the queue.
      expect((await pool.inspectPdf(PDF)).page_count).toBe(1);
      const [first] = piscina?.threads ?? [];
      expect(first).toBeDefined();

      const error = await rejectionOf(pool.typesetLetter(heavyLetter()));
      expect(error).toMatchObject({ code: "pdf_work_deadline" });

      expect((await pool.inspectPdf(PDF)).page_count).toBe(1);
      const now = piscina?.threads ?? [];
      expect(now).toHaveLength(1);
      expect(now[0]?.threadId).not.toBe(first?.threadId);
    } finally {
      await pool.close();
    }
  });
});

describe("bounded queue", () => {
  it(
    "with 1 thread and a queue of 1, further jobs are refused with pdf_work_busy; accepted ones succeed",
    THREADS,
    async () => {
      const pool = createPdfWorkerPool({ threads: 1, maxQueue: 1, deadlineMs: GENEROUS_MS });
      try {
        const jobs = Array.from({ length: 5 }, () => pool.inspectPdf(PDF));
        const results = await Promise.allSettled(jobs);
        const accepted = results.filter((result) => result.status === "fulfilled");
        const refused = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
        expect(accepted).toHaveLength(2);
        for (const result of accepted) expect(result.value.page_count).toBe(1);
        expect(refused).toHaveLength(3);
        for (const error of refused) {
          expect(PdfWorkError.isInstance(error)).toBe(true);
          expect(error).toMatchObject({ code: "pdf_work_busy" });
          expect((error as PdfWorkError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
        }
        // Room again once the accepted jobs are done.
        expect((await pool.inspectPdf(PDF)).page_count).toBe(1);
      } finally {
        await pool.close();
      }
    },
  );
});

describe("idle threads", () => {
  it("exit after idleTimeoutMs (with minThreads 0), and a later job starts a new one", THREADS, async () => {
    let piscina: Piscina | undefined;
    const pool = openPdfWorkerPool({
      ...resolvePoolOptions({ threads: 1, minThreads: 0, deadlineMs: GENEROUS_MS, idleTimeoutMs: 0 }),
      observe: (created) => {
        piscina = created;
      },
    });
    try {
      expect((await pool.inspectPdf(PDF)).page_count).toBe(1);
      await vi.waitFor(() => expect(piscina?.threads).toHaveLength(0), { timeout: 30_000, interval: 50 });
      expect((await pool.inspectPdf(PDF)).page_count).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

describe("warm threads", () => {
  it("keeps minThreads started while idle", THREADS, async () => {
    let piscina: Piscina | undefined;
    const pool = openPdfWorkerPool({
      ...resolvePoolOptions({ threads: 2, minThreads: 1, deadlineMs: GENEROUS_MS, idleTimeoutMs: 0 }),
      observe: (created) => {
        piscina = created;
      },
    });
    try {
      expect((await pool.inspectPdf(PDF)).page_count).toBe(1);
      // Past the idle timeout, the one warm thread is still there.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(piscina?.threads.length).toBe(1);
    } finally {
      await pool.close();
    }
  });
});

describe("close", () => {
  it(
    "lets an accepted job finish, ends the threads, and refuses later calls with pdf_work_closed",
    THREADS,
    async () => {
      let piscina: Piscina | undefined;
      const pool = openPdfWorkerPool({
        ...resolvePoolOptions({ threads: 1, deadlineMs: GENEROUS_MS }),
        observe: (created) => {
          piscina = created;
        },
      });
      const accepted = pool.typesetLetter(shortLetter());
      const closed = pool.close();
      expect((await accepted).page_count).toBe(1);
      await closed;
      expect(piscina?.threads).toHaveLength(0);

      const calls = [
        pool.typesetLetter(shortLetter()),
        pool.inspectPdf(PDF),
        pool.checkPostcard(PDF, "4x6"),
        pool.buildPacket({} as never, { fields: {} }, {} as never),
      ];
      for (const call of calls) {
        const error = await rejectionOf(call);
        expect(PdfWorkError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: "pdf_work_closed" });
      }
      await pool.close();
    },
  );
});

import { createLedger, LedgerError } from "../engines/ledger/src/index.ts";
import { EMBEDDED_STORES, type StoreKind } from "./embedded-stores.ts";
import { table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "3");
const CALLERS = 10;
/** A value about the size of a ledger book record holding a pending movement, for the raw writes. */
const RAW_VALUE = {
  book: "ws_bench_0:test",
  seq: 1,
  available_cents: 0,
  reserved_cents: 0,
  funded_cents: 300,
  captured_cents: 300,
  pending: {
    entry: {
      id: "le_000000000000_1",
      book: "ws_bench_0:test",
      seq: 1,
      kind: "capture",
      amount_cents: 300,
      postings: [
        { account: "reserved", amount_cents: -300 },
        { account: "captured", amount_cents: 300 },
      ],
      idempotency_key: "c-0-0",
      reservation_id: "le_000000000000_1",
      created_at: 0,
    },
    index: [{ key: "ledger_keys:ws_bench_0:test:c-0-0", value: { kind: "idempotency", seq: 1 } }],
  },
};

/** Runs `callers` loops of `step(caller, n)` for `seconds`; the number of steps done per second. */
async function rate(
  seconds: number,
  callers: number,
  step: (caller: number, n: number) => Promise<number>,
): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let n = 0; performance.now() < deadline; n++) {
        const steps = await step(caller, n);
        done += steps;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

/** Raw `store.put` writes per second, each caller on keys of its own, on a fresh store. */
async function rawPuts(kind: StoreKind, callers: number, seconds = SECONDS): Promise<number> {
  const { store, dispose } = await kind.open();
  try {
    return await rate(seconds, callers, async (caller, n) => {
      await store.put(`raw:${caller}:${n % 1000}`, RAW_VALUE);
      return 1;
    });
  } finally {
    await dispose();
  }
}

/**
 * Ledger movements per second on a fresh store: each caller runs fund + reserve + capture cycles (three entries) on
 * its book; `books` books shared round robin among the callers. Counts the `ledger_busy` refusals.
 */
async function ledgerMovements(
  kind: StoreKind,
  callers: number,
  books: number,
  seconds = SECONDS,
): Promise<{ perSecond: number; busy: number; entries: number }> {
  const { store, dispose } = await kind.open();
  const ledger = createLedger(store);
  let busy = 0;
  try {
    const perSecond = await rate(seconds, callers, async (caller, n) => {
      const book = `ws_bench_${caller % books}:test`;
      const key = `${caller}-${n}`;
      try {
        await ledger.fund(book, { amount_cents: 300, idempotency_key: `f-${key}` });
        const hold = await ledger.reserve(book, { amount_cents: 300, idempotency_key: `r-${key}` });
        await ledger.capture(book, { reservation_id: hold.id, idempotency_key: `c-${key}` });
        return 3;
      } catch (error) {
        if (!LedgerError.isInstance(error) || error.code !== "ledger_busy") throw error;
        busy++;
        return 0;
      }
    });
    let entries = 0;
    for (let b = 0; b < books; b++) entries += (await ledger.balance(`ws_bench_${b}:test`)).seq;
    return { perSecond, busy, entries };
  } finally {
    await dispose();
  }
}

/**
 * Ledger movements (fund + reserve + capture cycles) per second against raw `store.put` writes per second on the
 * same kind of store, measured in the same run, as ratios: one caller, 10 concurrent callers on one book, and 10
 * concurrent callers on 10 books; on the memory store and on the file store.
 */
export async function benchLedger(): Promise<string> {
  const rows: (string | number)[][] = [
    ["store", "case", "movements/s", "raw puts/s (same callers)", "ratio to raw puts", "ledger_busy"],
  ];
  for (const kind of EMBEDDED_STORES) {
    // Warm-up, not counted: the JIT settles on both paths.
    await rawPuts(kind, 1, 0.3);
    await ledgerMovements(kind, CALLERS, 1, 0.3);

    const raw1 = await rawPuts(kind, 1);
    const raw10 = await rawPuts(kind, CALLERS);
    const cases: [string, number, number, number][] = [
      ["1 caller, 1 book", 1, 1, raw1],
      [`${CALLERS} callers, 1 book`, CALLERS, 1, raw10],
      [`${CALLERS} callers, ${CALLERS} books`, CALLERS, CALLERS, raw10],
    ];
    rows.push([kind.name, `raw store.put, 1 caller (baseline)`, "", raw1.toFixed(0), "1.00", ""]);
    rows.push([kind.name, `raw store.put, ${CALLERS} callers (baseline)`, "", raw10.toFixed(0), "1.00", ""]);
    for (const [name, callers, books, raw] of cases) {
      const result = await ledgerMovements(kind, callers, books);
      rows.push([
        kind.name,
        name,
        result.perSecond.toFixed(0),
        raw.toFixed(0),
        (result.perSecond / raw).toFixed(3),
        result.busy,
      ]);
    }
  }
  return [
    `${SECONDS} s a case; a movement is one ledger entry (fund, reserve or capture: 2 or 3 postings each), ` +
      "committed with the pending-movement protocol; raw puts write a record of the book record's size",
    table(rows),
  ].join("\n");
}

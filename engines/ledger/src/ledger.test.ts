import { describe, expect, it } from "vitest";
import { LedgerError } from "./errors.ts";
import { createLedger } from "./ledger.ts";
import {
  allEntries,
  codeOf,
  expectBalanced,
  keysUnder,
  memoryStore,
  NOW,
  seeded,
  snapshot,
  withoutReplayed,
} from "./test-support.ts";

const BOOK = "ws_123:test";
const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,511}$/;

function setup() {
  const store = memoryStore();
  return { store, ledger: createLedger(store, { now: NOW }) };
}

describe("movements", () => {
  it("funds, reserves, captures and releases with balanced entries", async () => {
    const { ledger } = setup();
    expect(await ledger.balance(BOOK)).toEqual({
      available_cents: 0,
      reserved_cents: 0,
      funded_cents: 0,
      captured_cents: 0,
      seq: 0,
    });

    const funded = await ledger.fund(BOOK, {
      amount_cents: 5000,
      idempotency_key: "topup-1",
      reference: "pi_1",
    });
    expect(funded).toEqual({
      id: expect.stringMatching(/^le_[0-9a-f]{12}_1$/),
      book: BOOK,
      seq: 1,
      kind: "fund",
      amount_cents: 5000,
      postings: [
        { account: "funding", amount_cents: -5000 },
        { account: "available", amount_cents: 5000 },
      ],
      idempotency_key: "topup-1",
      reference: "pi_1",
      created_at: NOW(),
      replayed: false,
    });

    const a = await ledger.reserve(BOOK, { amount_cents: 1200, idempotency_key: "order-a" });
    const b = await ledger.reserve(BOOK, {
      amount_cents: 800,
      idempotency_key: "order-b",
      reference: "ord_b",
    });
    expect(a.postings).toEqual([
      { account: "available", amount_cents: -1200 },
      { account: "reserved", amount_cents: 1200 },
    ]);
    expect(await ledger.balance(BOOK)).toMatchObject({ available_cents: 3000, reserved_cents: 2000, seq: 3 });

    const captured = await ledger.capture(BOOK, { reservation_id: a.id, idempotency_key: "capture-a" });
    expect(captured).toMatchObject({
      kind: "capture",
      amount_cents: 1200,
      reservation_id: a.id,
      postings: [
        { account: "reserved", amount_cents: -1200 },
        { account: "captured", amount_cents: 1200 },
      ],
    });
    const released = await ledger.release(BOOK, { reservation_id: b.id, idempotency_key: "release-b" });
    expect(released).toMatchObject({ kind: "release", amount_cents: 800, reservation_id: b.id });

    expect(await expectBalanced(ledger, BOOK)).toEqual({
      available_cents: 3800,
      reserved_cents: 0,
      funded_cents: 5000,
      captured_cents: 1200,
      seq: 5,
    });
    expect((await allEntries(ledger, BOOK)).map((entry) => entry.kind)).toEqual([
      "fund",
      "reserve",
      "reserve",
      "capture",
      "release",
    ]);
  });

  it("captures part of a reservation and returns the rest to available in the same entry", async () => {
    const { ledger } = setup();
    await ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f" });
    const r = await ledger.reserve(BOOK, { amount_cents: 700, idempotency_key: "r" });
    const c = await ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c", amount_cents: 450 });
    expect(c.amount_cents).toBe(450);
    expect(c.postings).toEqual([
      { account: "reserved", amount_cents: -700 },
      { account: "captured", amount_cents: 450 },
      { account: "available", amount_cents: 250 },
    ]);
    expect(await expectBalanced(ledger, BOOK)).toMatchObject({
      available_cents: 550,
      reserved_cents: 0,
      captured_cents: 450,
    });
    const full = await ledger.reserve(BOOK, { amount_cents: 550, idempotency_key: "r2" });
    const all = await ledger.capture(BOOK, {
      reservation_id: full.id,
      idempotency_key: "c2",
      amount_cents: 550,
    });
    expect(all.postings).toHaveLength(2);
    expect(await ledger.balance(BOOK)).toMatchObject({ available_cents: 0, captured_cents: 1000 });
  });

  it("refuses a reservation larger than what is available, writing nothing", async () => {
    const { store, ledger } = setup();
    await ledger.fund(BOOK, { amount_cents: 500, idempotency_key: "f" });
    const before = await snapshot(store);
    const refused = ledger.reserve(BOOK, { amount_cents: 501, idempotency_key: "big" });
    await expect(refused).rejects.toSatisfy(
      (error) =>
        LedgerError.isInstance(error) &&
        error.code === "insufficient_credits" &&
        (error as LedgerError).details.available_cents === 500,
    );
    expect(await snapshot(store)).toEqual(before);
    // The key was not used: the same key may reserve once credits are there.
    await ledger.fund(BOOK, { amount_cents: 1, idempotency_key: "f2" });
    expect((await ledger.reserve(BOOK, { amount_cents: 501, idempotency_key: "big" })).replayed).toBe(false);
  });

  it("settles a reservation at most once", async () => {
    const { ledger } = setup();
    await ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f" });
    const r = await ledger.reserve(BOOK, { amount_cents: 300, idempotency_key: "r" });
    const captured = await ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c" });
    const error = await ledger.release(BOOK, { reservation_id: r.id, idempotency_key: "x" }).catch((e) => e);
    expect(LedgerError.isInstance(error) && error.code).toBe("reservation_settled");
    expect((error as LedgerError).details).toEqual({ reservation_id: r.id, settled_by: captured.id });
    expect(await codeOf(ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c-again" }))).toBe(
      "reservation_settled",
    );
    // A retry of the capture itself replays it.
    const again = await ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c" });
    expect(again.replayed).toBe(true);
    expect(withoutReplayed(again)).toEqual(withoutReplayed(captured));
    await expectBalanced(ledger, BOOK);
  });

  it("keeps books apart, also books whose ids extend one another", async () => {
    const { store, ledger } = setup();
    const books = ["ws_1:test", "ws_1:test:settle", "ws_1:test:0", "ws_1"];
    for (const [i, book] of books.entries()) {
      await ledger.fund(book, { amount_cents: 100 * (i + 1), idempotency_key: "same-key" });
      await ledger.reserve(book, { amount_cents: 10, idempotency_key: "le_x_1" });
    }
    for (const [i, book] of books.entries()) {
      const balance = await expectBalanced(ledger, book);
      expect(balance).toMatchObject({ available_cents: 100 * (i + 1) - 10, reserved_cents: 10, seq: 2 });
    }
    const first = await ledger.entries(books[0]!);
    // An entry id of one book is nothing in another.
    expect(await ledger.entry(books[1]!, first.entries[0]!.id)).toBeUndefined();
    expect(
      await codeOf(
        ledger.release(books[1]!, { reservation_id: first.entries[1]!.id, idempotency_key: "rel" }),
      ),
    ).toBe("reservation_not_found");
    expect(await keysUnder(store, "ledger_books:")).toHaveLength(4);
    expect(await keysUnder(store, "ledger_entries:")).toHaveLength(8);
  });

  it("pages entries with a cursor and finds one entry by id", async () => {
    const { ledger } = setup();
    const made = [];
    for (let i = 1; i <= 12; i++)
      made.push(await ledger.fund(BOOK, { amount_cents: i, idempotency_key: `f${i}` }));
    const page1 = await ledger.entries(BOOK, { limit: 5 });
    expect(page1.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(page1.cursor).toBe(made[4]!.id);
    const page2 = await ledger.entries(BOOK, { limit: 5, cursor: page1.cursor! });
    expect(page2.entries.map((e) => e.seq)).toEqual([6, 7, 8, 9, 10]);
    const page3 = await ledger.entries(BOOK, { limit: 5, cursor: page2.cursor! });
    expect(page3.entries.map((e) => e.seq)).toEqual([11, 12]);
    expect(page3.cursor).toBeUndefined();
    expect((await ledger.entries(BOOK)).entries).toHaveLength(12);
    expect((await ledger.entries("ws_empty:test")).entries).toEqual([]);

    expect(await ledger.entry(BOOK, made[6]!.id)).toEqual(withoutReplayed(made[6]!));
    expect(await ledger.entry(BOOK, made[6]!.id.replace(/_7$/, "_13"))).toBeUndefined();
    expect(await ledger.entry(BOOK, "le_nothing")).toBeUndefined();

    expect(await codeOf(ledger.entries(BOOK, { cursor: "nope" }))).toBe("invalid_page");
    expect(await codeOf(ledger.entries(BOOK, { cursor: made[0]!.id.replace(/_1$/, "_99") }))).toBe(
      "invalid_page",
    );
    for (const limit of [0, 1001, 1.5, Number.NaN]) {
      expect(await codeOf(ledger.entries(BOOK, { limit }))).toBe("invalid_page");
    }
  });
});

describe("idempotency", () => {
  it("replays a movement called again with the same key and arguments", async () => {
    const { store, ledger } = setup();
    const f = await ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f", reference: "pi_9" });
    const r = await ledger.reserve(BOOK, { amount_cents: 400, idempotency_key: "r" });
    const c = await ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c", amount_cents: 100 });
    const r2 = await ledger.reserve(BOOK, { amount_cents: 50, idempotency_key: "r2" });
    const l = await ledger.release(BOOK, { reservation_id: r2.id, idempotency_key: "l" });
    const before = await snapshot(store);

    const again = [
      await ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f", reference: "pi_9" }),
      await ledger.reserve(BOOK, { amount_cents: 400, idempotency_key: "r" }),
      await ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c", amount_cents: 100 }),
      await ledger.reserve(BOOK, { amount_cents: 50, idempotency_key: "r2" }),
      await ledger.release(BOOK, { reservation_id: r2.id, idempotency_key: "l" }),
    ];
    for (const [i, original] of [f, r, c, r2, l].entries()) {
      expect(again[i]!.replayed).toBe(true);
      expect(withoutReplayed(again[i]!)).toEqual(withoutReplayed(original));
    }
    expect(await snapshot(store)).toEqual(before);
  });

  it("replays a reservation even when the balance could no longer pay for it", async () => {
    const { ledger } = setup();
    await ledger.fund(BOOK, { amount_cents: 300, idempotency_key: "f" });
    const r = await ledger.reserve(BOOK, { amount_cents: 300, idempotency_key: "r" });
    expect((await ledger.balance(BOOK)).available_cents).toBe(0);
    const again = await ledger.reserve(BOOK, { amount_cents: 300, idempotency_key: "r" });
    expect(again).toEqual({ ...r, replayed: true });
  });

  it("refuses a used key with other arguments, whatever the operation", async () => {
    const { store, ledger } = setup();
    await ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f", reference: "pi_1" });
    const r = await ledger.reserve(BOOK, { amount_cents: 400, idempotency_key: "r" });
    const other = await ledger.reserve(BOOK, { amount_cents: 100, idempotency_key: "r-other" });
    await ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c", amount_cents: 300 });
    const before = await snapshot(store);
    const conflicts = [
      ledger.fund(BOOK, { amount_cents: 1001, idempotency_key: "f", reference: "pi_1" }),
      ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f" }),
      ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f", reference: "pi_2" }),
      ledger.reserve(BOOK, { amount_cents: 1000, idempotency_key: "f", reference: "pi_1" }),
      ledger.reserve(BOOK, { amount_cents: 401, idempotency_key: "r" }),
      ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c" }),
      ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c", amount_cents: 299 }),
      ledger.capture(BOOK, { reservation_id: other.id, idempotency_key: "c", amount_cents: 300 }),
      ledger.release(BOOK, { reservation_id: r.id, idempotency_key: "c" }),
    ];
    for (const attempt of conflicts) expect(await codeOf(attempt)).toBe("idempotency_conflict");
    const error = await ledger.fund(BOOK, { amount_cents: 1, idempotency_key: "r" }).catch((e) => e);
    expect((error as LedgerError).details).toEqual({ idempotency_key: "r", entry_id: r.id });
    expect(await snapshot(store)).toEqual(before);
  });

  it("takes long keys and keys with colons, hashing them into valid store keys", async () => {
    const { store, ledger } = setup();
    const long = `k${"x".repeat(511)}`;
    const colon = "order:ord_1:attempt:1";
    const f = await ledger.fund(BOOK, { amount_cents: 10, idempotency_key: long });
    const g = await ledger.fund(BOOK, { amount_cents: 20, idempotency_key: colon });
    expect(f.idempotency_key).toBe(long);
    expect((await ledger.fund(BOOK, { amount_cents: 10, idempotency_key: long })).replayed).toBe(true);
    expect((await ledger.fund(BOOK, { amount_cents: 20, idempotency_key: colon })).id).toBe(g.id);
    expect(await codeOf(ledger.fund(BOOK, { amount_cents: 11, idempotency_key: long }))).toBe(
      "idempotency_conflict",
    );
    const keys = await keysUnder(store, "ledger_keys:");
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).toMatch(KEY_PATTERN);
      expect(key).toMatch(/^ledger_keys:ws_123:test:_sha256\.[0-9a-f]{64}$/);
    }
  });
});

describe("bad inputs", () => {
  it("refuses bad amounts, books, keys, references and reservations with their codes, writing nothing", async () => {
    const { store, ledger } = setup();
    await ledger.fund(BOOK, { amount_cents: 1000, idempotency_key: "f" });
    const r = await ledger.reserve(BOOK, { amount_cents: 400, idempotency_key: "r" });
    const fundEntry = (await ledger.entries(BOOK)).entries[0]!;
    const before = await snapshot(store);
    // biome-ignore lint/suspicious/noExplicitAny: deliberately ill-typed inputs, as a JavaScript caller may send
    const loose = ledger as any;

    const amounts: unknown[] = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, "100", null, 10n];
    for (const amount_cents of amounts) {
      expect(await codeOf(loose.fund(BOOK, { amount_cents, idempotency_key: "bad" }))).toBe("invalid_amount");
      expect(await codeOf(loose.reserve(BOOK, { amount_cents, idempotency_key: "bad" }))).toBe(
        "invalid_amount",
      );
      expect(
        await codeOf(loose.capture(BOOK, { reservation_id: r.id, idempotency_key: "bad", amount_cents })),
      ).toBe("invalid_amount");
    }
    expect(
      await codeOf(ledger.capture(BOOK, { reservation_id: r.id, idempotency_key: "c", amount_cents: 401 })),
    ).toBe("invalid_amount");
    expect(
      await codeOf(ledger.fund(BOOK, { amount_cents: Number.MAX_SAFE_INTEGER, idempotency_key: "huge" })),
    ).toBe("invalid_amount");

    const books: unknown[] = ["", "ws 1", "-ws", "ws/1", "ws_é", `w${"s".repeat(256)}`, undefined, 42];
    for (const book of books) {
      expect(await codeOf(loose.fund(book, { amount_cents: 1, idempotency_key: "k" }))).toBe("invalid_book");
      expect(await codeOf(loose.reserve(book, { amount_cents: 1, idempotency_key: "k" }))).toBe(
        "invalid_book",
      );
      expect(await codeOf(loose.capture(book, { reservation_id: r.id, idempotency_key: "k" }))).toBe(
        "invalid_book",
      );
      expect(await codeOf(loose.release(book, { reservation_id: r.id, idempotency_key: "k" }))).toBe(
        "invalid_book",
      );
      expect(await codeOf(loose.balance(book))).toBe("invalid_book");
      expect(await codeOf(loose.entries(book))).toBe("invalid_book");
      expect(await codeOf(loose.entry(book, r.id))).toBe("invalid_book");
    }

    const keys: unknown[] = ["", " k", "_k", "k/1", `k${"x".repeat(512)}`, undefined, 7];
    for (const idempotency_key of keys) {
      expect(await codeOf(loose.fund(BOOK, { amount_cents: 1, idempotency_key }))).toBe(
        "invalid_idempotency_key",
      );
      expect(await codeOf(loose.release(BOOK, { reservation_id: r.id, idempotency_key }))).toBe(
        "invalid_idempotency_key",
      );
    }
    expect(await codeOf(loose.fund(BOOK, undefined))).toBe("invalid_idempotency_key");

    for (const reference of ["", "x".repeat(1025), 5, null]) {
      expect(await codeOf(loose.fund(BOOK, { amount_cents: 1, idempotency_key: "k", reference }))).toBe(
        "invalid_reference",
      );
    }

    const unknown = [
      r.id.replace(/_2$/, "_3"),
      r.id.replace(/_2$/, "_99"),
      fundEntry.id,
      "le_000000000000_2",
      "res_1",
      "",
      undefined,
    ];
    for (const reservation_id of unknown) {
      expect(await codeOf(loose.capture(BOOK, { reservation_id, idempotency_key: "k" }))).toBe(
        "reservation_not_found",
      );
      expect(await codeOf(loose.release(BOOK, { reservation_id, idempotency_key: "k" }))).toBe(
        "reservation_not_found",
      );
    }
    expect(await codeOf(ledger.release("ws_9:test", { reservation_id: r.id, idempotency_key: "k" }))).toBe(
      "reservation_not_found",
    );

    expect(await snapshot(store)).toEqual(before);
    await expectBalanced(ledger, BOOK);
  });
});

describe("double entry", () => {
  it("keeps every entry balanced and the balances equal to the postings over a seeded random run", async () => {
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed);
      const { ledger } = setup();
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const open: string[] = [];
      const made: { call: () => Promise<unknown>; id: string }[] = [];
      const model = { available: 0, reserved: 0, funded: 0, captured: 0 };
      let n = 0;
      for (let step = 0; step < 300; step++) {
        const roll = random();
        const key = `k${n++}`;
        if (roll < 0.2 || model.available === 0) {
          const amount = 1 + Math.floor(random() * 5000);
          const call = () => ledger.fund(BOOK, { amount_cents: amount, idempotency_key: key });
          made.push({ call, id: (await call()).id });
          model.available += amount;
          model.funded += amount;
        } else if (roll < 0.55) {
          const amount = 1 + Math.floor(random() * 2000);
          const call = () => ledger.reserve(BOOK, { amount_cents: amount, idempotency_key: key });
          if (amount > model.available) {
            expect(await codeOf(call())).toBe("insufficient_credits");
            continue;
          }
          const entry = await call();
          made.push({ call, id: entry.id });
          open.push(entry.id);
          model.available -= amount;
          model.reserved += amount;
        } else if (roll < 0.8 && open.length > 0) {
          const id = open.splice(Math.floor(random() * open.length), 1)[0]!;
          const held = (await ledger.entry(BOOK, id))!.amount_cents;
          const part = random() < 0.5 ? undefined : 1 + Math.floor(random() * held);
          const call = () =>
            ledger.capture(BOOK, {
              reservation_id: id,
              idempotency_key: key,
              ...(part === undefined ? {} : { amount_cents: part }),
            });
          made.push({ call, id: (await call()).id });
          const captured = part ?? held;
          model.reserved -= held;
          model.captured += captured;
          model.available += held - captured;
        } else if (roll < 0.9 && open.length > 0) {
          const id = open.splice(Math.floor(random() * open.length), 1)[0]!;
          const call = () => ledger.release(BOOK, { reservation_id: id, idempotency_key: key });
          const entry = await call();
          made.push({ call, id: entry.id });
          model.reserved -= entry.amount_cents;
          model.available += entry.amount_cents;
        } else if (made.length > 0) {
          // A retry of an earlier call: replayed, nothing moves.
          const earlier = pick(made);
          const again = (await earlier.call()) as { id: string; replayed: boolean };
          expect(again).toMatchObject({ id: earlier.id, replayed: true });
        }
      }
      const balance = await expectBalanced(ledger, BOOK);
      expect(balance).toMatchObject({
        available_cents: model.available,
        reserved_cents: model.reserved,
        funded_cents: model.funded,
        captured_cents: model.captured,
        seq: made.length,
      });
    }
  });
});

import { strict as assert } from "node:assert";
import type { Clock, ListPage, Store, StoredRecord } from "@mailpiece/ports";
import { isValidKey, manualClock, PortError } from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { type PortProcesses, siblingProgram, startPortProcesses } from "../processes/port-processes.ts";
import { refusalAssertion } from "../refused-with.ts";
import {
  SHARED_PHASES,
  SHARED_PLAN,
  SHARED_PROCESSES,
  type SharedResults,
  type StoreOpening,
  sharedKeys,
} from "./shared-store-plan.ts";
import { STORE_REQUIREMENTS } from "./store-requirements.ts";

const rejectsWithCode = refusalAssertion(PortError);

export type { StoreOpening } from "./shared-store-plan.ts";

/** The names of the Store contract tests, one per MUST sentence of the Store port. Skip lists are typed by it. */
export const STORE_CONTRACT_NAMES = [
  "rejects invalid keys with invalid_key",
  "accepts every valid key and keeps distinct keys apart",
  "rejects non-serialisable values",
  "stores any JSON value and returns it unchanged",
  "get returns a copy",
  "create stores version 1",
  "put stores the previous version + 1, and 1 when absent",
  "put with a matching ifVersion writes the next version",
  "put with a stale ifVersion throws version_conflict and changes nothing",
  "put with ifVersion: exactly one of many concurrent callers succeeds",
  "create is atomic under concurrent callers",
  "create on a live key returns created: false and the stored record",
  "delete returns whether a live record was removed",
  "delete with ifVersion deletes only on a match, else throws version_conflict",
  "ttl: a record is live until ttlMs has passed on the store's clock",
  "ttl: expired records are absent from get, list and create",
  "list returns exactly the live records whose key starts with the prefix",
  "list pages in key order and the cursor continues after the last key",
  "list returns at most limit records: 100 by default, never more than 1000",
  "list: a key present for the whole listing appears exactly once",
  "durable: acknowledged writes survive reopen",
  "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost",
] as const;

export type StoreContractName = (typeof STORE_CONTRACT_NAMES)[number];

const NOT_DURABLE = "the store declares durable: false";
const NOT_SHARED = "the store declares shared: false";

export interface StoreContractContext {
  /** A manual clock starting at 2026-01-01; the store MUST read time from it. Tests advance it instead of sleeping. */
  clock: Clock & { advance(ms: number): void };
}

export interface StoreContractOptions {
  /** Shown in reports, e.g. `file`. */
  name?: string;
  /** Opens a new, empty store on `ctx.clock`. Every test opens its own store and closes it when done. */
  create(ctx: StoreContractContext): Promise<Store>;
  /**
   * Opens the data of `previous` again, as a restarted process would, on the same clock. The suite has closed
   * `previous` before calling it. Required when the store declares `durable: true`.
   */
  reopen?(previous: Store): Promise<Store>;
  /**
   * How other processes open the data of `store` while it is open: a module, its exported opener and JSON options.
   * The suite starts several processes (`node --import tsx`) that open it at once and race on the same keys.
   * Required when the store declares `shared: true`.
   */
  sharedOpening?(store: Store): StoreOpening | Promise<StoreOpening>;
  /** Tests that cannot apply to the adapter, left out of the suite; a name the kit does not have is refused. */
  disable?: readonly StoreContractName[];
}

/** A test's body on the store it opened: throws on failure, or answers `notApplicable(reason)`. */
type StoreBody = (store: Store, clock: StoreContractContext["clock"]) => ReturnType<TestBody>;

/**
 * The Store contract: one named test per MUST sentence of `Store` (adapters/ports/src/store.ts). The durability and
 * sharing tests answer not applicable for a store that declares `durable: false` or `shared: false`.
 */
export function storeContract(options: StoreContractOptions): Suite<StoreContractName> {
  const withStore =
    (body: StoreBody): TestBody =>
    async () => {
      const clock = manualClock();
      const store = await options.create({ clock });
      try {
        return await body(store, clock);
      } finally {
        await store.close();
      }
    };

  const tests: Record<StoreContractName, TestBody> = {
    "rejects invalid keys with invalid_key": withStore(async (store) => {
      await store.put("keep", { kept: true });
      const invalid: unknown[] = [
        "",
        ":a",
        "-a",
        ".a",
        "a/b",
        "a\\b",
        "a b",
        "a?b",
        "a$",
        "a#b",
        "a~",
        "a%2e",
        "a:%2e%2e",
        "a\n",
        "../x",
        "é",
        `a${"b".repeat(512)}`,
        5,
        undefined,
        null,
      ];
      for (const raw of invalid) {
        const key = raw as string;
        const label = JSON.stringify(raw) ?? String(raw);
        await rejectsWithCode(() => store.get(key), "invalid_key", `get(${label})`);
        await rejectsWithCode(() => store.create(key, { v: 1 }), "invalid_key", `create(${label})`);
        await rejectsWithCode(() => store.put(key, { v: 1 }), "invalid_key", `put(${label})`);
        await rejectsWithCode(
          () => store.put(key, { v: 1 }, { ifVersion: 1 }),
          "invalid_key",
          `put(${label}, ifVersion)`,
        );
        await rejectsWithCode(() => store.delete(key), "invalid_key", `delete(${label})`);
      }
      const all = await listAll(store, "");
      assert.deepEqual(
        all.map((r) => r.key),
        ["keep"],
        "invalid keys must change nothing: only the record written before remains",
      );
      const kept = await store.get("keep");
      assert.equal(kept?.version, 1, "the existing record keeps its version");
      assert.deepEqual(kept?.value, { kept: true });
    }),

    "accepts every valid key and keeps distinct keys apart": withStore(async (store) => {
      const keys = [
        "a",
        "A",
        "0",
        "a:b",
        "a-b",
        "a.b",
        "a_b",
        "ab",
        "aB",
        "a::b",
        "a:",
        "a:.",
        "a:..",
        "a:...",
        "a:..:b",
        "a.:b",
        "a:.b",
        "a:b.",
        "a:b:c",
        `a${"b".repeat(511)}`,
        `A${"B".repeat(511)}`,
        `a${".".repeat(511)}`,
        `a${":".repeat(511)}`,
        `Z${"a.B:".repeat(127)}xyz`,
      ];
      for (const key of keys) assert.ok(isValidKey(key), `the test's own key ${key} is valid`);
      for (const [index, key] of keys.entries()) {
        const created = await store.create(key, { index, key });
        assert.equal(created.created, true, `create(${JSON.stringify(key)}) on a fresh key must create it`);
        assert.equal(created.record.key, key);
      }
      for (const [index, key] of keys.entries()) {
        const record = await store.get(key);
        assert.deepEqual(record?.value, { index, key }, `get(${JSON.stringify(key)}) returns its own value`);
        assert.equal(record?.key, key);
      }
      const listed = await listAll(store, "");
      assert.deepEqual(
        listed.map((r) => r.key),
        [...keys].sort(),
        "list('') returns every key exactly once, in key order",
      );
      for (const record of listed) {
        assert.deepEqual(record.value, { index: keys.indexOf(record.key), key: record.key });
      }
    }),

    "rejects non-serialisable values": withStore(async (store) => {
      const cycle: Record<string, unknown> = { name: "cycle" };
      cycle.self = cycle;
      const bad: Array<[string, unknown]> = [
        ["a function", () => 1],
        ["a bigint", { amount: 10n }],
        ["a cycle", cycle],
        ["undefined at the top level", undefined],
      ];
      await store.put("bad:existing", { ok: true });
      for (const [label, value] of bad) {
        await rejectsWithCode(
          () => store.create("bad:fresh", value),
          "value_not_serializable",
          `create with ${label}`,
        );
        await rejectsWithCode(
          () => store.put("bad:fresh", value),
          "value_not_serializable",
          `put with ${label}`,
        );
        await rejectsWithCode(
          () => store.put("bad:existing", value),
          "value_not_serializable",
          `put over a record with ${label}`,
        );
        await rejectsWithCode(
          () => store.put("bad:existing", value, { ifVersion: 1 }),
          "value_not_serializable",
          `put(ifVersion) over a record with ${label}`,
        );
        await rejectsWithCode(
          () => store.create("bad:existing", value),
          "value_not_serializable",
          `create on a live key with ${label}`,
        );
        assert.equal(await store.get("bad:fresh"), undefined, `after ${label}: nothing was created`);
        const existing = await store.get("bad:existing");
        assert.equal(existing?.version, 1, `after ${label}: the existing record keeps version 1`);
        assert.deepEqual(
          existing?.value,
          { ok: true },
          `after ${label}: the existing record keeps its value`,
        );
      }
      const listed = await listAll(store, "bad:");
      assert.deepEqual(
        listed.map((r) => [r.key, r.version]),
        [["bad:existing", 1]],
      );
    }),

    "stores any JSON value and returns it unchanged": withStore(async (store) => {
      const values: unknown[] = [
        null,
        true,
        false,
        0,
        -1.5,
        1e21,
        Number.MAX_SAFE_INTEGER,
        "",
        'text with "quotes", a backslash \\, a newline \n, NUL \u0000 and ✉️',
        [],
        {},
        [1, "two", null, [3], { four: 4 }],
        { nested: { deeper: { list: [true, false], empty: {} } }, "key with spaces": 1, "": "empty key" },
        { large: "x".repeat(200_000) },
      ];
      for (const [index, value] of values.entries()) {
        const written = await store.put(`json:${index}`, value);
        assert.deepEqual(written.value, value, `put returns value #${index}`);
      }
      for (const [index, value] of values.entries()) {
        const record = await store.get(`json:${index}`);
        assert.ok(record, `value #${index} is stored`);
        assert.deepEqual(record.value, value, `get returns value #${index} unchanged`);
      }
      const listed = await listAll(store, "json:");
      assert.equal(listed.length, values.length);
      for (const record of listed) {
        const index = Number(record.key.slice("json:".length));
        assert.deepEqual(record.value, values[index], `list returns value #${index} unchanged`);
      }
    }),

    "get returns a copy": withStore(async (store) => {
      type Shape = { nested: { n: number }; items: number[] };
      const original = (): Shape => ({ nested: { n: 1 }, items: [1, 2] });
      const input = original();
      const written = await store.put<Shape>("copy", input);
      input.nested.n = 99;
      input.items.push(99);
      written.value.nested.n = 98;
      written.value.items.push(98);
      const first = await store.get<Shape>("copy");
      assert.deepEqual(
        first?.value,
        original(),
        "mutating the written value or put's result changes nothing",
      );
      assert.ok(first);
      first.value.nested.n = 2;
      first.value.items.push(3);
      first.version = 42;
      const second = await store.get<Shape>("copy");
      assert.deepEqual(second?.value, original(), "mutating a value returned by get changes nothing");
      assert.equal(second?.version, 1);
      const page = await store.list<Shape>("copy");
      const listed = page.records[0];
      assert.ok(listed);
      listed.value.nested.n = 3;
      const created = await store.create<Shape>("copy", original());
      assert.equal(created.created, false);
      created.record.value.items.length = 0;
      assert.deepEqual(
        (await store.get<Shape>("copy"))?.value,
        original(),
        "mutating records from list or create changes nothing",
      );
    }),

    "create stores version 1": withStore(async (store, clock) => {
      clock.advance(1234);
      const result = await store.create("orders:1", { status: "new" });
      assert.equal(result.created, true);
      assert.deepEqual(stripUndefined(result.record), {
        key: "orders:1",
        value: { status: "new" },
        version: 1,
        updatedAt: clock.now(),
      });
      const record = await store.get("orders:1");
      assert.deepEqual(
        stripUndefined(record),
        stripUndefined(result.record),
        "get returns what create stored",
      );
    }),

    "put stores the previous version + 1, and 1 when absent": withStore(async (store, clock) => {
      const first = await store.put("counter", { n: 1 });
      assert.equal(first.version, 1, "put on an absent key stores version 1");
      assert.equal(first.updatedAt, clock.now());
      clock.advance(10);
      const second = await store.put("counter", { n: 2 });
      assert.equal(second.version, 2);
      assert.equal(second.updatedAt, clock.now(), "updatedAt is the time of the write on the store's clock");
      const third = await store.put("counter", { n: 3 });
      assert.equal(third.version, 3);
      const record = await store.get("counter");
      assert.equal(record?.version, 3);
      assert.deepEqual(record?.value, { n: 3 });
      const created = await store.create("fresh", "x");
      assert.equal(created.record.version, 1);
      const afterCreate = await store.put("fresh", "y");
      assert.equal(afterCreate.version, 2, "put after create stores version 2");
      await store.delete("counter");
      const again = await store.put("counter", { n: 1 });
      assert.equal(again.version, 1, "put after delete starts again at version 1");
    }),

    "put with a matching ifVersion writes the next version": withStore(async (store) => {
      await store.put("cas", "one");
      const second = await store.put("cas", "two", { ifVersion: 1 });
      assert.equal(second.version, 2);
      assert.equal(second.value, "two");
      const third = await store.put("cas", "three", { ifVersion: 2 });
      assert.equal(third.version, 3);
      const record = await store.get("cas");
      assert.equal(record?.version, 3);
      assert.equal(record?.value, "three");
    }),

    "put with a stale ifVersion throws version_conflict and changes nothing": withStore(
      async (store, clock) => {
        await store.put("cas", { step: 1 });
        clock.advance(5);
        const current = await store.put("cas", { step: 2 });
        clock.advance(5);
        await rejectsWithCode(
          () => store.put("cas", { step: "stale" }, { ifVersion: 1 }),
          "version_conflict",
          "stale ifVersion",
        );
        await rejectsWithCode(
          () => store.put("cas", { step: "future" }, { ifVersion: 3 }),
          "version_conflict",
          "future ifVersion",
        );
        await rejectsWithCode(
          () => store.put("cas", { step: "ttl" }, { ifVersion: 1, ttlMs: 1 }),
          "version_conflict",
          "stale ifVersion with a ttl",
        );
        const record = await store.get("cas");
        assert.deepEqual(stripUndefined(record), stripUndefined(current), "the stored record is unchanged");
        const listed = await listAll(store, "cas");
        assert.deepEqual(
          listed.map(stripUndefined),
          [stripUndefined(current)],
          "list sees the unchanged record",
        );
        await rejectsWithCode(
          () => store.put("absent", { step: 1 }, { ifVersion: 1 }),
          "version_conflict",
          "ifVersion on an absent key",
        );
        assert.equal(await store.get("absent"), undefined, "a failed put on an absent key creates nothing");
      },
    ),

    "put with ifVersion: exactly one of many concurrent callers succeeds": withStore(async (store) => {
      await store.put("race", { writer: -1 });
      const writers = Array.from({ length: 50 }, (_, writer) => writer);
      const outcomes = await Promise.allSettled(
        writers.map((writer) => store.put("race", { writer }, { ifVersion: 1 })),
      );
      const winners = outcomes.filter((o) => o.status === "fulfilled");
      assert.equal(winners.length, 1, `exactly one put with ifVersion 1 succeeds, got ${winners.length}`);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          await rejectsWithCode(
            () => Promise.reject(outcome.reason),
            "version_conflict",
            "a losing concurrent put",
          );
        }
      }
      const winner = (winners[0] as PromiseFulfilledResult<StoredRecord>).value;
      assert.equal(winner.version, 2);
      const record = await store.get("race");
      assert.equal(record?.version, 2, "the stored version moved by exactly one");
      assert.deepEqual(record?.value, winner.value, "the stored value is the winner's");
    }),

    "create is atomic under concurrent callers": withStore(async (store) => {
      const callers = Array.from({ length: 50 }, (_, creator) => creator);
      const results = await Promise.all(callers.map((creator) => store.create("claim:once", { creator })));
      const winners = results.filter((r) => r.created);
      assert.equal(winners.length, 1, `exactly one caller receives created: true, got ${winners.length}`);
      const winner = winners[0];
      assert.ok(winner);
      assert.equal(winner.record.version, 1);
      for (const result of results) {
        if (result.created) continue;
        assert.equal(result.record.version, 1, "every other caller receives the winner's record (version)");
        assert.deepEqual(
          result.record.value,
          winner.record.value,
          "every other caller receives the winner's value",
        );
      }
      const record = await store.get("claim:once");
      assert.deepEqual(record?.value, winner.record.value, "get returns the winner's value");
      assert.equal(record?.version, 1);
    }),

    "create on a live key returns created: false and the stored record": withStore(async (store) => {
      await store.create("doc", "first");
      const current = await store.put("doc", "second");
      const again = await store.create("doc", "third", { ttlMs: 10 });
      assert.equal(again.created, false);
      assert.deepEqual(stripUndefined(again.record), stripUndefined(current));
      const record = await store.get("doc");
      assert.deepEqual(
        stripUndefined(record),
        stripUndefined(current),
        "create on a live key changes nothing",
      );
    }),

    "delete returns whether a live record was removed": withStore(async (store) => {
      assert.equal(await store.delete("gone"), false, "delete of an absent key returns false");
      await store.create("gone", 1);
      await store.create("stays", 2);
      assert.equal(await store.delete("gone"), true, "delete of a live key returns true");
      assert.equal(await store.get("gone"), undefined, "get returns undefined after delete");
      assert.deepEqual(
        (await listAll(store, "")).map((r) => r.key),
        ["stays"],
        "list no longer returns the deleted key",
      );
      assert.equal(await store.delete("gone"), false, "a second delete returns false");
      const recreated = await store.create("gone", 3);
      assert.equal(recreated.created, true, "create after delete creates again");
      assert.equal(recreated.record.version, 1);
      const concurrent = await Promise.all(Array.from({ length: 20 }, () => store.delete("stays")));
      assert.equal(
        concurrent.filter(Boolean).length,
        1,
        "of concurrent deletes, exactly one removes the record",
      );
    }),

    "delete with ifVersion deletes only on a match, else throws version_conflict": withStore(
      async (store) => {
        await store.put("doc", "one");
        const current = await store.put("doc", "two");
        await rejectsWithCode(
          () => store.delete("doc", { ifVersion: 1 }),
          "version_conflict",
          "delete with a stale ifVersion",
        );
        await rejectsWithCode(
          () => store.delete("doc", { ifVersion: 3 }),
          "version_conflict",
          "delete with a future ifVersion",
        );
        assert.deepEqual(
          stripUndefined(await store.get("doc")),
          stripUndefined(current),
          "a refused delete changes nothing",
        );
        assert.equal(await store.delete("doc", { ifVersion: 2 }), true);
        assert.equal(await store.get("doc"), undefined);
        await rejectsWithCode(
          () => store.delete("doc", { ifVersion: 2 }),
          "version_conflict",
          "delete with ifVersion of an absent key",
        );
      },
    ),

    "ttl: a record is live until ttlMs has passed on the store's clock": withStore(async (store, clock) => {
      const created = await store.create("ttl:created", "c", { ttlMs: 1000 });
      assert.equal(created.record.expiresAt, clock.now() + 1000, "expiresAt is the write time + ttlMs");
      const put = await store.put("ttl:put", "p", { ttlMs: 1000 });
      assert.equal(put.expiresAt, clock.now() + 1000);
      clock.advance(999);
      assert.equal((await store.get("ttl:created"))?.value, "c", "live 1 ms before ttlMs has passed");
      assert.equal((await store.get("ttl:put"))?.value, "p");
      assert.deepEqual(
        (await listAll(store, "ttl:")).map((r) => r.key),
        ["ttl:created", "ttl:put"],
      );
      const refreshed = await store.put("ttl:put", "p2", { ttlMs: 1000 });
      assert.equal(refreshed.expiresAt, clock.now() + 1000, "a put with ttlMs counts from its own write");
      clock.advance(1);
      assert.equal(await store.get("ttl:created"), undefined, "absent once ttlMs has passed");
      assert.equal((await store.get("ttl:put"))?.value, "p2", "the refreshed record is still live");
      clock.advance(999);
      assert.equal(await store.get("ttl:put"), undefined);
    }),

    "ttl: expired records are absent from get, list and create": withStore(async (store, clock) => {
      await store.put("t:a", "a", { ttlMs: 1000 });
      await store.put("t:b", "b");
      await store.create("t:c", "c", { ttlMs: 500 });
      await store.put("t:d", "d", { ttlMs: 5000 });
      clock.advance(1000);
      assert.equal(await store.get("t:a"), undefined, "get: expired record is absent");
      assert.equal(await store.get("t:c"), undefined);
      assert.deepEqual(
        (await listAll(store, "t:")).map((r) => r.key),
        ["t:b", "t:d"],
        "list: expired records are absent",
      );
      const recreated = await store.create("t:a", "a2");
      assert.equal(recreated.created, true, "create on an expired key succeeds as on an absent one");
      assert.equal(recreated.record.version, 1);
      assert.equal(recreated.record.expiresAt, undefined, "the new record has no expiry");
      assert.equal((await store.get("t:a"))?.value, "a2");
      assert.equal(await store.delete("t:c"), false, "delete of an expired record removes no live record");
      const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create("t:c", { i })));
      assert.equal(concurrent.filter((r) => r.created).length, 1, "create on an expired key is still atomic");
      clock.advance(1_000_000);
      assert.equal((await store.get("t:a"))?.value, "a2", "a record without ttl never expires");
      assert.deepEqual(
        (await listAll(store, "t:")).map((r) => r.key),
        ["t:a", "t:b", "t:c"],
      );
    }),

    "list returns exactly the live records whose key starts with the prefix": withStore(async (store) => {
      const keys = [
        "order",
        "order:2",
        "orders",
        "orders:1",
        "ord",
        "Order:3",
        "xorder:4",
        "order-5",
        "p:order",
      ];
      for (const [index, key] of keys.entries()) await store.put(key, { index });
      const order = await listAll(store, "order");
      assert.deepEqual(
        order.map((r) => r.key),
        ["order", "order-5", "order:2", "orders", "orders:1"],
        "prefix 'order' is a string prefix, not a segment",
      );
      for (const record of order) {
        assert.deepEqual(record.value, { index: keys.indexOf(record.key) });
        assert.equal(record.version, 1);
      }
      assert.deepEqual(
        (await listAll(store, "orders:")).map((r) => r.key),
        ["orders:1"],
      );
      assert.deepEqual(
        (await listAll(store, "order:")).map((r) => r.key),
        ["order:2"],
      );
      assert.deepEqual(
        (await listAll(store, "")).map((r) => r.key),
        [...keys].sort(),
        "prefix '' lists everything",
      );
      assert.deepEqual(await listAll(store, "zzz"), [], "a prefix nothing starts with lists nothing");
      assert.deepEqual(await listAll(store, "orders:1:"), []);
    }),

    "list pages in key order and the cursor continues after the last key": withStore(async (store) => {
      const keys = [
        "k:a-b",
        "k:a.b",
        "k:a:b",
        "k:ab",
        "k:A",
        "k:_",
        "k:0",
        "k:a",
        "k:a:",
        "k:b",
        "k:a::",
        "k:Z-",
      ];
      for (const key of [...keys].reverse()) await store.put(key, key);
      const expected = [...keys].sort();
      assert.deepEqual(
        expected,
        ["k:0", "k:A", "k:Z-", "k:_", "k:a", "k:a-b", "k:a.b", "k:a:", "k:a::", "k:a:b", "k:ab", "k:b"],
        "the test's own order is by UTF-16 code units",
      );
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page: ListPage<unknown> = await store.list(
          "k:",
          cursor === undefined ? { limit: 3 } : { limit: 3, cursor },
        );
        pages += 1;
        assert.ok(page.records.length <= 3, `page ${pages} holds at most limit records`);
        for (const record of page.records) {
          assert.equal(record.value, record.key);
          seen.push(record.key);
        }
        cursor = page.cursor;
        assert.ok(pages <= keys.length + 2, "the listing ends");
      } while (cursor !== undefined);
      assert.deepEqual(seen, expected, "pages concatenate to every key once, in ascending key order");
    }),

    "list returns at most limit records: 100 by default, never more than 1000": withStore(async (store) => {
      const keys = Array.from({ length: 1001 }, (_, i) => `l:${String(i).padStart(4, "0")}`);
      for (let start = 0; start < keys.length; start += 50) {
        await Promise.all(keys.slice(start, start + 50).map((key) => store.put(key, { key })));
      }
      const first = await store.list("l:");
      assert.ok(first.records.length <= 100, `the default limit is 100, got ${first.records.length}`);
      assert.ok(first.cursor !== undefined, "a cursor follows a partial listing");
      const big = await store.list("l:", { limit: 5000 });
      assert.ok(
        big.records.length <= 1000,
        `a page never holds more than 1000 records, got ${big.records.length}`,
      );
      assert.ok(big.cursor !== undefined, "a cursor follows a partial listing");
      const one = await store.list("l:", { limit: 1 });
      assert.ok(one.records.length <= 1, "limit 1 returns at most one record");
      assert.deepEqual(
        one.records.map((r) => r.key),
        one.records.length === 0 ? [] : ["l:0000"],
        "the first page starts at the first key",
      );
      const all = await listAll(store, "l:", 1000);
      assert.deepEqual(
        all.map((r) => r.key),
        keys,
        "following the cursors lists all 1001 records once",
      );
    }),

    "list: a key present for the whole listing appears exactly once": withStore(async (store) => {
      // Two listings with changes between their pages: one that adds keys before the cursor, one that removes
      // keys before it. Either shifts positions, so a cursor that counts positions would repeat or skip keys.
      const scenarios: Array<{ prefix: string; change(): Promise<unknown> }> = [
        {
          prefix: "s:",
          change: async () => {
            await store.put("s:2", "v2");
            await store.put("s:6", "v2");
            await store.put("s:0a", "new");
            await store.put("s:0b", "new");
            await store.put("s:7a", "new");
            await store.delete("s:8");
          },
        },
        {
          prefix: "u:",
          change: async () => {
            await store.delete("u:1");
            await store.delete("u:2");
            await store.put("u:5", "v2");
            await store.put("u:7a", "new");
          },
        },
      ];
      for (const { prefix, change } of scenarios) {
        const initial = Array.from({ length: 10 }, (_, i) => `${prefix}${i}`);
        for (const key of initial) await store.put(key, "v1");
        const first = await store.list(prefix, { limit: 4 });
        const seen = first.records.map((r) => r.key);
        assert.ok(seen.length <= 4, `${prefix}: at most limit records`);
        assert.deepEqual(
          seen,
          initial.slice(0, seen.length),
          `${prefix}: the first page starts at the first key`,
        );
        assert.ok(first.cursor !== undefined, `${prefix}: a cursor follows a partial listing`);
        await change();
        let cursor: string | undefined = first.cursor;
        for (let pages = 1; cursor !== undefined; pages++) {
          assert.ok(pages < 20, `${prefix}: the listing ends`);
          const page: ListPage<unknown> = await store.list(prefix, { limit: 4, cursor });
          seen.push(...page.records.map((r) => r.key));
          cursor = page.cursor;
        }
        const stillThere = await listAll(store, prefix);
        for (const key of initial) {
          if (!stillThere.some((r) => r.key === key)) continue;
          assert.equal(
            seen.filter((k) => k === key).length,
            1,
            `${key} was present for the whole listing, so it appears exactly once; seen: ${seen.join(", ")}`,
          );
        }
        assert.equal(
          new Set(seen).size,
          seen.length,
          `${prefix}: no key appears twice; seen: ${seen.join(", ")}`,
        );
      }
    }),

    "durable: acknowledged writes survive reopen": async () => {
      const clock = manualClock();
      const store = await options.create({ clock });
      let current: Store | undefined = store;
      try {
        if (!options.reopen) {
          assert.equal(
            store.capabilities.durable,
            false,
            "this store declares durable: true; pass reopen to storeContract so the suite can check that acknowledged writes survive a restart",
          );
          return notApplicable(NOT_DURABLE);
        }
        if (!store.capabilities.durable) return notApplicable(NOT_DURABLE);
        await store.create("d:created", { a: 1 });
        await store.put("d:put", { b: 1 });
        const putTwice = await store.put("d:put", { b: 2 });
        const withTtl = await store.put("d:ttl", "ttl", { ttlMs: 10_000 });
        await store.put("d:cas", "one");
        await store.put("d:cas", "two", { ifVersion: 1 });
        await store.create("d:gone", "x");
        await store.delete("d:gone");
        await store.put("d:cas-deleted", "x");
        await store.delete("d:cas-deleted", { ifVersion: 1 });
        current = undefined;
        await store.close();
        current = await options.reopen(store);
        assert.deepEqual((await current.get("d:created"))?.value, { a: 1 });
        assert.deepEqual(stripUndefined(await current.get("d:put")), stripUndefined(putTwice));
        assert.deepEqual(
          stripUndefined(await current.get("d:ttl")),
          stripUndefined(withTtl),
          "the expiry survives",
        );
        const cas = await current.get("d:cas");
        assert.equal(cas?.version, 2);
        assert.equal(cas?.value, "two");
        assert.equal(await current.get("d:gone"), undefined, "deletes survive");
        assert.equal(await current.get("d:cas-deleted"), undefined);
        assert.deepEqual(
          (await listAll(current, "d:")).map((r) => r.key),
          ["d:cas", "d:created", "d:put", "d:ttl"],
        );
        assert.equal((await current.put("d:put", { b: 3 })).version, 3, "versions continue after reopen");
        assert.equal((await current.create("d:created", {})).created, false, "create still sees the record");
        clock.advance(10_000);
        assert.equal(await current.get("d:ttl"), undefined, "the record expires on time after reopen");
      } finally {
        await current?.close();
      }
    },

    "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost":
      async () => {
        const clock = manualClock();
        const store = await options.create({ clock });
        let processes: PortProcesses<SharedResults> | undefined;
        try {
          if (!store.capabilities.shared) return notApplicable(NOT_SHARED);
          assert.ok(
            options.sharedOpening,
            "this store declares shared: true; pass sharedOpening to storeContract so the suite can open it from other processes",
          );
          await store.put(sharedKeys.counter, { n: 0 });
          for (let i = 0; i < SHARED_PLAN.deletes; i++) {
            await store.put(sharedKeys.deleted(i), { i });
            await store.put(sharedKeys.casDeleted(i), { i });
          }
          processes = await startPortProcesses<SharedResults>(
            siblingProgram(import.meta.url, "shared-store-child"),
            "store",
            await options.sharedOpening(store),
            SHARED_PROCESSES,
          );
          const results = {} as { [P in keyof SharedResults]: SharedResults[P][] };
          for (const phase of SHARED_PHASES) {
            (results as Record<string, unknown>)[phase] = await processes.run(phase);
          }
          await processes.close();
          processes = undefined;
          await checkShared(store, results);
        } finally {
          processes?.kill();
          await store.close();
        }
      },
  };

  return {
    name: options.name ? `store contract (${options.name})` : "store contract",
    tests: kitTests(STORE_CONTRACT_NAMES, tests, STORE_REQUIREMENTS, options.disable),
  };
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Checks what the processes of the shared test saw, and what the store holds after them. */
async function checkShared(
  store: Store,
  results: { [P in keyof SharedResults]: SharedResults[P][] },
): Promise<void> {
  const processes = SHARED_PROCESSES;
  for (const i of range(SHARED_PLAN.claims)) {
    const key = sharedKeys.claim(i);
    const seen = results.claims.map((r) => r.claims.find((c) => c.i === i));
    const winners = seen.filter((c) => c?.created);
    assert.equal(
      winners.length,
      1,
      `create(${key}) from ${processes} processes at once: exactly one receives created: true, got ${winners.length}`,
    );
    const winner = winners[0]?.value;
    for (const claim of seen) {
      assert.equal(claim?.version, 1, `create(${key}): every process receives version 1`);
      assert.deepEqual(claim?.value, winner, `create(${key}): every process receives the winner's value`);
    }
    assert.deepEqual((await store.get(key))?.value, winner, `get(${key}) returns the winner's value`);
    for (const [worker, read] of results.reads.entries()) {
      assert.deepEqual(read.claims[i], winner, `process ${worker} reads the winner's value of ${key}`);
    }
  }

  const puts = results.puts.flatMap((r) => r.puts);
  const total = processes * SHARED_PLAN.puts;
  assert.deepEqual(
    puts.map((p) => p.version).sort((a, b) => a - b),
    range(total).map((i) => i + 1),
    `${total} puts of one key from ${processes} processes store versions 1 to ${total}, each exactly once`,
  );
  const stored = await store.get(sharedKeys.put);
  assert.equal(stored?.version, total, "the stored version counts every put");
  assert.deepEqual(
    stored?.value,
    puts.find((p) => p.version === total)?.value,
    "the stored value is the last put's",
  );

  const increments = processes * SHARED_PLAN.increments;
  assert.deepEqual(
    results.increments.flatMap((r) => r.versions).sort((a, b) => a - b),
    range(increments).map((i) => i + 2),
    `compare-and-set from ${processes} processes: each version from 2 to ${increments + 1} is written exactly once`,
  );
  const counter = await store.get<{ n: number }>(sharedKeys.counter);
  assert.equal(counter?.value.n, increments, `the counter holds all ${increments} increments: none is lost`);
  assert.equal(counter?.version, increments + 1);

  for (const i of range(SHARED_PLAN.deletes)) {
    const plain = results.deletes.filter((r) => r.plain[i]).length;
    assert.equal(plain, 1, `delete(${sharedKeys.deleted(i)}) from ${processes} processes: one returns true`);
    const conditional = results.deletes.map((r) => r.conditional[i]);
    assert.equal(
      conditional.filter((c) => c === "deleted").length,
      1,
      `delete(${sharedKeys.casDeleted(i)}, ifVersion 1) from ${processes} processes: exactly one deletes; got ${conditional.join(", ")}`,
    );
    assert.equal(await store.get(sharedKeys.deleted(i)), undefined);
    assert.equal(await store.get(sharedKeys.casDeleted(i)), undefined);
  }

  const own = range(processes)
    .flatMap((worker) => range(SHARED_PLAN.own).map((j) => sharedKeys.own(worker, j)))
    .sort();
  for (const [worker, read] of results.reads.entries()) {
    assert.deepEqual(
      read.own,
      own,
      `list from process ${worker} returns every process's keys once, in order`,
    );
  }
  assert.deepEqual(
    (await listAll(store, sharedKeys.ownPrefix)).map((r) => r.key),
    own,
    "list from the suite's process returns every key the other processes created",
  );
}

/** Follows cursors to the end; fails if the listing does not end. */
async function listAll(store: Store, prefix: string, limit?: number): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const options: { limit?: number; cursor?: string } = {};
    if (limit !== undefined) options.limit = limit;
    if (cursor !== undefined) options.cursor = cursor;
    const page = await store.list(prefix, options);
    records.push(...page.records);
    cursor = page.cursor;
    if (cursor === undefined) return records;
  }
  assert.fail(`list(${JSON.stringify(prefix)}) did not end after 10000 pages`);
}

/** Compares records without caring whether an absent `expiresAt` is missing or `undefined`. */
function stripUndefined<T>(record: StoredRecord<T> | undefined): StoredRecord<T> | undefined {
  if (!record) return record;
  const copy: StoredRecord<T> = {
    key: record.key,
    value: record.value,
    version: record.version,
    updatedAt: record.updatedAt,
  };
  if (record.expiresAt !== undefined) copy.expiresAt = record.expiresAt;
  return copy;
}

import { freePort, type PostgresServer, startPostgres, storeContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { Clock, Store } from "@mailpiece/ports";
import { manualClock, PortError } from "@mailpiece/ports";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore } from "./postgres-store.ts";
import { freshDatabase, renderings, uniqueTable } from "./test-support.ts";

let server: PostgresServer | undefined;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

function url(): string {
  if (!server) throw new Error("postgres is not running");
  return server.url;
}

const stores = new WeakMap<Store, { tableName: string; clock: Clock }>();
registerSuite(
  storeContract({
    name: "postgres",
    async create({ clock }) {
      const tableName = uniqueTable();
      const store = await createPostgresStore({ url: url(), tableName, clock });
      stores.set(store, { tableName, clock });
      return store;
    },
    async reopen(previous) {
      const opened = stores.get(previous);
      if (!opened) throw new Error("reopen: not a store of this test file");
      const store = await createPostgresStore({ url: url(), ...opened });
      stores.set(store, opened);
      return store;
    },
    sharedOpening(store) {
      const opened = stores.get(store);
      if (!opened) throw new Error("sharedOpening: not a store of this test file");
      return {
        module: new URL("./postgres-store.ts", import.meta.url).href,
        export: "createPostgresStore",
        options: { url: url(), tableName: opened.tableName },
      };
    },
  }),
  { timeoutMs: 120_000 },
);

describe("createPostgresStore", () => {
  it("is named postgres and declares that it is durable and shared", async () => {
    const store = await createPostgresStore({ url: url(), tableName: uniqueTable() });
    try {
      expect(store.name).toBe("postgres");
      expect(store.capabilities).toEqual({ durable: true, shared: true });
    } finally {
      await store.close();
    }
  });

  it("two stores with pools of their own: exactly one of 50 concurrent creates wins", async () => {
    const tableName = uniqueTable();
    const clock = manualClock();
    const a = await createPostgresStore({ url: url(), tableName, clock });
    const b = await createPostgresStore({ url: url(), tableName, clock });
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).create("claim", { i })),
      );
      const winners = results.filter((r) => r.created);
      expect(winners).toHaveLength(1);
      const winner = winners[0]?.record.value;
      for (const result of results) expect(result.record).toMatchObject({ value: winner, version: 1 });
      expect((await b.get("claim"))?.value).toEqual(winner);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("two stores with pools of their own: exactly one of 50 concurrent compare-and-sets wins", async () => {
    const tableName = uniqueTable();
    const a = await createPostgresStore({ url: url(), tableName });
    const b = await createPostgresStore({ url: url(), tableName });
    try {
      await a.put("race", { writer: -1 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).put("race", { i }, { ifVersion: 1 })),
      );
      const winners = outcomes.filter((o) => o.status === "fulfilled");
      expect(winners).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          expect(PortError.isInstance(outcome.reason) && outcome.reason.code).toBe("version_conflict");
        }
      }
      const record = await a.get("race");
      expect(record?.version).toBe(2);
      expect(record?.value).toEqual(winners[0]?.status === "fulfilled" ? winners[0].value.value : undefined);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("keeps each record as one row: key, the JSON text as written, version, updated_at and expires_at", async () => {
    const tableName = uniqueTable();
    const clock = manualClock();
    const store = await createPostgresStore({ url: url(), tableName, clock });
    const sql = postgres(url(), { max: 1 });
    try {
      await store.put("orders:1", { z: 1, a: "\u0000", n: 1e21 }, { ttlMs: 60_000 });
      await store.put("orders:1", { z: 1, a: "\u0000", n: 1e21 });
      await store.create("quotes:1", "q", { ttlMs: 5 });
      const rows = await sql.unsafe(
        `select key, value::text as value, version::int, updated_at::float8, expires_at::float8
         from "${tableName}" order by key`,
      );
      expect(rows).toEqual([
        {
          key: "orders:1",
          value: '{"z":1,"a":"\\u0000","n":1e+21}',
          version: 2,
          updated_at: clock.now(),
          expires_at: null,
        },
        { key: "quotes:1", value: '"q"', version: 1, updated_at: clock.now(), expires_at: clock.now() + 5 },
      ]);
      const [collation] = await sql`
        select collation_name from information_schema.columns
        where table_name = ${tableName} and column_name = 'key'`;
      expect(collation?.collation_name).toBe("C");
    } finally {
      await store.close();
      await sql.end();
    }
  });

  it("a sweep deletes expired rows in batches, once sweepIntervalMs has passed on the store's clock", async () => {
    const tableName = uniqueTable();
    const clock = manualClock();
    const sql = postgres(url(), { max: 1 });
    const store = await createPostgresStore({ url: url(), tableName, clock, sweepIntervalMs: 10_000 });
    try {
      // More than two batches of expired rows, written directly, and a few that stay.
      await sql.unsafe(
        `insert into "${tableName}" (key, value, version, updated_at, expires_at)
         select 'old:' || lpad(i::text, 5, '0'), '1', 1, $1::bigint, $1::bigint + 100 from generate_series(1, 2500) i`,
        [clock.now()],
      );
      await store.put("keep:plain", 1);
      await store.put("keep:ttl", 1, { ttlMs: 1_000_000 });
      clock.advance(5_000);
      await store.put("keep:early", 1);
      await store.close();
      const count = async () =>
        Number((await sql.unsafe(`select count(*)::int as n from "${tableName}"`))[0]?.n);
      expect(await count(), "no sweep before sweepIntervalMs has passed").toBe(2503);

      const again = await createPostgresStore({ url: url(), tableName, clock, sweepIntervalMs: 10_000 });
      expect((await again.list("")).records.map((r) => r.key)).toEqual([
        "keep:early",
        "keep:plain",
        "keep:ttl",
      ]);
      clock.advance(10_000);
      await again.put("keep:late", 1);
      await again.close();
      expect(await count(), "close waits for the sweep the write started").toBe(4);
    } finally {
      await sql.end();
    }
  });

  it("uses a client it is given and leaves it open on close", async () => {
    const sql = postgres(url(), { max: 2, onnotice: () => undefined });
    try {
      const store = await createPostgresStore({ sql, tableName: uniqueTable() });
      await store.put("a", 1);
      await store.close();
      expect((await sql`select 1 as one`)[0]?.one).toBe(1);
    } finally {
      await sql.end();
    }
  });

  it("refuses a bad table name, both url and sql, and a URL that is not postgres://", async () => {
    await expect(createPostgresStore({ url: url(), tableName: 'x"; drop table y; --' })).rejects.toThrow(
      TypeError,
    );
    await expect(createPostgresStore({ url: url(), tableName: "Records" })).rejects.toThrow(TypeError);
    const sql = postgres(url(), { max: 1 });
    try {
      await expect(createPostgresStore({ url: url(), sql })).rejects.toThrow(/either url or sql/);
    } finally {
      await sql.end();
    }
    const secret = "mysql://root:hunter2-secret@db.example/x";
    const refused = await createPostgresStore({ url: secret }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TypeError);
    expect(renderings(refused)).not.toContain("hunter2-secret");
  });

  it("closes: calls after close() reject with store_unavailable", async () => {
    const store = await createPostgresStore({ url: url(), tableName: uniqueTable() });
    await store.close();
    await expect(store.get("a")).rejects.toMatchObject({ code: "store_unavailable" });
    await store.close();
  });
});

describe("errors", () => {
  const PASSWORD = "s3cret-Pa55word";

  function expectNoSecret(error: unknown, secretUrl: string): void {
    const shown = renderings(error);
    expect(shown).not.toContain(PASSWORD);
    expect(shown).not.toContain(encodeURIComponent(PASSWORD));
    expect(shown).not.toContain(secretUrl);
  }

  it("an unreachable database is store_unavailable at open, and shows neither the URL nor the password", async () => {
    const secretUrl = `postgres://mailpiece:${PASSWORD}@127.0.0.1:${await freePort()}/postgres`;
    const error = await createPostgresStore({ url: secretUrl, tableName: uniqueTable() }).catch(
      (e: unknown) => e,
    );
    expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
    expect(String(error)).toMatch(/ECONNREFUSED/);
    expectNoSecret(error, secretUrl);
  });

  it("an unreachable database is store_unavailable for every call of a store opened without migrating", async () => {
    const secretUrl = `postgresql://mailpiece:${PASSWORD}@127.0.0.1:${await freePort()}/postgres`;
    const store = await createPostgresStore({ url: secretUrl, migrate: false });
    try {
      const calls: Array<() => Promise<unknown>> = [
        () => store.get("a"),
        () => store.create("a", 1),
        () => store.put("a", 1),
        () => store.put("a", 1, { ifVersion: 1 }),
        () => store.delete("a"),
        () => store.list("a"),
      ];
      for (const call of calls) {
        const error = await call().catch((e: unknown) => e);
        expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
        expectNoSecret(error, secretUrl);
      }
    } finally {
      await store.close();
    }
  });

  it("a database that refuses the connection is store_unavailable without the URL or the password", async () => {
    const target = new URL(url());
    target.password = PASSWORD;
    target.pathname = "/no_such_database";
    const error = await createPostgresStore({ url: target.href }).catch((e: unknown) => e);
    expect(PortError.isInstance(error) && error.code).toBe("store_unavailable");
    expect(String(error)).toMatch(/no_such_database/);
    expectNoSecret(error, target.href);
  });

  it("a table that was never migrated is store_unavailable", async () => {
    const store = await createPostgresStore({ url: await freshDatabase(url()), migrate: false });
    try {
      await expect(store.get("a")).rejects.toMatchObject({
        code: "store_unavailable",
        message: expect.stringMatching(/mailpiece_records/),
      });
    } finally {
      await store.close();
    }
  });
});

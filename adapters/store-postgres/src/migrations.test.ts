import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { freePort, type PostgresServer, startPostgres } from "@mailpiece/conformance";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS, migratePostgres } from "./migrations.ts";
import { createPostgresStore } from "./postgres-store.ts";
import { freshDatabase, renderings } from "./test-support.ts";

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

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

async function migrationRows(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1 });
  try {
    return await sql<{ table_name: string; version: number }[]>`
      select table_name, version from mailpiece_migrations order by table_name, version`;
  } finally {
    await sql.end();
  }
}

const everyStep = (table: string) => MIGRATIONS.map((m) => ({ table_name: table, version: m.version }));

describe("migrations", () => {
  it("five stores opened at once on an empty database migrate it once and all work", async () => {
    const database = await freshDatabase(url());
    const stores = await Promise.all(Array.from({ length: 5 }, () => createPostgresStore({ url: database })));
    try {
      expect(await migrationRows(database)).toEqual(everyStep("mailpiece_records"));
      await Promise.all(stores.map((store, i) => store.put(`from:${i}`, i)));
      const listed = await stores[0]?.list("from:");
      expect(listed?.records.map((r) => r.value)).toEqual([0, 1, 2, 3, 4]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("migratePostgres applies each step once per table and then reports nothing to do", async () => {
    const database = await freshDatabase(url());
    expect(await migratePostgres(database)).toEqual({
      applied: MIGRATIONS.map((m) => m.version),
      version: LATEST,
    });
    expect(await migratePostgres(database)).toEqual({ applied: [], version: LATEST });
    const sql = postgres(database, { max: 1, onnotice: () => undefined });
    try {
      expect(await migratePostgres(sql, { tableName: "other_records" })).toEqual({
        applied: MIGRATIONS.map((m) => m.version),
        version: LATEST,
      });
      expect((await sql`select 1 as one`)[0]?.one, "a client passed in stays open").toBe(1);
    } finally {
      await sql.end();
    }
    expect(await migrationRows(database)).toEqual([
      ...everyStep("mailpiece_records"),
      ...everyStep("other_records"),
    ]);
  });

  it("concurrent migratePostgres calls on one empty database apply each step once", async () => {
    const database = await freshDatabase(url());
    const results = await Promise.all(Array.from({ length: 6 }, () => migratePostgres(database)));
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    expect(results.map((r) => r.version)).toEqual(Array(6).fill(LATEST));
    expect(await migrationRows(database)).toEqual(everyStep("mailpiece_records"));
  });

  it("a store opened with migrate: false leaves the schema alone", async () => {
    const database = await freshDatabase(url());
    const store = await createPostgresStore({ url: database, migrate: false });
    try {
      await expect(store.get("a")).rejects.toMatchObject({ code: "store_unavailable" });
      await migratePostgres(database);
      expect((await store.put("a", 1)).version).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("migratePostgres on an unreachable database rejects with store_unavailable, without the URL or password", async () => {
    const secretUrl = `postgres://mailpiece:migrate-secret@127.0.0.1:${await freePort()}/postgres`;
    const error = await migratePostgres(secretUrl).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "store_unavailable" });
    expect(renderings(error)).not.toContain("migrate-secret");
    expect(renderings(error)).not.toContain(secretUrl);
  });
});

describe("mailpiece-store-postgres (src/cli.ts)", () => {
  const cli = fileURLToPath(new URL("./cli.ts", import.meta.url));
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

  function runCli(args: string[], env: Record<string, string | undefined>) {
    const { DATABASE_URL: _inherited, ...base } = process.env;
    const child = spawn(process.execPath, ["--import", tsx, cli, ...args], {
      env: { ...base, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });
  }

  it("migrate applies the migrations to DATABASE_URL and exits 0; again, it reports the table up to date", async () => {
    const database = await freshDatabase(url());
    const first = await runCli(["migrate"], { DATABASE_URL: database });
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toMatch(/mailpiece_records: applied #1/);
    expect(await migrationRows(database)).toEqual(everyStep("mailpiece_records"));
    const second = await runCli(["migrate"], { DATABASE_URL: database });
    expect(second).toMatchObject({ code: 0, stderr: "" });
    expect(second.stdout).toMatch(/mailpiece_records is up to date/);
    const other = await runCli(["migrate", "--table", "records_b"], { DATABASE_URL: database });
    expect(other.code).toBe(0);
    expect(await migrationRows(database)).toEqual([
      ...everyStep("mailpiece_records"),
      ...everyStep("records_b"),
    ]);
    expect(first.stdout + second.stdout + other.stdout).not.toContain(database);
  }, 60_000);

  it("exits 2 without DATABASE_URL or a command, and 1 when the database is unreachable, showing no secret", async () => {
    expect((await runCli(["migrate"], {})).code).toBe(2);
    expect((await runCli([], { DATABASE_URL: url() })).code).toBe(2);
    const secretUrl = `postgres://mailpiece:cli-secret@127.0.0.1:${await freePort()}/postgres`;
    const failed = await runCli(["migrate"], { DATABASE_URL: secretUrl });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/store_unavailable|could not migrate/);
    expect(failed.stdout + failed.stderr).not.toContain("cli-secret");
  }, 60_000);
});

describe("startPostgres (@mailpiece/conformance)", () => {
  it("serves on 127.0.0.1 until stop(), which ends the server and may be called again", async () => {
    const other = await startPostgres();
    const target = new URL(other.url);
    expect(target.hostname).toBe("127.0.0.1");
    const sql = postgres(other.url, { max: 1 });
    try {
      expect((await sql`select current_user as name`)[0]?.name).toBe("mailpiece");
    } finally {
      await sql.end();
    }
    await other.stop();
    await other.stop();
    const after = postgres(other.url, { max: 1, connect_timeout: 5 });
    try {
      await expect(after`select 1`).rejects.toMatchObject({ code: "ECONNREFUSED" });
    } finally {
      await after.end();
    }
  }, 120_000);
});

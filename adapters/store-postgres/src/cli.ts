#!/usr/bin/env node
/**
 * mailpiece-store-postgres: brings the Postgres Store's table up to date before the servers start, for deployments
 * whose servers open the store with `migrate: false`. Reads the database from DATABASE_URL; never prints it.
 * Exit status: 0 when the table is up to date, 1 when migrating failed, 2 on a usage error.
 */
import { parseArgs } from "node:util";
import { migratePostgres } from "./migrations.ts";

const USAGE = `Usage: DATABASE_URL=postgres://user:password@host:5432/database mailpiece-store-postgres migrate [--table <name>]
  --table   the records table (default mailpiece_records)`;

async function main(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== "migrate") {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const url = env.DATABASE_URL;
  if (!url) {
    process.stderr.write(`DATABASE_URL is not set.\n${USAGE}\n`);
    return 2;
  }
  try {
    const result = await migratePostgres(url, values.table === undefined ? {} : { tableName: values.table });
    const table = values.table ?? "mailpiece_records";
    process.stdout.write(
      result.applied.length === 0
        ? `${table} is up to date (version ${result.version})\n`
        : `${table}: applied ${result.applied.map((v) => `#${v}`).join(", ")}; now at version ${result.version}\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: { table: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
}

process.exitCode = await main(process.argv.slice(2), process.env);

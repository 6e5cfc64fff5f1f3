export type { PostgresConnectionOptions } from "./connection.ts";
export type { MigrateOptions, MigrateResult, Migration } from "./migrations.ts";
export { DEFAULT_TABLE_NAME, MIGRATIONS, migratePostgres } from "./migrations.ts";
export type { PostgresStoreOptions } from "./postgres-store.ts";
export { createPostgresStore } from "./postgres-store.ts";

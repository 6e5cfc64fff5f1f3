import { randomUUID } from "node:crypto";
import { inspect } from "node:util";
import postgres from "postgres";

/** A records table name no other test uses. */
export const uniqueTable = (): string => `t_${randomUUID().replaceAll("-", "")}`;

/** Creates an empty database on the server of `adminUrl` and answers its URL. */
export async function freshDatabase(adminUrl: string): Promise<string> {
  const name = `db_${randomUUID().replaceAll("-", "")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

/** Every way an error may be shown or logged: its message, stack, String, inspection and JSON. */
export function renderings(error: unknown): string {
  return [
    String(error),
    (error as Error | undefined)?.stack ?? "",
    inspect(error, { depth: 10, showHidden: true }),
    JSON.stringify(error) ?? "",
  ].join("\n");
}

import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:net";
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

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
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

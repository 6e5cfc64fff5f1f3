import { once } from "node:events";
import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that nothing listens on now, for a test server to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  await once(server, "close");
  if (typeof address !== "object" || address === null) throw new Error("no free port");
  return address.port;
}

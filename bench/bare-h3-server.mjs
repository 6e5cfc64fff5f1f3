import { H3, readBody } from "h3";
import { serve } from "srvx";

/** The baseline: a bare h3 handler that parses the JSON body and answers a small JSON object. */
const app = new H3();
app.post("/**", async (event) => {
  const body = (await readBody(event)) ?? {};
  return { ok: true, keys: Object.keys(body).length };
});
const server = serve({
  fetch: app.fetch,
  hostname: "127.0.0.1",
  port: 0,
  silent: true,
  gracefulShutdown: false,
});
await server.ready();
const address = server.node?.server?.address();
const port = typeof address === "object" && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
process.on("SIGTERM", () => {
  server.close().then(() => process.exit(0));
});

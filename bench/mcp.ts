import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildAddressIndex, createEmbeddedAddressProvider } from "../adapters/address-embedded/src/index.ts";
import { generateSyntheticAddresses } from "../adapters/address-embedded/src/synthetic.fixture.ts";
import { letterOrder } from "../conformance/src/machine/fixtures.ts";
import { median, startServer, table } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? "5");
const CONCURRENCY = 8;
const ADDRESS_RECORDS = 1_000_000;

/** Calls of `call` per second over `seconds`, from CONCURRENCY loops at once, with their p50 and p99 in ms. */
async function rate(seconds: number, call: () => Promise<unknown>) {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        await call();
        latencies.push(performance.now() - start);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { perSecond: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

/**
 * MCP tool calls against the same operations over REST, on the running server in the same run (svc.ping against
 * GET /health, svc.get_order_status against GET /api/machine/orders/{id}), each client keeping its connection; and
 * address search latency over 1 000 000 synthetic records.
 */
export async function benchMcp(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-bench-mcp-"));
  const server = await startServer({ DATA_DIR: dataDir, MCP_REQUESTS_PER_MINUTE: "100000000" });
  const clients: Client[] = [];
  try {
    for (let i = 0; i < CONCURRENCY; i++) {
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      clients.push(client);
    }
    let turn = 0;
    const nextClient = () => clients[turn++ % clients.length]!;
    const created = await nextClient().callTool({
      name: "svc.create_machine_order",
      arguments: { payment_protocol: "x402", order: letterOrder() },
    });
    const { order_id } = created.structuredContent as { order_id: string };
    const rest = (path: string) => async () => (await fetch(`${server.url}${path}`)).arrayBuffer();
    const tool = (name: string, args: Record<string, unknown>) => () =>
      nextClient().callTool({ name, arguments: args });
    // Warm-up, not counted.
    await rate(1, tool("svc.ping", {}));
    await rate(1, rest("/health"));

    const cases: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
      ["ping", tool("svc.ping", {}), rest("/health")],
      ["order status", tool("svc.get_order_status", { order_id }), rest(`/api/machine/orders/${order_id}`)],
    ];
    const rows: (string | number)[][] = [
      ["operation", "MCP calls/s", "MCP p50/p99 ms", "REST req/s", "REST p50/p99 ms", "MCP / REST"],
    ];
    for (const [name, overMcp, overRest] of cases) {
      const mcp = await rate(SECONDS, overMcp);
      const http = await rate(SECONDS, overRest);
      rows.push([
        name,
        mcp.perSecond.toFixed(0),
        `${mcp.p50.toFixed(1)} / ${mcp.p99.toFixed(1)}`,
        http.perSecond.toFixed(0),
        `${http.p50.toFixed(1)} / ${http.p99.toFixed(1)}`,
        (mcp.perSecond / http.perSecond).toFixed(2),
      ]);
    }
    return [
      `MCP tool calls and REST on the same server, ${CONCURRENCY} clients, ${SECONDS} s each`,
      table(rows),
      await addressSearchLatency(),
    ].join("\n");
  } finally {
    await Promise.allSettled(clients.map((client) => client.close()));
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Search latency of the embedded index over ADDRESS_RECORDS synthetic records: p50, p99 and the slowest query. */
async function addressSearchLatency(): Promise<string> {
  const rows = generateSyntheticAddresses(ADDRESS_RECORDS, 7);
  const provider = createEmbeddedAddressProvider(buildAddressIndex(rows, { country: "US" }));
  const queries: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const row = rows[(i * 7919) % rows.length]!;
    const words = `${row.number} ${row.street} ${row.city}`.split(" ");
    // What a person has typed so far: a growing prefix of the address.
    const typed = words.join(" ");
    let length = 3 + (i % 20);
    while (typed.slice(0, length).trim().length < 3) length++;
    queries.push(typed.slice(0, length));
  }
  const times: number[] = [];
  let slowest = { ms: 0, query: "" };
  for (const query of queries) {
    const start = performance.now();
    await provider.search({ query, country_code: "US" });
    const ms = performance.now() - start;
    times.push(ms);
    if (ms > slowest.ms) slowest = { ms, query };
  }
  times.sort((a, b) => a - b);
  const p99 = times[Math.floor(0.99 * times.length)]!;
  return `address search over ${ADDRESS_RECORDS} records, ${queries.length} queries: p50 ${median(times).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, slowest ${slowest.ms.toFixed(1)} ms ("${slowest.query}") (goal: within 20 ms)`;
}

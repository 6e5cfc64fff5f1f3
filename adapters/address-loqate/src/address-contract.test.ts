import { addressProviderContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { createLoqateAddressProvider } from "./loqate-provider.ts";
import { closedPortUrl, REPLAY_KEY, startReplayServer } from "./replay-server.fixture.ts";

/**
 * The adapter against the replay server of recorded Loqate answers, one server per test. The timeout is long so that
 * a busy machine does not turn a slow local answer into provider_unavailable.
 */
async function replayed() {
  const server = await startReplayServer();
  return {
    provider: createLoqateAddressProvider({ apiKey: REPLAY_KEY, baseUrl: server.url, timeoutMs: 30_000 }),
    dispose: () => server.close(),
  };
}

async function unreachable() {
  return createLoqateAddressProvider({ apiKey: REPLAY_KEY, baseUrl: await closedPortUrl() });
}

registerSuite(
  addressProviderContract({
    name: "loqate, recorded US answers",
    country: "US",
    knownQuery: "11 Madison Ave",
    containerQuery: "Madison Ave New York",
    create: replayed,
    unreachable,
  }),
);

registerSuite(
  addressProviderContract({
    name: "loqate, recorded GB answers",
    country: "GB",
    knownQuery: "29 Span Meadow",
    containerQuery: "TF5 0NE",
    create: replayed,
    unreachable,
  }),
);

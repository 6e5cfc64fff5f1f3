/**
 * Every test file of this package runs behind this guard (vitest.config.ts): a connection to anything but
 * 127.0.0.1 is refused before a packet is sent, and every host dialled is recorded in `dialled`
 * (dial-log.fixture.ts), so that a test of address filtering can also prove that nothing was dialled at all.
 */
import type * as Net from "node:net";
import type * as Tls from "node:tls";
import { vi } from "vitest";

vi.mock("node:tls", async (importOriginal) => {
  const actual = await importOriginal<typeof Tls>();
  const { guardDial } = await import("./dial-log.fixture.ts");
  const connect = (options: Tls.ConnectionOptions) => {
    guardDial(String(options.host));
    return actual.connect(options);
  };
  return { ...actual, connect };
});

vi.mock("node:net", async (importOriginal) => {
  const actual = await importOriginal<typeof Net>();
  const { guardDial } = await import("./dial-log.fixture.ts");
  const connect = (...args: unknown[]) => {
    const options = args[0] as { host?: unknown } | number;
    guardDial(typeof options === "object" ? String(options.host) : String(args[1]));
    return (actual.connect as (...a: unknown[]) => Net.Socket)(...args);
  };
  return { ...actual, connect, createConnection: connect };
});

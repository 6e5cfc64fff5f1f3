/**
 * Every fuzz test runs behind this guard (vitest.config.ts): a connection to anything but a loopback address, and a
 * name lookup of anything but localhost, is refused before a packet is sent. Generated requests name URLs (platform
 * profiles, PDF downloads); whatever the server makes of them, it reaches nothing beyond this machine.
 */
import type * as Dns from "node:dns/promises";
import type * as Net from "node:net";
import type * as Tls from "node:tls";
import { vi } from "vitest";
import { guardHost } from "./dial-guard.ts";

vi.mock("node:tls", async (importOriginal) => {
  const actual = await importOriginal<typeof Tls>();
  const connect = (...args: unknown[]) => {
    const options = args[0] as { host?: unknown } | number;
    guardHost(
      typeof options === "object" ? String(options.host ?? "localhost") : String(args[1] ?? "localhost"),
    );
    return (actual.connect as (...a: unknown[]) => Tls.TLSSocket)(...args);
  };
  return { ...actual, connect };
});

vi.mock("node:net", async (importOriginal) => {
  const actual = await importOriginal<typeof Net>();
  const connect = (...args: unknown[]) => {
    const options = args[0] as { host?: unknown; path?: unknown } | number;
    if (typeof options === "object" && options.path !== undefined) {
      return (actual.connect as (...a: unknown[]) => Net.Socket)(...args);
    }
    guardHost(
      typeof options === "object" ? String(options.host ?? "localhost") : String(args[1] ?? "localhost"),
    );
    return (actual.connect as (...a: unknown[]) => Net.Socket)(...args);
  };
  return { ...actual, connect, createConnection: connect };
});

vi.mock("node:dns/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof Dns>();
  const lookup = ((hostname: string, ...rest: unknown[]) => {
    guardHost(hostname);
    return (actual.lookup as (...a: unknown[]) => unknown)(hostname, ...rest);
  }) as typeof actual.lookup;
  return { ...actual, lookup, default: { ...actual, lookup } };
});

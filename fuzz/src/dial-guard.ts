import { isIP } from "node:net";

/** Hosts the guard refused, in order: a property checks that generated requests never aimed past loopback. */
export const refusedDials: string[] = [];

/** Throws for any host but a loopback address or localhost, before anything is sent. */
export function guardHost(host: string): void {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  const loopback =
    bare === "localhost" ||
    (isIP(bare) === 4 && bare.startsWith("127.")) ||
    (isIP(bare) === 6 && (bare === "::1" || bare === "0:0:0:0:0:0:0:1"));
  if (!loopback) {
    refusedDials.push(host);
    throw new Error(`fuzz guard: refused to reach ${host}`);
  }
}

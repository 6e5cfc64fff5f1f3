import { setFlagsFromString } from "node:v8";

/**
 * The server's V8 memory profile, set before the rest of the server is evaluated, however it is started. A request
 * makes short-lived objects and little else, so the old generation may grow by a quarter between full collections
 * (V8 lets it grow up to fourfold): under load the process stays some 20 MB smaller at the same throughput
 * (`pnpm bench validate`). The young generation can only be sized when the process starts: `pnpm start` passes
 * `--max-semi-space-size=4` (V8's default grows to 16 MB per semi-space), and other launchers can give it in
 * NODE_OPTIONS. A flag given on the command line or in NODE_OPTIONS takes precedence over this one.
 */
const HEAP_GROWING = "heap-growing-percent";

const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some((arg) =>
  /^--heap[-_]growing[-_]percent(=|$)/.test(arg),
);
if (!given) setFlagsFromString(`--${HEAP_GROWING}=25`);

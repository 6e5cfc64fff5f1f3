// `pnpm admin <command>`: the operator's CLI over the admin API (see admin-cli.ts and the README).
import { runAdminCli } from "./admin-cli.ts";

process.exitCode = await runAdminCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});

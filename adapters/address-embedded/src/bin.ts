#!/usr/bin/env node
import { runAddressesCli } from "./cli.ts";

process.exitCode = await runAddressesCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});

#!/usr/bin/env node
import { cliMain } from "./run/cli-main.ts";

process.exitCode = await cliMain(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});

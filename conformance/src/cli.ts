import { parseArgs } from "node:util";
import { formatReport, runSuite } from "./kit.ts";
import { urlTarget } from "./machine/http-target.ts";
import { machineSuite } from "./machine/machine-suite.ts";

const USAGE = `Usage: mailpiece-conformance --base-url URL [--suite machine] [--json]

Runs the Mailpiece conformance suites against a deployment and prints a report.
Exit code: 0 when every test passes, 1 when any fails, 2 on bad usage.`;

async function main(): Promise<number> {
  let values: { "base-url"?: string; suite?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        "base-url": { type: "string" },
        suite: { type: "string", default: "machine" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const baseUrl = values["base-url"];
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) {
    process.stderr.write(`--base-url must be an http(s) URL\n${USAGE}\n`);
    return 2;
  }
  if (values.suite !== "machine") {
    process.stderr.write(`unknown suite "${values.suite}"; available: machine\n`);
    return 2;
  }
  const report = await runSuite(machineSuite(urlTarget(baseUrl)));
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport([report])}\n`);
  return report.failed === 0 ? 0 : 1;
}

process.exitCode = await main();

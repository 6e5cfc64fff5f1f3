import { parseArgs } from "node:util";
import { formatReport, runSuite } from "./kit.ts";
import { urlTarget } from "./machine/http-target.ts";
import type { MachineSuiteOptions } from "./machine/machine-suite.ts";
import { DEFAULT_SUITE_ADDRESSES, machineSuite } from "./machine/machine-suite.ts";

const USAGE = `Usage: mailpiece-conformance --base-url URL [--suite machine] [--json]
         [--address-us ID --address-ca ID | --without-address-search]

Runs the Mailpiece conformance suites against a deployment and prints a report.
Address-mode orders use ids that the deployment's address search knows: by default those of the sample shipped
with the embedded provider; --address-us and --address-ca give others (an id of a suggestion of type Address in
each country); --without-address-search checks that a deployment without address search refuses Address mode.
Exit code: 0 when every test passes, 1 when any fails, 2 on bad usage.`;

async function main(): Promise<number> {
  let values: {
    "base-url"?: string;
    suite?: string;
    json?: boolean;
    help?: boolean;
    "address-us"?: string;
    "address-ca"?: string;
    "without-address-search"?: boolean;
  };
  try {
    ({ values } = parseArgs({
      options: {
        "base-url": { type: "string" },
        suite: { type: "string", default: "machine" },
        json: { type: "boolean", default: false },
        "address-us": { type: "string" },
        "address-ca": { type: "string" },
        "without-address-search": { type: "boolean", default: false },
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
  const us = values["address-us"];
  const ca = values["address-ca"];
  if ((us === undefined) !== (ca === undefined) || (values["without-address-search"] && us !== undefined)) {
    process.stderr.write(`give both --address-us and --address-ca, or --without-address-search\n${USAGE}\n`);
    return 2;
  }
  const shown = "as found by address search";
  const options: MachineSuiteOptions = {
    addresses: values["without-address-search"]
      ? false
      : us !== undefined && ca !== undefined
        ? { us: { id: us, text: shown }, ca: { id: ca, text: shown } }
        : DEFAULT_SUITE_ADDRESSES,
  };
  const report = await runSuite(machineSuite(urlTarget(baseUrl), options));
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport([report])}\n`);
  return report.failed === 0 ? 0 : 1;
}

process.exitCode = await main();

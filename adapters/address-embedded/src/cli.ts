import { parseArgs } from "node:util";
import { importAddresses } from "./import.ts";
import { openIndexFile } from "./index-file.ts";
import { createEmbeddedAddressProvider } from "./provider.ts";

const USAGE = `Usage:
  mailpiece-addresses import <openaddresses.csv> --country <CC> --out <index file>
  mailpiece-addresses search <index file> <query> [--limit <n>] [--container <id>]`;

/** Where the command line writes. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

/** Runs the mailpiece-addresses command line; answers the exit status. */
export async function runAddressesCli(args: readonly string[], io: CliOutput): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, file, ...rest] = positionals;
  if (command === "import" && file && values.country && values.out && rest.length === 0) {
    const started = Date.now();
    const stats = await importAddresses(file, { country: values.country, out: values.out });
    io.out(
      `${stats.records} addresses written to ${values.out} in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
        `(left out: ${stats.incomplete} incomplete, ${stats.duplicates} repeated)`,
    );
    return 0;
  }
  if (command === "search" && file && rest.length > 0) {
    const index = await openIndexFile(file);
    const provider = createEmbeddedAddressProvider(index);
    const suggestions = await provider.search({
      query: rest.join(" "),
      country_code: index.country,
      ...(values.limit ? { limit: Number(values.limit) } : {}),
      ...(values.container ? { container: values.container } : {}),
    });
    for (const s of suggestions) io.out(`${s.type.padEnd(9)} ${s.id}  ${s.text}  (${s.description})`);
    return 0;
  }
  io.err(USAGE);
  return 2;
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      country: { type: "string" },
      out: { type: "string" },
      limit: { type: "string" },
      container: { type: "string" },
    },
  });
}

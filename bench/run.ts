import { benchCampaign } from "./campaign.ts";
import { benchHostile } from "./hostile.ts";
import { benchLetters } from "./letters.ts";
import { benchPayments } from "./payments.ts";
import { benchPostcard } from "./postcard.ts";
import { benchValidate } from "./validate.ts";

/** `pnpm bench [name]`: every benchmark, each printed as ratios against a baseline measured in the same run. */
const benches: [string, () => Promise<string>][] = [
  ["validate", benchValidate],
  ["hostile", benchHostile],
  ["letters", benchLetters],
  ["postcard", benchPostcard],
  ["payments", benchPayments],
  ["crash", async () => (await import("./crash.ts")).benchCrash()],
  ["campaign", benchCampaign],
  ["mcp", async () => (await import("./mcp.ts")).benchMcp()],
  ["ledger", async () => (await import("./ledger.ts")).benchLedger()],
  ["v1", async () => (await import("./v1.ts")).benchV1()],
  ["stores", async () => (await import("./stores.ts")).benchStores()],
  ["queue", async () => (await import("./queue.ts")).benchQueue()],
  ["blobs", async () => (await import("./blobs.ts")).benchBlobs()],
  ["list-cost", async () => (await import("./list-cost.ts")).benchListCost()],
  ["fulfilment", async () => (await import("./fulfilment.ts")).benchFulfilment()],
  ["email", async () => (await import("./email.ts")).benchEmail()],
  ["load", async () => (await import("./load.ts")).benchLoad()],
];
const only = process.argv[2];
for (const [name, run] of benches) {
  if (only && only !== name) continue;
  process.stdout.write(`\n== ${name} ==\n${await run()}\n`);
}

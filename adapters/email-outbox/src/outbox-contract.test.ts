import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EMAIL_SENDER_CONTRACT_NAMES, emailSenderContract } from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import { afterAll, beforeAll } from "vitest";
import { createEmailOutbox } from "./email-outbox.ts";
import { readOutbox } from "./read-outbox.fixture.ts";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "email-outbox-contract-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const N = EMAIL_SENDER_CONTRACT_NAMES;

registerSuite(
  emailSenderContract(
    async ({ clock }) => {
      const dir = join(root, crypto.randomUUID());
      const away = `${dir}.away`;
      let isDown = false;
      let outbox = await createEmailOutbox({ dir, clock });
      return {
        sender: outbox,
        inbox: () => readOutbox(outbox),
        async restart() {
          outbox = await createEmailOutbox({ dir, clock });
          return outbox;
        },
        faults: {
          // The folder is replaced by a plain file: every read and write of the outbox fails.
          async down() {
            await rename(dir, away);
            await writeFile(dir, "not a folder");
            isDown = true;
          },
          async restore() {
            if (!isDown) return;
            await rm(dir);
            await rename(away, dir);
            isDown = false;
          },
        },
      };
    },
    {
      name: "outbox folder",
      // An outbox has no server that could refuse a message or credentials.
      disable: [N[15], N[16], N[17]],
    },
  ),
);

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createLocalCertificate,
  type EmailSenderSubject,
  emailSenderContract,
  startTestSmtpServer,
} from "@mailpiece/conformance";
import { registerSuite } from "@mailpiece/conformance/vitest";
import type { Clock, Store } from "@mailpiece/ports";
import { createFileStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterAll, beforeAll } from "vitest";
import { createSmtpEmailSender, type SmtpEmailSenderOptions } from "./smtp-email-sender.ts";

const USER = "mailer@mailpiece.test";
const PASS = "s3cret p@ss/word:Zq81";

let certificate: { key: string; cert: string };
let root: string;

beforeAll(async () => {
  certificate = await createLocalCertificate();
  root = await mkdtemp(join(tmpdir(), "email-smtp-contract-"));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * A test SMTP server per test (STARTTLS, login, a self-signed certificate trusted through `tls.ca`) and a sender on
 * a Store that `storeOpener()` opens, in its own place per test; `restart` closes that Store and opens it again, as a restarted process would.
 */
function subjectFactory(
  storeOpener: () => (clock: Clock) => Promise<Store>,
  more: Partial<SmtpEmailSenderOptions> = {},
): (ctx: { clock: Clock }) => Promise<EmailSenderSubject> {
  return async ({ clock }) => {
    const server = await startTestSmtpServer({ certificate, user: USER, pass: PASS });
    const openStore = storeOpener();
    let store = await openStore(clock);
    const open = () =>
      createSmtpEmailSender({ url: server.url, store, clock, tls: { ca: server.ca }, ...more });
    return {
      sender: open(),
      inbox: () => server.inbox(),
      async restart() {
        await store.close();
        store = await openStore(clock);
        return open();
      },
      faults: {
        down: () => server.down(),
        async refuseTemporarily() {
          server.mode = "refuse-temporarily";
        },
        async refusePermanently() {
          server.mode = "refuse-permanently";
        },
        async refuseCredentials() {
          server.mode = "refuse-credentials";
          await server.dropConnections();
        },
        async restore() {
          server.mode = "accept";
          await server.up();
        },
      },
      secrets: [PASS, encodeURIComponent(PASS), server.url],
      async dispose() {
        await server.close();
        await store.close();
      },
    };
  };
}

registerSuite(
  emailSenderContract(
    subjectFactory(() => {
      const dir = join(root, `store-${crypto.randomUUID()}`);
      return (clock) => createFileStore({ dir, clock });
    }),
    { name: "smtp on a file store, pooled" },
  ),
);

registerSuite(
  emailSenderContract(
    subjectFactory(() => async (clock) => createMemoryStore({ clock }), { pool: false }),
    { name: "smtp on a memory store, a connection per message" },
  ),
  // The memory store forgets the used keys on a restart: the sender declares durable: false.
  { notApplicable: ["durable: used keys survive a restart"] },
);

import type { ReceivedEmail } from "@mailpiece/conformance";
import { simpleParser } from "mailparser";
import type { EmailOutbox } from "./email-outbox.ts";

/** Every message of `outbox`, oldest first, read back from its .eml file with mailparser. */
export async function readOutbox(outbox: EmailOutbox): Promise<ReceivedEmail[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await outbox.list({ limit: 500, ...(cursor ? { cursor } : {}) });
    ids.push(...page.entries.map((e) => e.id));
    cursor = page.cursor;
  } while (cursor);
  const messages: ReceivedEmail[] = [];
  for (const id of ids.reverse()) {
    const found = await outbox.read(id);
    if (found) messages.push({ mail: await simpleParser(Buffer.from(found.eml)) });
  }
  return messages;
}

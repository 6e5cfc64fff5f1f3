import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { addressDomain, composeEmail, keyLanes, messageIdFor } from "@mailpiece/email-smtp";
import {
  assertSendableEmail,
  type Clock,
  EmailError,
  type EmailMessage,
  type EmailSender,
  emailFingerprint,
  PortError,
  type SendResult,
  type Store,
  systemClock,
} from "@mailpiece/ports";
import { atomicFsDriver, createFileStore } from "@mailpiece/store-unstorage";
import { createStorage } from "unstorage";

export interface EmailOutboxOptions {
  /** The folder of the messages, e.g. `$DATA_DIR/outbox`. Created when missing; one process at a time. */
  dir: string;
  clock?: Clock;
  /** Shown in logs and reports. Default `outbox`. */
  name?: string;
  /** The domain of every Message-ID. Default: the domain of each message's `from` address. */
  messageIdDomain?: string;
}

/** One message in the outbox, as a development page or the operator dashboard lists it. */
export interface OutboxEntry {
  /** The file's name without `.eml`: its time (UTC) and a digest of its key, so that names sort by time. */
  id: string;
  key: string;
  message_id: string;
  subject: string;
  from: string;
  to: string[];
  sent_at: string;
  /** The size of the .eml file in bytes. */
  size: number;
}

export interface OutboxPage {
  /** Newest first. */
  entries: OutboxEntry[];
  /** Present when older messages follow; pass it back as `cursor`. */
  cursor?: string;
}

/** An EmailSender that delivers nothing and keeps every message as an .eml file to look at. */
export interface EmailOutbox extends EmailSender {
  /** The messages, newest first, `limit` (1 to 500, default 50) at a time. */
  list(options?: { limit?: number; cursor?: string }): Promise<OutboxPage>;
  /** One message with its raw RFC 5322 bytes, or undefined for an id the outbox does not hold. */
  read(id: string): Promise<{ entry: OutboxEntry; eml: Uint8Array } | undefined>;
}

/** What the index holds for one key: the first send's message and result. */
interface KeyRecord {
  key: string;
  fingerprint: string;
  id: string;
  message_id: string;
  sent_at: string;
  accepted: string[];
  subject: string;
  from: string;
  to: string[];
  size: number;
}

/** `20260101t000000000z-<32 hex>`: the send's time to the millisecond, then the first half of the key's SHA-256. */
const ID_PATTERN = /^\d{8}t\d{9}z-([0-9a-f]{32})$/;
const EML_NAME = /^\d{8}t\d{9}z-[0-9a-f]{32}\.eml$/;

const keyDigest = (key: string) => createHash("sha256").update(key).digest("hex").slice(0, 32);
const idFor = (sentAt: number, digest: string) =>
  `${new Date(sentAt).toISOString().replace(/[-:.]/g, "").toLowerCase()}-${digest}`;
const indexKey = (digest: string) => `sent:${digest}`;
const fileName = (id: string) => `${id}.eml`;

/** Runs `action`, turning a failure of the folder into `unavailable`. */
async function guarded<T>(what: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (EmailError.isInstance(error)) throw error;
    const detail = PortError.isInstance(error)
      ? error.code
      : ((error as { code?: unknown })?.code ?? "error");
    throw new EmailError("unavailable", `the outbox folder could not be ${what} (${String(detail)})`);
  }
}

/**
 * The embedded default EmailSender for development: every message is composed as it would be sent over SMTP
 * (nodemailer's MailComposer) and written as an RFC 5322 `.eml` file into `dir` with the atomic file driver of
 * `@mailpiece/store-unstorage`, named `<time>-<key digest>.eml` so that names sort by time. Each key's first send
 * is recorded in a file Store in `dir/.keys` (which also locks the folder to one process) before its file is
 * written: a second send under the key answers that result as a duplicate, also after a restart; a send cut short
 * between the two writes is finished by the next send under its key. Nothing is delivered.
 */
export async function createEmailOutbox(options: EmailOutboxOptions): Promise<EmailOutbox> {
  if (typeof options?.dir !== "string" || options.dir === "") throw new TypeError("the outbox needs a dir");
  const dir = resolve(options.dir);
  const clock = options.clock ?? systemClock;
  const index: Store = await guarded("opened", () => createFileStore({ dir: join(dir, ".keys"), clock }));
  const files = createStorage({ driver: atomicFsDriver({ base: dir }) });
  const lane = keyLanes();
  let closed = false;

  const record = async (digest: string) =>
    (await guarded("read", () => index.get<KeyRecord>(indexKey(digest))))?.value;

  const writeMessage = async (id: string, eml: Uint8Array) =>
    guarded("written", () => files.setItemRaw(fileName(id), eml));

  const resultOf = (held: KeyRecord, duplicate: boolean): SendResult => ({
    key: held.key,
    message_id: held.message_id,
    accepted: [...held.accepted],
    sent_at: held.sent_at,
    duplicate,
  });

  /** Answers the key's recorded send, writing its file first when a crash left it unwritten. */
  const answer = async (message: EmailMessage, held: KeyRecord, fingerprint: string): Promise<SendResult> => {
    if (held.fingerprint !== fingerprint) {
      throw new EmailError(
        "key_conflict",
        `the key ${message.key} was used for another message; nothing was written`,
      );
    }
    if (await guarded("read", () => files.hasItem(fileName(held.id)))) return resultOf(held, true);
    const eml = await composeEmail(message, { messageId: held.message_id, date: new Date(held.sent_at) });
    await writeMessage(held.id, eml);
    return resultOf(held, false);
  };

  const sendOnce = async (message: EmailMessage): Promise<SendResult> => {
    const fingerprint = await emailFingerprint(message);
    const digest = keyDigest(message.key);
    const held = await record(digest);
    if (held) return answer(message, held, fingerprint);
    const now = clock.now();
    const messageId = messageIdFor(
      message.key,
      options.messageIdDomain ?? addressDomain(message.from.address),
    );
    const eml = await composeEmail(message, { messageId, date: new Date(now) });
    const fresh: KeyRecord = {
      key: message.key,
      fingerprint,
      id: idFor(now, digest),
      message_id: messageId,
      sent_at: new Date(now).toISOString(),
      accepted: message.to.map((m) => m.address),
      subject: message.subject,
      from: message.from.address,
      to: message.to.map((m) => m.address),
      size: eml.byteLength,
    };
    const claim = await guarded("written", () => index.create(indexKey(digest), fresh));
    if (!claim.created) return answer(message, claim.record.value as KeyRecord, fingerprint);
    await writeMessage(fresh.id, eml);
    return resultOf(fresh, false);
  };

  const entryOf = (held: KeyRecord): OutboxEntry => ({
    id: held.id,
    key: held.key,
    message_id: held.message_id,
    subject: held.subject,
    from: held.from,
    to: [...held.to],
    sent_at: held.sent_at,
    size: held.size,
  });

  /** The entry of a well-formed id, from the index. */
  const entry = async (id: string): Promise<OutboxEntry | undefined> => {
    const digest = ID_PATTERN.exec(id)?.[1];
    const held = digest ? await record(digest) : undefined;
    return held && held.id === id ? entryOf(held) : undefined;
  };

  return {
    name: options.name ?? "outbox",
    capabilities: Object.freeze({ durable: true, delivers: false }),
    async send(message) {
      if (closed) throw new EmailError("unavailable", "this outbox is closed");
      assertSendableEmail(message);
      return lane(message.key, () => sendOnce(message));
    },
    async list(page = {}) {
      const limit = page.limit ?? 50;
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
        throw new RangeError("limit must be a whole number from 1 to 500");
      }
      if (page.cursor !== undefined && !ID_PATTERN.test(page.cursor)) throw new RangeError("unknown cursor");
      const names = await guarded("read", () => readdir(dir));
      const ids = names
        .filter((name) => EML_NAME.test(name))
        .map((name) => name.slice(0, -".eml".length))
        .filter((id) => page.cursor === undefined || id < page.cursor)
        .sort()
        .reverse();
      const entries: OutboxEntry[] = [];
      let next = 0;
      for (; next < ids.length && entries.length < limit; next++) {
        const found = await entry(ids[next] as string);
        if (found) entries.push(found);
      }
      const last = entries.at(-1);
      return next < ids.length && last ? { entries, cursor: last.id } : { entries };
    },
    async read(id) {
      if (typeof id !== "string" || !ID_PATTERN.test(id)) return undefined;
      const found = await entry(id);
      if (!found) return undefined;
      const eml = await guarded("read", () => files.getItemRaw<Uint8Array>(fileName(id)));
      return eml ? { entry: found, eml: new Uint8Array(eml) } : undefined;
    },
    async close() {
      if (closed) return;
      closed = true;
      await files.dispose();
      await index.close();
    },
  };
}

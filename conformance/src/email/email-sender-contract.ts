import { strict as assert } from "node:assert";
import {
  type Clock,
  EMAIL_ERROR_CODES,
  type EmailAddress,
  EmailError,
  type EmailMessage,
  type EmailSender,
  manualClock,
  type SendResult,
} from "@mailpiece/ports";
import { kitTests, notApplicable, type Suite, type TestBody } from "../kit.ts";
import { noSecretAssertion, refusalAssertion, show } from "../refused-with.ts";
import {
  emailMessageFixture,
  emptyPartMessages,
  headerInjectionMessages,
  type MalformedEmail,
  malformedAddressMessages,
  malformedAttachmentMessages,
  unsafeHeaderMessages,
} from "./email-message-fixtures.ts";
import { EMAIL_SENDER_REQUIREMENTS } from "./email-sender-requirements.ts";

/** A refusal is an EmailError that says why (and names the field, when asked). */
const emailRefusedWith = refusalAssertion(EmailError, { saysWhy: true });
/** Secrets shorter than 6 characters are not searched for in errors: they would match by chance. */
const assertSafeEmailError = noSecretAssertion(EmailError, { codes: EMAIL_ERROR_CODES, minLength: 6 });

/** The names of the EmailSender contract tests, one per MUST sentence of the port. Disable lists are typed by it. */
export const EMAIL_SENDER_CONTRACT_NAMES = [
  "capabilities are declared and constant",
  "send answers the key, the message_id, every recipient accepted, sent_at from the clock and duplicate false",
  "the message sent carries the sender, recipients, reply-to, subject, both bodies, attachments byte for byte and custom headers",
  "different keys send different messages with different message_ids",
  "a second send under a used key answers the first result as a duplicate and sends nothing",
  "concurrent sends of one message under one key send it once",
  "a different message under a used key is refused with key_conflict, sending nothing",
  "durable: used keys survive a restart",
  "malformed addresses, recipient lists and keys are refused with invalid_message naming the field",
  "CR, LF or other control characters in the subject, a name, a filename or a header value are refused with invalid_message",
  "an empty subject, text or html is refused with invalid_message naming the field",
  "oversized, too many or malformed attachments are refused with invalid_message naming the field",
  "unsafe or malformed custom headers are refused with invalid_message naming the field",
  "a refused send leaves its key free",
  "a server that is down is unavailable, and the retry under the same key sends once",
  "a temporary refusal (4xx) is unavailable, and the retry under the same key sends once",
  "a permanent refusal (5xx) is rejected, sending nothing",
  "refused credentials are auth_failed, sending nothing",
  "errors are EmailErrors with a code of the port and a reason, and carry no secret",
] as const;

export type EmailSenderContractName = (typeof EMAIL_SENDER_CONTRACT_NAMES)[number];

/** A mailbox as a parser of received mail reads it (mailparser's `EmailAddress`). */
export interface ParsedMailbox {
  name?: string | undefined;
  address?: string | undefined;
}

/** An address header as a parser reads it (mailparser's `AddressObject`). */
export interface ParsedAddressList {
  value: readonly ParsedMailbox[];
}

/**
 * A received message as mailparser's `simpleParser` reads it (its `ParsedMail` fits this shape): the kit compares
 * what arrived with what was sent through these fields only.
 */
export interface ParsedEmail {
  messageId?: string | undefined;
  from?: ParsedAddressList | undefined;
  to?: ParsedAddressList | readonly ParsedAddressList[] | undefined;
  replyTo?: ParsedAddressList | undefined;
  subject?: string | undefined;
  text?: string | undefined;
  html?: string | false | undefined;
  attachments: ReadonlyArray<{ filename?: string | undefined; contentType: string; content: Uint8Array }>;
  /** Header values by lower-case name. */
  headers: ReadonlyMap<string, unknown>;
}

/** One message as the receiving side got it. */
export interface ReceivedEmail {
  mail: ParsedEmail;
  /** The SMTP envelope's recipients, when the receiver knows them. */
  envelopeTo?: readonly string[];
}

/** Ways to make the adapter's server fail, each until `restore`. Give those the adapter can have. */
export interface EmailSenderFaults {
  /** The server cannot be reached (connections refused). */
  down?(): Promise<void>;
  /** The server refuses every message for now (an SMTP 4xx reply). */
  refuseTemporarily?(): Promise<void>;
  /** The server refuses every message for good (an SMTP 5xx reply). */
  refusePermanently?(): Promise<void>;
  /** The server refuses the sender's credentials. */
  refuseCredentials?(): Promise<void>;
  /** Ends every fault: the server answers and accepts again. */
  restore(): Promise<void>;
}

/** A sender to test, what reads its sent mail, and what fails it. */
export interface EmailSenderSubject {
  sender: EmailSender;
  /** Every message sent since the subject was made, oldest first, as the receiving side read it. */
  inbox(): Promise<ReceivedEmail[]>;
  /**
   * Opens a new sender on the records of `previous` (closed by the suite before the call), as a restarted process
   * would, on the same clock and the same inbox. Required when the sender declares `durable: true`.
   */
  restart?(previous: EmailSender): Promise<EmailSender>;
  faults?: EmailSenderFaults;
  /** Strings no error may carry: passwords, tokens, in each form they are configured in. */
  secrets?: readonly string[];
  /** Releases what the factory opened (servers, folders); the suite has closed the sender. */
  dispose?(): Promise<void>;
}

export interface EmailSenderContractContext {
  /** A manual clock starting at 2026-01-01; the sender MUST read time from it. */
  clock: Clock & { advance(ms: number): void };
}

/** Makes a fresh sender with no used keys and an empty inbox, on `ctx.clock`. Called once per test. */
export type EmailSenderFactory = (ctx: EmailSenderContractContext) => Promise<EmailSenderSubject>;

export interface EmailSenderContractOptions {
  /** Shown in reports, e.g. `smtp`. */
  name?: string;
  /**
   * Tests that do not apply to the adapter, left out of the suite: an outbox has no server to refuse a message or
   * credentials. Every test it can run stays in.
   */
  disable?: readonly EmailSenderContractName[];
}

interface Ctx {
  sender: EmailSender;
  subject: EmailSenderSubject;
  clock: EmailSenderContractContext["clock"];
  inbox(): Promise<ReceivedEmail[]>;
  /** Closes the sender and opens it again through `restart`. */
  restart(): Promise<EmailSender>;
}

const newKey = () => `email-contract-${crypto.randomUUID()}`;

const lower = (value: string | undefined) => (value ?? "").toLowerCase();

/** Line breaks as LF, without trailing white space: how bodies compare after a trip through MIME. */
const body = (value: string | false | undefined) =>
  typeof value === "string" ? value.replace(/\r\n/g, "\n").replace(/\s+$/, "") : "";

function addressList(value: ParsedEmail["to"]): ParsedMailbox[] {
  if (value === undefined) return [];
  const lists: readonly ParsedAddressList[] = Array.isArray(value) ? value : [value as ParsedAddressList];
  return lists.flatMap((list) => [...list.value]);
}

function checkMailbox(got: ParsedMailbox | undefined, sent: EmailAddress, what: string): void {
  assert.ok(got, `${what}: the message names ${sent.address}`);
  assert.equal(lower(got.address), lower(sent.address), `${what}: the address`);
  assert.equal(got.name ?? "", sent.name ?? "", `${what}: the display name`);
}

function sameBytes(got: Uint8Array, sent: Uint8Array): boolean {
  if (got.byteLength !== sent.byteLength) return false;
  for (let i = 0; i < got.byteLength; i++) if (got[i] !== sent[i]) return false;
  return true;
}

function checkResult(result: SendResult, message: EmailMessage, what: string): void {
  assert.equal(result?.key, message.key, `${what}: the result names the key`);
  assert.ok(
    typeof result.message_id === "string" && /^<[^<>\s]+@[^<>\s]+>$/.test(result.message_id),
    `${what}: message_id ${show(result.message_id)} is a Message-ID in angle brackets`,
  );
  assert.ok(
    typeof result.sent_at === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(result.sent_at),
    `${what}: sent_at ${show(result.sent_at)} is an ISO 8601 time in UTC`,
  );
  assert.equal(typeof result.duplicate, "boolean", `${what}: duplicate is a boolean`);
  assert.ok(Array.isArray(result.accepted), `${what}: accepted is a list`);
  assert.deepEqual(
    result.accepted.map(lower).sort(),
    message.to.map((m) => lower(m.address)).sort(),
    `${what}: every recipient is accepted`,
  );
}

/** Asserts that the inbox holds `count` messages; returns them. */
async function expectInbox(ctx: Ctx, count: number, why: string): Promise<ReceivedEmail[]> {
  const inbox = await ctx.inbox();
  assert.equal(
    inbox.length,
    count,
    `${why}: ${count} message(s) sent, the inbox holds ${inbox.length} (${inbox.map((m) => m.mail.messageId).join(", ")})`,
  );
  return inbox;
}

function needFault<K extends Exclude<keyof EmailSenderFaults, "restore">>(
  subject: EmailSenderSubject,
  fault: K,
  test: EmailSenderContractName,
): NonNullable<EmailSenderFaults[K]> {
  const inject = subject.faults?.[fault];
  assert.ok(
    inject,
    `this test needs faults.${fault}; give it, or name "${test}" in disable when the adapter cannot have that failure`,
  );
  return inject.bind(subject.faults) as NonNullable<EmailSenderFaults[K]>;
}

/**
 * The EmailSender contract (adapters/ports/src/email-sender.ts) as a suite: one named test per MUST sentence.
 * `factory` makes each test's sender with a way to read what it sent (`inbox`) and, where the adapter has a server,
 * ways to make that server fail (`faults`). The durability test answers not applicable for a sender that declares
 * `durable: false`.
 */
export function emailSenderContract(
  factory: EmailSenderFactory,
  options: EmailSenderContractOptions = {},
): Suite<EmailSenderContractName> {
  const run = (test: (ctx: Ctx) => ReturnType<TestBody>) => async (): ReturnType<TestBody> => {
    const clock = manualClock();
    const subject = await factory({ clock });
    let sender = subject.sender;
    const ctx: Ctx = {
      get sender() {
        return sender;
      },
      subject,
      clock,
      inbox: () => subject.inbox(),
      async restart() {
        assert.ok(
          subject.restart,
          "the sender declares durable: true; give restart so the suite can reopen it",
        );
        await sender.close();
        sender = await subject.restart(sender);
        return sender;
      },
    };
    try {
      return await test(ctx);
    } finally {
      try {
        await subject.faults?.restore();
        await sender.close();
      } finally {
        await subject.dispose?.();
      }
    }
  };

  /** Sends each malformed message and asserts its refusal; then that nothing was sent. */
  const refusesAll = (make: (key: string) => MalformedEmail[]) =>
    run(async (ctx) => {
      for (const { why, field, message } of make(newKey())) {
        await emailRefusedWith(() => ctx.sender.send(message), "invalid_message", `send with ${why}`, field);
      }
      await expectInbox(ctx, 0, "after the refusals");
    });

  /** A fault that makes the server unavailable: the send is refused, and once restored the retry sends once. */
  const unavailableThenOnce = (fault: "down" | "refuseTemporarily", test: EmailSenderContractName) =>
    run(async (ctx) => {
      const inject = needFault(ctx.subject, fault, test);
      const message = emailMessageFixture(newKey());
      await inject();
      await emailRefusedWith(() => ctx.sender.send(message), "unavailable", `send with faults.${fault}`);
      await emailRefusedWith(
        () => ctx.sender.send(message),
        "unavailable",
        `a second send with faults.${fault}`,
      );
      await ctx.subject.faults?.restore();
      await expectInbox(ctx, 0, `while faults.${fault} held`);
      const sent = await ctx.sender.send(message);
      checkResult(sent, message, "the retry once the server is back");
      assert.equal(sent.duplicate, false, "the retry sends: duplicate false");
      assert.deepEqual(
        await ctx.sender.send(message),
        { ...sent, duplicate: true },
        "a further send is a duplicate",
      );
      await expectInbox(ctx, 1, "the retry");
    });

  const tests: Record<EmailSenderContractName, TestBody> = {
    "capabilities are declared and constant": run(async (ctx) => {
      const { sender } = ctx;
      assert.ok(typeof sender.name === "string" && sender.name.length > 0, "the sender has a name");
      const declared = { ...sender.capabilities };
      assert.deepEqual(
        Object.keys(declared).sort(),
        ["delivers", "durable"],
        "capabilities are durable and delivers",
      );
      assert.equal(typeof declared.durable, "boolean", "capabilities.durable is a boolean");
      assert.equal(typeof declared.delivers, "boolean", "capabilities.delivers is a boolean");
      await sender.send(emailMessageFixture(newKey()));
      await emailRefusedWith(
        () => sender.send({ ...emailMessageFixture(newKey()), subject: "" }),
        "invalid_message",
        "an empty subject",
      );
      assert.deepEqual({ ...sender.capabilities }, declared, "capabilities do not change");
    }),

    "send answers the key, the message_id, every recipient accepted, sent_at from the clock and duplicate false":
      run(async (ctx) => {
        const message = emailMessageFixture(newKey());
        ctx.clock.advance(12_345);
        const result = await ctx.sender.send(message);
        checkResult(result, message, "send");
        assert.equal(result.duplicate, false, "a first send is not a duplicate");
        assert.equal(
          result.sent_at,
          new Date(ctx.clock.now()).toISOString(),
          "sent_at is the sender's clock's now",
        );
        const [received] = await expectInbox(ctx, 1, "one send");
        assert.equal(
          received?.mail.messageId,
          result.message_id,
          "message_id is the Message-ID of the message sent",
        );
      }),

    "the message sent carries the sender, recipients, reply-to, subject, both bodies, attachments byte for byte and custom headers":
      run(async (ctx) => {
        const message = emailMessageFixture(newKey());
        await ctx.sender.send(message);
        const [received] = await expectInbox(ctx, 1, "one send");
        const mail = (received as ReceivedEmail).mail;
        checkMailbox(mail.from?.value[0], message.from, "From");
        const to = addressList(mail.to);
        assert.equal(to.length, message.to.length, "To names every recipient");
        for (const [i, sent] of message.to.entries()) checkMailbox(to[i], sent, `To ${i}`);
        checkMailbox(mail.replyTo?.value[0], message.replyTo as EmailAddress, "Reply-To");
        if (received?.envelopeTo) {
          assert.deepEqual(
            received.envelopeTo.map(lower).sort(),
            message.to.map((m) => lower(m.address)).sort(),
            "the envelope names every recipient and no one else",
          );
        }
        assert.equal(mail.subject, message.subject, "the subject");
        assert.equal(body(mail.text), body(message.text), "the text body");
        assert.equal(body(mail.html), body(message.html), "the html body");
        const sentFiles = message.attachments ?? [];
        assert.equal(mail.attachments.length, sentFiles.length, "every attachment arrives, and no other");
        sentFiles.forEach((sent, i) => {
          const got = mail.attachments[i];
          assert.equal(got?.filename, sent.filename, `attachment ${i}: the filename`);
          assert.equal(
            lower(got?.contentType.split(";")[0]?.trim()),
            lower(sent.contentType),
            `attachment ${i}: type`,
          );
          assert.ok(
            got && sameBytes(got.content, sent.content),
            `attachment ${i}: the bytes arrive unchanged`,
          );
        });
        for (const [name, value] of Object.entries(message.headers ?? {})) {
          assert.equal(String(mail.headers.get(name.toLowerCase())), value, `the ${name} header`);
        }
      }),

    "different keys send different messages with different message_ids": run(async (ctx) => {
      const first = await ctx.sender.send(emailMessageFixture(newKey()));
      const second = await ctx.sender.send(emailMessageFixture(newKey()));
      assert.equal(first.duplicate || second.duplicate, false, "neither send is a duplicate");
      assert.notEqual(first.message_id, second.message_id, "each key has its own message_id");
      const inbox = await expectInbox(ctx, 2, "two keys");
      assert.deepEqual(
        inbox.map((m) => m.mail.messageId).sort(),
        [first.message_id, second.message_id].sort(),
        "each key's message is in the inbox",
      );
    }),

    "a second send under a used key answers the first result as a duplicate and sends nothing": run(
      async (ctx) => {
        const message = emailMessageFixture(newKey());
        const first = await ctx.sender.send(message);
        assert.equal(first.duplicate, false, "the first send is not a duplicate");
        ctx.clock.advance(3_600_000);
        for (const attempt of [2, 3]) {
          const again = await ctx.sender.send(emailMessageFixture(message.key));
          assert.deepEqual(again, { ...first, duplicate: true }, `send ${attempt} answers the first result`);
        }
        await expectInbox(ctx, 1, "three sends under one key");
      },
    ),

    "concurrent sends of one message under one key send it once": run(async (ctx) => {
      const message = emailMessageFixture(newKey());
      const results = await Promise.all(
        Array.from({ length: 10 }, () => ctx.sender.send(emailMessageFixture(message.key))),
      );
      assert.equal(results.filter((r) => !r.duplicate).length, 1, "exactly one send answers duplicate false");
      const first = results.find((r) => !r.duplicate) as SendResult;
      for (const result of results) {
        assert.deepEqual(
          result,
          { ...first, duplicate: result.duplicate },
          "every caller gets the same result",
        );
      }
      await expectInbox(ctx, 1, "ten concurrent sends under one key");
    }),

    "a different message under a used key is refused with key_conflict, sending nothing": run(async (ctx) => {
      const message = emailMessageFixture(newKey());
      const first = await ctx.sender.send(message);
      const pdf = (message.attachments ?? [])[0];
      const changedPdf = new Uint8Array(pdf?.content ?? []);
      changedPdf[100] = (changedPdf[100] ?? 0) ^ 0xff;
      const others: Array<[string, Partial<EmailMessage>]> = [
        ["another subject", { subject: `${message.subject} (2)` }],
        ["another recipient", { to: [{ address: "someone-else@example.test" }] }],
        ["a recipient more", { to: [...message.to, { address: "third@example.test" }] }],
        ["another text", { text: `${message.text}\nP.S.` }],
        ["another html", { html: `${message.html}<p>P.S.</p>` }],
        ["another sender name", { from: { ...message.from, name: "Someone else" } }],
        ["no reply-to", { replyTo: undefined }],
        ["other attachment bytes", { attachments: pdf ? [{ ...pdf, content: changedPdf }] : [] }],
        ["no attachment", { attachments: [] }],
        ["another header value", { headers: { ...message.headers, "X-Mailpiece-Order": "o_2" } }],
      ];
      for (const [why, change] of others) {
        await emailRefusedWith(
          () => ctx.sender.send(emailMessageFixture(message.key, change)),
          "key_conflict",
          `${why} under a used key`,
        );
      }
      assert.deepEqual(
        await ctx.sender.send(message),
        { ...first, duplicate: true },
        "the key still holds the first",
      );
      await expectInbox(ctx, 1, "the refused sends");
    }),

    "durable: used keys survive a restart": run(async (ctx) => {
      if (!ctx.sender.capabilities.durable) return notApplicable("the sender declares durable: false");
      const message = emailMessageFixture(newKey());
      const first = await ctx.sender.send(message);
      const restarted = await ctx.restart();
      ctx.clock.advance(60_000);
      assert.deepEqual(
        await restarted.send(message),
        { ...first, duplicate: true },
        "after a restart: a duplicate",
      );
      await emailRefusedWith(
        () => restarted.send(emailMessageFixture(message.key, { subject: "Another subject" })),
        "key_conflict",
        "another message under the key after a restart",
      );
      const other = await restarted.send(emailMessageFixture(newKey()));
      assert.equal(other.duplicate, false, "a new key after a restart sends");
      await expectInbox(ctx, 2, "a key sent before a restart and one after");
    }),

    "malformed addresses, recipient lists and keys are refused with invalid_message naming the field":
      refusesAll(malformedAddressMessages),

    "CR, LF or other control characters in the subject, a name, a filename or a header value are refused with invalid_message":
      refusesAll(headerInjectionMessages),

    "an empty subject, text or html is refused with invalid_message naming the field":
      refusesAll(emptyPartMessages),

    "oversized, too many or malformed attachments are refused with invalid_message naming the field":
      refusesAll(malformedAttachmentMessages),

    "unsafe or malformed custom headers are refused with invalid_message naming the field":
      refusesAll(unsafeHeaderMessages),

    "a refused send leaves its key free": run(async (ctx) => {
      const key = newKey();
      for (const make of [malformedAddressMessages, headerInjectionMessages, emptyPartMessages]) {
        const [bad] = make(key).filter((c) => c.field !== "key");
        await emailRefusedWith(
          () => ctx.sender.send((bad as MalformedEmail).message),
          "invalid_message",
          "a refusal",
        );
      }
      const message = emailMessageFixture(key);
      const sent = await ctx.sender.send(message);
      checkResult(sent, message, "the key after refusals");
      assert.equal(sent.duplicate, false, "the key was free: the valid message is sent, not a duplicate");
      await expectInbox(ctx, 1, "refusals, then one valid send");
    }),

    "a server that is down is unavailable, and the retry under the same key sends once": unavailableThenOnce(
      "down",
      "a server that is down is unavailable, and the retry under the same key sends once",
    ),

    "a temporary refusal (4xx) is unavailable, and the retry under the same key sends once":
      unavailableThenOnce(
        "refuseTemporarily",
        "a temporary refusal (4xx) is unavailable, and the retry under the same key sends once",
      ),

    "a permanent refusal (5xx) is rejected, sending nothing": run(async (ctx) => {
      const inject = needFault(
        ctx.subject,
        "refusePermanently",
        "a permanent refusal (5xx) is rejected, sending nothing",
      );
      const message = emailMessageFixture(newKey());
      await inject();
      await emailRefusedWith(() => ctx.sender.send(message), "rejected", "send refused for good");
      await ctx.subject.faults?.restore();
      await expectInbox(ctx, 0, "a rejected send");
      const sent = await ctx.sender.send(message);
      assert.equal(sent.duplicate, false, "a rejection leaves the key free: a later send is not a duplicate");
      await expectInbox(ctx, 1, "a rejected send, then an accepted one");
    }),

    "refused credentials are auth_failed, sending nothing": run(async (ctx) => {
      const inject = needFault(
        ctx.subject,
        "refuseCredentials",
        "refused credentials are auth_failed, sending nothing",
      );
      const message = emailMessageFixture(newKey());
      await inject();
      const error = await emailRefusedWith(
        () => ctx.sender.send(message),
        "auth_failed",
        "send with refused credentials",
      );
      assertSafeEmailError(error, ctx.subject.secrets ?? [], "auth_failed");
      await ctx.subject.faults?.restore();
      await expectInbox(ctx, 0, "refused credentials");
      assert.equal((await ctx.sender.send(message)).duplicate, false, "the key stays free");
      await expectInbox(ctx, 1, "refused credentials, then accepted ones");
    }),

    "errors are EmailErrors with a code of the port and a reason, and carry no secret": run(async (ctx) => {
      const secrets = ctx.subject.secrets ?? [];
      for (const secret of secrets) {
        assert.ok(typeof secret === "string" && secret.length > 0, "each secret is a non-empty string");
      }
      const errors: Array<[string, unknown]> = [];
      const attempt = async (what: string, message: EmailMessage) => {
        try {
          const answer = await ctx.sender.send(message);
          assert.fail(`${what}: expected a failure, got ${show(answer)}`);
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error;
          errors.push([what, error]);
        }
      };
      await attempt("an invalid message", { ...emailMessageFixture(newKey()), subject: "" });
      const used = emailMessageFixture(newKey());
      await ctx.sender.send(used);
      await attempt("a key conflict", { ...used, subject: "Another" });
      const faults = ctx.subject.faults;
      for (const fault of ["down", "refuseTemporarily", "refusePermanently", "refuseCredentials"] as const) {
        const inject = faults?.[fault];
        if (!inject) continue;
        await inject.call(faults);
        await attempt(`faults.${fault}`, emailMessageFixture(newKey()));
        await faults?.restore();
      }
      for (const [what, error] of errors) assertSafeEmailError(error, secrets, what);
      const codes = errors.map(([, error]) => (error as EmailError).code);
      assert.ok(
        codes.includes("invalid_message") && codes.includes("key_conflict"),
        `codes seen: ${codes.join(", ")}`,
      );
    }),
  };

  return {
    name: options.name ? `email sender contract (${options.name})` : "email sender contract",
    tests: kitTests(EMAIL_SENDER_CONTRACT_NAMES, tests, EMAIL_SENDER_REQUIREMENTS, options.disable),
  };
}

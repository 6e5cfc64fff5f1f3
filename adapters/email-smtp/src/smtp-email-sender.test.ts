import { createServer, type Server } from "node:net";
import { inspect } from "node:util";
import {
  createLocalCertificate,
  emailMessageFixture,
  samplePdfBytes,
  startTestSmtpServer,
  type TestSmtpServer,
  type TestSmtpServerOptions,
} from "@mailpiece/conformance";
import {
  EmailError,
  type EmailMessage,
  emailFingerprint,
  isRetryableEmailError,
  manualClock,
  PortError,
  type SendResult,
  type Store,
} from "@mailpiece/ports";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSmtpEmailSender, type SmtpEmailSenderOptions } from "./smtp-email-sender.ts";

const USER = "mailer@mailpiece.test";
const PASS = "pa ss:w@rd/Zq81-secret";

let certificate: { key: string; cert: string };
const cleanup: Array<() => Promise<void>> = [];

beforeAll(async () => {
  certificate = await createLocalCertificate();
});

afterEach(async () => {
  for (const task of cleanup.splice(0).reverse()) await task();
});

async function server(more: Partial<TestSmtpServerOptions> = {}): Promise<TestSmtpServer> {
  const started = await startTestSmtpServer({ certificate, user: USER, pass: PASS, ...more });
  cleanup.push(() => started.close());
  return started;
}

function sender(
  smtp: Pick<TestSmtpServer, "url" | "ca">,
  more: Partial<SmtpEmailSenderOptions> & { store?: Store } = {},
) {
  const clock = manualClock();
  const store = more.store ?? createMemoryStore({ clock });
  const made = createSmtpEmailSender({ url: smtp.url, store, clock, tls: { ca: smtp.ca }, ...more });
  cleanup.push(() => made.close());
  return { sender: made, clock, store };
}

async function failure(promise: Promise<unknown>): Promise<EmailError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  expect(EmailError.isInstance(outcome.error)).toBe(true);
  return outcome.error as EmailError;
}

/** A job that runs `send` until it succeeds or fails for good, as the queue retries it. */
async function retryLikeAJob(
  send: () => Promise<SendResult>,
  between: () => Promise<void>,
): Promise<SendResult> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isRetryableEmailError(error)) throw error;
      await between();
    }
  }
  throw new Error("still failing after 5 attempts");
}

describe("createSmtpEmailSender", () => {
  it("delivers over STARTTLS with a login; mailparser reads back the subject, bodies and the PDF byte for byte", async () => {
    const smtp = await server();
    const { sender: mail } = sender(smtp);
    const message = emailMessageFixture("receipt:o_1");
    const result = await mail.send(message);
    expect(result).toMatchObject({ key: "receipt:o_1", duplicate: false });
    expect(result.message_id).toMatch(/^<[0-9a-f]{32}@mailpiece\.test>$/);
    const [received] = await smtp.inbox();
    expect(received?.mail.subject).toBe(message.subject);
    expect(received?.mail.text?.trimEnd()).toBe(message.text);
    expect(received?.mail.html).toBe(message.html);
    expect(received?.mail.messageId).toBe(result.message_id);
    const attachment = received?.mail.attachments[0];
    expect(attachment?.filename).toBe("receipt-o_1.pdf");
    expect(attachment?.contentType).toBe("application/pdf");
    expect(Buffer.compare(Buffer.from(attachment?.content ?? []), Buffer.from(samplePdfBytes()))).toBe(0);
    expect(received?.envelopeTo).toEqual(["zoe@example.test", "accounts@example.test"]);
  });

  it("delivers over implicit TLS (smtps)", async () => {
    const smtp = await server({ implicitTls: true });
    expect(smtp.url.startsWith("smtps://")).toBe(true);
    const { sender: mail } = sender(smtp);
    await mail.send(emailMessageFixture("receipt:tls"));
    expect((await smtp.inbox()).map((m) => m.mail.subject)).toEqual([emailMessageFixture("x").subject]);
  });

  it("sends nothing in the clear: a server without STARTTLS is unavailable", async () => {
    const smtp = await server({ withoutStartTls: true });
    const { sender: mail, store } = sender(smtp);
    const error = await failure(mail.send(emailMessageFixture("receipt:plain")));
    expect(error.code).toBe("unavailable");
    expect(smtp.raw).toEqual([]);
    expect(await store.get("email:smtp:receipt:plain")).toBeUndefined();
  });

  it("trusts no certificate it was not given", async () => {
    const smtp = await server();
    const { sender: mail } = sender({ url: smtp.url, ca: "" }, { tls: {} });
    const error = await failure(mail.send(emailMessageFixture("receipt:untrusted")));
    expect(error.code).toBe("unavailable");
    expect(error.message).not.toContain(PASS);
    expect(smtp.raw).toEqual([]);
  });

  it("a 4xx at the end of the message, then acceptance: the caller's retry delivers exactly once", async () => {
    const smtp = await server();
    const { sender: mail } = sender(smtp);
    smtp.mode = "refuse-temporarily";
    const message = emailMessageFixture("status:o_1:in_transit");
    let attempts = 0;
    const result = await retryLikeAJob(
      () => {
        attempts += 1;
        return mail.send(message);
      },
      async () => {
        smtp.mode = "accept";
      },
    );
    expect(attempts).toBe(2);
    expect(result.duplicate).toBe(false);
    expect(await mail.send(message)).toEqual({ ...result, duplicate: true });
    const inbox = await smtp.inbox();
    expect(inbox.map((m) => m.mail.messageId)).toEqual([result.message_id]);
  });

  it("a 5xx for every recipient is rejected and sends nothing; one refused recipient leaves the others accepted", async () => {
    const smtp = await server();
    const { sender: mail } = sender(smtp);
    smtp.mode = "refuse-permanently";
    const error = await failure(mail.send(emailMessageFixture("receipt:refused")));
    expect(error.code).toBe("rejected");
    expect(isRetryableEmailError(error)).toBe(false);
    expect(error.message).toMatch(/550/);
    smtp.mode = "accept";
    smtp.refusedRecipients.add("accounts@example.test");
    const partly = await mail.send(emailMessageFixture("receipt:partly"));
    expect(partly.accepted).toEqual(["zoe@example.test"]);
    expect((await smtp.inbox()).map((m) => m.envelopeTo)).toEqual([["zoe@example.test"]]);
  });

  it("a wrong password is auth_failed, and no form of it is in the error", async () => {
    const smtp = await server();
    const wrong = "wr0ng pass@word/Zq81";
    const url = smtp.url.replace(encodeURIComponent(PASS), encodeURIComponent(wrong));
    const { sender: mail, store } = sender({ url, ca: smtp.ca });
    const error = await failure(mail.send(emailMessageFixture("receipt:auth")));
    expect(error.code).toBe("auth_failed");
    expect(error.message).toMatch(/535/);
    const everything = `${inspect(error, { depth: 8, showHidden: true })}\n${error.stack}`;
    for (const form of [
      wrong,
      encodeURIComponent(wrong),
      Buffer.from(wrong).toString("base64"),
      Buffer.from(`\u0000${USER}\u0000${wrong}`).toString("base64"),
      url,
    ]) {
      expect(everything).not.toContain(form);
    }
    expect(smtp.raw).toEqual([]);
    expect(await store.get("email:smtp:receipt:auth")).toBeUndefined();
  });

  it("a reply lost after the message was handed over: unavailable until the lease passes, then sent again with the same Message-ID", async () => {
    const smtp = await server();
    const { sender: mail, clock } = sender(smtp, {
      timeouts: { socketMs: 300, sendMs: 5_000 },
      sendingLeaseMs: 60_000,
    });
    const message = emailMessageFixture("receipt:lost-reply");
    smtp.mode = "silent-after-data";
    const lost = await failure(mail.send(message));
    expect(lost.code).toBe("unavailable");
    expect(lost.message).toMatch(/not known/);
    smtp.mode = "accept";
    const waiting = await failure(mail.send(message));
    expect(waiting.code).toBe("unavailable");
    expect(waiting.message).toContain(new Date(clock.now() + 60_000).toISOString());
    clock.advance(59_999);
    expect((await failure(mail.send(message))).code).toBe("unavailable");
    clock.advance(1);
    const resent = await mail.send(message);
    expect(resent.duplicate).toBe(false);
    expect(await mail.send(message)).toEqual({ ...resent, duplicate: true });
    const copies = await smtp.inbox();
    expect(copies).toHaveLength(2);
    expect(copies.map((m) => m.mail.messageId)).toEqual([resent.message_id, resent.message_id]);
  });

  it("a claim left by a crash holds the key for the lease, then the send takes it over with the claim's Message-ID", async () => {
    const smtp = await server();
    const { sender: mail, clock, store } = sender(smtp, { sendingLeaseMs: 600_000 });
    const message = emailMessageFixture("receipt:crashed");
    const crashedId = "<crashed-claim@mailpiece.test>";
    await store.create("email:smtp:receipt:crashed", {
      state: "sending",
      fingerprint: await emailFingerprint(message),
      message_id: crashedId,
      started_at: clock.now(),
    });
    expect((await failure(mail.send(message))).code).toBe("unavailable");
    expect((await failure(mail.send({ ...message, subject: "Other" }))).code).toBe("key_conflict");
    clock.advance(600_000);
    const sent = await mail.send(message);
    expect(sent.message_id).toBe(crashedId);
    expect((await smtp.inbox()).map((m) => m.mail.messageId)).toEqual([crashedId]);
  });

  it("reuses pooled connections, and opens one per message without the pool", async () => {
    const smtp = await server();
    const pooled = sender(smtp).sender;
    for (let i = 0; i < 5; i++) await pooled.send(emailMessageFixture(`pooled:${i}`));
    expect(smtp.connections).toBe(1);
    const single = sender(smtp, { pool: false }).sender;
    for (let i = 0; i < 3; i++) await single.send(emailMessageFixture(`single:${i}`));
    expect(smtp.connections).toBe(4);
    expect(await smtp.inbox()).toHaveLength(8);
  });

  it("a server that never greets times out as unavailable and frees the key", async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    cleanup.push(
      () =>
        new Promise<void>((resolve) => {
          silent.close(() => resolve());
          silent.unref();
        }),
    );
    const port = (silent.address() as { port: number }).port;
    const { sender: mail, store } = sender(
      { url: `smtp://${USER}:x@127.0.0.1:${port}`, ca: certificate.cert },
      { pool: false, timeouts: { connectMs: 2_000, greetingMs: 300 } },
    );
    const error = await failure(mail.send(emailMessageFixture("receipt:silent")));
    expect(error.code).toBe("unavailable");
    expect(await store.get("email:smtp:receipt:silent")).toBeUndefined();
  });

  it("a store that cannot be reached is unavailable and nothing is sent", async () => {
    const smtp = await server();
    const clock = manualClock();
    const inner = createMemoryStore({ clock });
    const broken: Store = {
      ...inner,
      name: "broken",
      capabilities: inner.capabilities,
      create: async () => {
        throw new PortError("store_unavailable", "the store is down");
      },
    };
    const { sender: mail } = sender(smtp, { store: broken });
    const error = await failure(mail.send(emailMessageFixture("receipt:no-store")));
    expect(error.code).toBe("unavailable");
    expect(error.message).toMatch(/nothing was sent/);
    expect(smtp.raw).toEqual([]);
  });

  it("takes the Message-ID domain from the options, the key prefix too, and declares the Store's durability", async () => {
    const smtp = await server();
    const { sender: mail, store } = sender(smtp, {
      messageIdDomain: "mail.example.test",
      keyPrefix: "mail:out",
    });
    const sent = await mail.send(emailMessageFixture("receipt:domain"));
    expect(sent.message_id).toMatch(/@mail\.example\.test>$/);
    expect((await store.get("mail:out:receipt:domain"))?.value).toMatchObject({ state: "sent" });
    expect(mail.capabilities).toEqual({ durable: false, delivers: true });
  });

  it("refuses messages before connecting, and every send after close", async () => {
    const smtp = await server();
    const { sender: mail } = sender(smtp);
    const bad: EmailMessage = { ...emailMessageFixture("receipt:bad"), subject: "Hi\r\nBcc: x@example.test" };
    expect((await failure(mail.send(bad))).field).toBe("subject");
    expect(smtp.connections).toBe(0);
    await mail.close();
    expect((await failure(mail.send(emailMessageFixture("receipt:closed")))).code).toBe("unavailable");
  });

  it("refuses bad options with a TypeError that never shows the password", () => {
    const store = createMemoryStore();
    const make = (more: Partial<SmtpEmailSenderOptions>) => () =>
      createSmtpEmailSender({
        url: `smtp://u:${encodeURIComponent(PASS)}@mail.example.test`,
        store,
        ...more,
      });
    const cases: Array<Partial<SmtpEmailSenderOptions>> = [
      { url: `http://u:${encodeURIComponent(PASS)}@mail.example.test` },
      { url: `smtp://u:${encodeURIComponent(PASS)}@mail.example.test/path` },
      { url: `smtp://u:${encodeURIComponent(PASS)}@mail.example.test?x=1` },
      { url: `smtp://:${encodeURIComponent(PASS)}@mail.example.test` },
      { url: "not a url" },
      { url: "" },
      { sendingLeaseMs: 1_000 },
      { timeouts: { socketMs: 0 } },
      { keyPrefix: "bad prefix" },
      { messageIdDomain: "not a domain" },
    ];
    for (const more of cases) {
      let thrown: unknown;
      try {
        make(more)();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect(String((thrown as Error).message)).not.toContain(PASS);
      expect(String((thrown as Error).message)).not.toContain(encodeURIComponent(PASS));
    }
  });
});

import { mkdtemp, readdir, readFile, rm, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emailMessageFixture, samplePdfBytes } from "@mailpiece/conformance";
import { EmailError, manualClock } from "@mailpiece/ports";
import { simpleParser } from "mailparser";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEmailOutbox } from "./email-outbox.ts";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "email-outbox-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("createEmailOutbox", () => {
  it("writes an .eml file that mailparser reads back as the same message", async () => {
    const clock = manualClock(Date.UTC(2026, 2, 14, 9, 30, 5, 123));
    const outbox = await createEmailOutbox({ dir, clock });
    const message = emailMessageFixture("receipt:o_1");
    const result = await outbox.send(message);
    expect(result).toEqual({
      key: "receipt:o_1",
      message_id: expect.stringMatching(/^<[0-9a-f]{32}@mailpiece\.test>$/),
      accepted: ["zoe@example.test", "accounts@example.test"],
      sent_at: "2026-03-14T09:30:05.123Z",
      duplicate: false,
    });
    const files = (await readdir(dir)).filter((name) => name.endsWith(".eml"));
    expect(files).toEqual([expect.stringMatching(/^20260314t093005123z-[0-9a-f]{32}\.eml$/)]);
    const eml = await readFile(join(dir, files[0] as string));
    expect(eml.includes("\r\n")).toBe(true);
    const mail = await simpleParser(eml);
    expect(mail.messageId).toBe(result.message_id);
    expect(mail.date?.getTime()).toBe(Date.UTC(2026, 2, 14, 9, 30, 5));
    expect(mail.subject).toBe(message.subject);
    expect(mail.from?.value).toEqual([{ name: "Mailpiece receipts", address: "receipts@mailpiece.test" }]);
    expect(mail.replyTo?.value).toEqual([{ name: "Mailpiece support", address: "help@mailpiece.test" }]);
    expect(mail.text?.trimEnd()).toBe(message.text);
    expect(mail.html).toBe(message.html);
    expect(mail.headers.get("x-mailpiece-order")).toBe("o_1");
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ["receipt-o_1.pdf", "application/pdf"],
    ]);
    expect(
      Buffer.compare(mail.attachments[0]?.content ?? Buffer.alloc(0), Buffer.from(samplePdfBytes())),
    ).toBe(0);
  });

  it("lists newest first, a page at a time, and reads each message with its raw bytes", async () => {
    const clock = manualClock();
    const outbox = await createEmailOutbox({ dir, clock });
    for (let i = 0; i < 5; i++) {
      await outbox.send(emailMessageFixture(`status:${i}`, { subject: `Status ${i}` }));
      clock.advance(1_000);
    }
    const first = await outbox.list({ limit: 2 });
    expect(first.entries.map((e) => e.subject)).toEqual(["Status 4", "Status 3"]);
    const second = await outbox.list({ limit: 2, cursor: first.cursor as string });
    expect(second.entries.map((e) => e.subject)).toEqual(["Status 2", "Status 1"]);
    const last = await outbox.list({ limit: 2, cursor: second.cursor as string });
    expect(last).toEqual({ entries: [expect.objectContaining({ subject: "Status 0" })] });
    const entry = last.entries[0];
    expect(entry).toMatchObject({
      key: "status:0",
      from: "receipts@mailpiece.test",
      to: ["zoe@example.test", "accounts@example.test"],
      sent_at: "2026-01-01T00:00:00.000Z",
    });
    const found = await outbox.read(entry?.id as string);
    expect(found?.entry).toEqual(entry);
    expect(found?.eml.byteLength).toBe(entry?.size);
    expect((await simpleParser(Buffer.from(found?.eml ?? []))).subject).toBe("Status 0");
    for (const id of [
      "",
      "../etc/passwd",
      `${entry?.id}x`,
      "20260101t000000000z-00000000000000000000000000000000",
    ]) {
      expect(await outbox.read(id)).toBeUndefined();
    }
    await expect(outbox.list({ limit: 0 })).rejects.toThrow(RangeError);
    await expect(outbox.list({ cursor: "../x" })).rejects.toThrow(RangeError);
    await outbox.close();
  });

  it("keeps every key used across a restart, and holds its folder for one process at a time", async () => {
    const clock = manualClock();
    const message = emailMessageFixture("receipt:restart");
    const first = await createEmailOutbox({ dir, clock });
    const sent = await first.send(message);
    const second = await createEmailOutbox({ dir, clock }).catch((e: unknown) => e);
    expect(EmailError.isInstance(second) && second.code).toBe("unavailable");
    await first.close();
    const again = await createEmailOutbox({ dir, clock });
    expect(await again.send(message)).toEqual({ ...sent, duplicate: true });
    expect((await again.list()).entries).toHaveLength(1);
    expect((await readdir(dir)).filter((name) => name.startsWith(".tmp"))).toEqual([]);
    await again.close();
  });

  it("finishes a send that was cut short after its key was recorded", async () => {
    const clock = manualClock();
    const message = emailMessageFixture("receipt:cut-short");
    const outbox = await createEmailOutbox({ dir, clock });
    const first = await outbox.send(message);
    const [entry] = (await outbox.list()).entries;
    await outbox.close();
    await unlink(join(dir, `${entry?.id}.eml`));
    clock.advance(60_000);
    const restarted = await createEmailOutbox({ dir, clock });
    expect((await restarted.list()).entries).toEqual([]);
    expect(await restarted.send(message)).toEqual({ ...first, duplicate: false });
    expect((await restarted.list()).entries.map((e) => e.id)).toEqual([entry?.id]);
    const mail = await simpleParser(Buffer.from((await restarted.read(entry?.id as string))?.eml ?? []));
    expect(mail.messageId).toBe(first.message_id);
    expect(await restarted.send(message)).toEqual({ ...first, duplicate: true });
    await restarted.close();
  });

  it("declares that it delivers nothing, and refuses sends once closed", async () => {
    const outbox = await createEmailOutbox({ dir });
    expect(outbox.capabilities).toEqual({ durable: true, delivers: false });
    await outbox.close();
    const error = await outbox.send(emailMessageFixture("receipt:closed")).catch((e: unknown) => e);
    expect(EmailError.isInstance(error) && error.code).toBe("unavailable");
    await expect(createEmailOutbox({ dir: "" })).rejects.toThrow(TypeError);
  });
});

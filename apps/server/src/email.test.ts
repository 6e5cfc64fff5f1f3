import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestSmtpServer } from "@mailpiece/conformance";
import { createLocalCertificate, letterOrder, startTestSmtpServer } from "@mailpiece/conformance";
import { testMethodClient } from "@mailpiece/rail-mpp";
import { simpleParser } from "mailparser";
import { Mppx } from "mppx/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

/** Pays one letter over MPP (the test method) on a running server; answers its order id. */
async function payLetter(url: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const mpp = Mppx.create({ methods: [testMethodClient({ token: "tok_test_visa" })], polyfill: false });
  const paid = await mpp.fetch(`${url}/api/machine/mpp/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(letterOrder({ buyer_email: "ada@example.com", ...overrides })),
  });
  expect(paid.status).toBe(202);
  return ((await paid.json()) as { order_id: string }).order_id;
}

/** Polls `check` every 100 ms until it answers something, within a generous budget for a loaded machine. */
async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const steps = async (url: string, id: string) =>
  (
    (await (await fetch(`${url}/api/machine/mpp/orders/${id}`)).json()) as { steps: { step: string }[] }
  ).steps.map((s) => s.step);

describe("email over SMTP (STARTTLS, with auth)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-email-"));
  let smtp: TestSmtpServer;
  let running: RunningServer;
  beforeAll(async () => {
    smtp = await startTestSmtpServer({
      certificate: await createLocalCertificate(),
      user: "mailer",
      pass: "a p@ss:word/with%specials",
    });
    const caFile = join(dataDir, "smtp-ca.pem");
    writeFileSync(caFile, smtp.ca);
    running = await startServer(
      loadConfig({
        PORT: "0",
        STORE: "memory",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        PAYMENT_RAILS: "mpp",
        FULFILMENT_INTERVAL_MS: "100",
        SIMULATED_PRINT_PACE_MS: "200,400,600",
        SMTP_URL: smtp.url,
        SMTP_CA_FILE: caFile,
        MAIL_FROM: "Mailpiece Receipts <receipts@mailpiece.test>",
      }),
    );
  });
  afterAll(async () => {
    await running?.close();
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("delivers a paid order's receipt once, with the letter as a PDF, and the order's steps show email_sent", async () => {
    const id = await payLetter(running.url);
    const receipt = await eventually(async () => {
      const inbox = await smtp.inbox();
      return inbox.find((m) => m.mail.subject?.includes(id) && /receipt/i.test(m.mail.subject));
    }, "the receipt");
    expect(receipt.envelopeTo).toEqual(["ada@example.com"]);
    expect(receipt.mail.from?.value).toEqual([
      { name: "Mailpiece Receipts", address: "receipts@mailpiece.test" },
    ]);
    expect(receipt.mail.text).toContain(id);
    expect(receipt.mail.html).toContain(id);
    const pdf = receipt.mail.attachments.find((a) => a.contentType === "application/pdf");
    expect(pdf?.filename).toBe(`${id}.pdf`);
    expect(pdf?.content.subarray(0, 5).toString()).toBe("%PDF-");
    await eventually(
      async () => ((await steps(running.url, id)).includes("email_sent") ? true : undefined),
      "email_sent",
    );
    // Status mails follow the letter; the receipt itself never comes twice.
    await eventually(async () => {
      const inbox = await smtp.inbox();
      return inbox.some((m) => m.mail.subject?.includes(id) && /delivered/i.test(m.mail.subject ?? ""))
        ? true
        : undefined;
    }, "the delivered mail");
    const receipts = (await smtp.inbox()).filter(
      (m) => m.mail.subject?.includes(id) && /receipt/i.test(m.mail.subject ?? ""),
    );
    expect(receipts).toHaveLength(1);
  });

  it("a mail server that refuses for now delays the receipt, never the order, and delivers it once when it accepts", async () => {
    smtp.mode = "refuse-temporarily";
    try {
      const id = await payLetter(running.url);
      // The order goes on while its receipt waits.
      await eventually(async () => {
        const status = (await (await fetch(`${running.url}/api/machine/mpp/orders/${id}`)).json()) as {
          status: string;
        };
        return ["submitted", "accepted", "in_transit", "delivered"].includes(status.status)
          ? true
          : undefined;
      }, "the order to reach the printer");
      expect(await steps(running.url, id)).not.toContain("email_sent");
      smtp.mode = "accept";
      await eventually(
        async () => ((await steps(running.url, id)).includes("email_sent") ? true : undefined),
        "email_sent",
      );
      const receipts = (await smtp.inbox()).filter(
        (m) => m.mail.subject?.includes(id) && /receipt/i.test(m.mail.subject ?? ""),
      );
      expect(receipts).toHaveLength(1);
    } finally {
      smtp.mode = "accept";
    }
  });
});

describe("the outbox: the embedded default without SMTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-outbox-"));
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: "0",
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        PAYMENT_RAILS: "mpp",
        FULFILMENT_INTERVAL_MS: "100",
        SIMULATED_PRINT_PACE_MS: "200,400,600",
      }),
    );
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("writes the receipt as an .eml file under DATA_DIR/outbox that a mail parser reads back", async () => {
    const id = await payLetter(running.url);
    const outbox = join(dataDir, "outbox");
    const mail = await eventually(async () => {
      for (const name of readdirSync(outbox).filter((n) => n.endsWith(".eml"))) {
        const parsed = await simpleParser(readFileSync(join(outbox, name)));
        if (parsed.subject?.includes(id) && /receipt/i.test(parsed.subject)) return parsed;
      }
      return undefined;
    }, "the receipt in the outbox");
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((v) => v.address) : []).toEqual([
      "ada@example.com",
    ]);
    expect(mail.text).toContain(id);
    expect(mail.attachments.map((a) => a.contentType)).toEqual(["application/pdf"]);
  });
});

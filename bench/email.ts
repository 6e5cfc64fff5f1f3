import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmailOutbox } from "../adapters/email-outbox/src/index.ts";
import { composeEmail, createSmtpEmailSender } from "../adapters/email-smtp/src/index.ts";
import type { EmailMessage } from "../adapters/ports/src/index.ts";
import { createMemoryStore } from "../adapters/store-unstorage/src/index.ts";
import { makePdf } from "../conformance/src/machine/fixtures.ts";
import { createLocalCertificate, startTestSmtpServer } from "../conformance/src/servers/smtp-server.ts";
import { type PaymentReceiptInput, paymentReceipt } from "../engines/messages/src/index.ts";
import { median, table } from "./lib.ts";

const MESSAGES = Number(process.env.BENCH_EMAILS ?? "200");
const ROUNDS = 3;

const RECEIPT: PaymentReceiptInput = {
  order_id: "ord_5f0c7a523b5e4c369f390a8f5c1d2e11",
  item: {
    kind: "letter",
    summary: [
      "Letter, 3 pages, black and white, double-sided",
      "Standard mail, certified, electronic return receipt",
      "To Grace Hopper, Washington, DC 20500, US",
      "From Ada Lovelace, New York, NY 10118, US",
    ],
  },
  line_items: [
    { label: "Letter", amount_cents: 150 },
    { label: "Black and white pages", amount_cents: 45 },
    { label: "Certified mail", amount_cents: 485 },
    { label: "Electronic return receipt", amount_cents: 262 },
    { label: "Postage", amount_cents: 78 },
  ],
  total_cents: 1020,
  currency: "usd",
  payment: {
    rail: "x402",
    reference: `0x${"ab".repeat(32)}`,
    payer: `0x${"cd".repeat(20)}`,
    paid_at: "2026-11-28T12:00:00Z",
  },
  status_url: "https://mail.example.com/api/machine/orders/ord_5f0c7a523b5e4c369f390a8f5c1d2e11",
};

/** Milliseconds per message of `send` over `MESSAGES` messages, each under a key of its own. */
async function msPerMessage(send: (key: string) => Promise<unknown>): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < MESSAGES; i++) await send(`bench:${crypto.randomUUID()}`);
  return (performance.now() - start) / MESSAGES;
}

/**
 * The cost of one receipt email, as ratios to composing the same message with nodemailer's MailComposer (what any
 * Node.js mailer spends): rendering it too, writing it to the outbox (the default without SMTP, with its key record),
 * and sending it over SMTP with STARTTLS and auth to a local server (with the sent-key bookkeeping in a store).
 */
export async function benchEmail(): Promise<string> {
  const pdf = await makePdf(3);
  const rendered = paymentReceipt(RECEIPT);
  const message = (key: string, body = rendered): EmailMessage => ({
    key,
    from: { name: "Mailpiece", address: "receipts@mail.example.com" },
    to: [{ name: "Ada Buyer", address: "ada@example.com" }],
    subject: body.subject,
    text: body.text,
    html: body.html,
    attachments: [{ filename: `${RECEIPT.order_id}.pdf`, contentType: "application/pdf", content: pdf }],
  });
  const compose = { messageId: "<bench@mail.example.com>", date: new Date() };
  const dir = mkdtempSync(join(tmpdir(), "mailpiece-bench-email-"));
  const smtp = await startTestSmtpServer({
    certificate: await createLocalCertificate(),
    user: "bench",
    pass: "bench-password",
  });
  const outbox = await createEmailOutbox({ dir: join(dir, "outbox") });
  const sender = createSmtpEmailSender({ url: smtp.url, store: createMemoryStore(), tls: { ca: smtp.ca } });
  try {
    const cases: [string, (key: string) => Promise<unknown>][] = [
      ["compose with MailComposer (baseline)", (key) => composeEmail(message(key), compose)],
      [
        "render the receipt, then compose",
        (key) => composeEmail(message(key, paymentReceipt(RECEIPT)), compose),
      ],
      [
        "render + outbox send (.eml file and key record)",
        (key) => outbox.send(message(key, paymentReceipt(RECEIPT))),
      ],
      [
        "render + SMTP send (STARTTLS, auth, pooled)",
        (key) => sender.send(message(key, paymentReceipt(RECEIPT))),
      ],
    ];
    // Warm-up, not counted: the JIT, the TLS session and the pool settle.
    for (const [, send] of cases) await send(`warm:${crypto.randomUUID()}`);
    const figures = cases.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [, send]] of cases.entries()) figures[i]!.push(await msPerMessage(send));
    }
    const baseline = median(figures[0]!);
    const rows: (string | number)[][] = [
      ["case", "ms per message (median)", "messages/s", "ratio to baseline"],
      ...cases.map(([name], i) => {
        const ms = median(figures[i]!);
        return [name, ms.toFixed(3), (1000 / ms).toFixed(0), (ms / baseline).toFixed(2)];
      }),
    ];
    return [
      `one receipt email (text, HTML, a 3-page PDF attached), ${MESSAGES} messages x ${ROUNDS} rounds per case`,
      table(rows),
      `SMTP messages received: ${smtp.raw.length} (each key sent once)`,
    ].join("\n");
  } finally {
    await sender.close();
    await outbox.close();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

import { createTestCheckout } from "@mailpiece/checkout-test";
import { flowerLetterRequest, letterOrder } from "@mailpiece/conformance";
import { createSimulatedFlorist } from "@mailpiece/florist-simulated";
import { canonicalJson } from "@mailpiece/idempotency";
import type { EmailMessage, EmailSender, SendResult } from "@mailpiece/ports";
import { EmailError } from "@mailpiece/ports";
import { createSimulatedPrinter } from "@mailpiece/print-simulated";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { BASE_SEPOLIA, createLocalFacilitator, createX402Rail } from "@mailpiece/rail-x402";
import { createMemoryBlobStore, createMemoryStore } from "@mailpiece/store-unstorage";
import { afterEach, describe, expect, it } from "vitest";
import { campaignBody } from "../campaign.fixture.ts";
import { createMailpieceCore, type MailpieceCore } from "../core.ts";
import type { CreateOrderInput, CreateOrderOutcome } from "../create-machine-order.ts";
import type { FlowerCreateOutcome } from "../flowers/index.ts";
import { readyDocument } from "../projects/projects.fixture.ts";
import { x402Pay } from "../x402-pay.fixture.ts";

const T0 = Date.now();
const PAY_TO = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";

/**
 * An EmailSender as the port describes it (once per key), that keeps what it sent and fails on request: each entry
 * of `failures` is thrown by one send, in order, before anything is sent.
 */
function recordingSender() {
  const sent: EmailMessage[] = [];
  const results = new Map<string, SendResult>();
  const failures: EmailError[] = [];
  const calls: string[] = [];
  const sender: EmailSender = {
    name: "recording",
    capabilities: { durable: false, delivers: false },
    async send(message) {
      calls.push(message.key);
      const failure = failures.shift();
      if (failure) throw failure;
      const first = results.get(message.key);
      if (first) return { ...first, duplicate: true };
      sent.push(message);
      const result = {
        key: message.key,
        message_id: `<${sent.length}@mailpiece.test>`,
        accepted: message.to.map((to) => to.address),
        sent_at: new Date(T0 + sent.length).toISOString(),
        duplicate: false,
      };
      results.set(message.key, result);
      return result;
    },
    async close() {},
  };
  return { sender, sent, failures, calls };
}

let open: MailpieceCore | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function setup() {
  let now = T0;
  const clock = { now: () => now };
  const store = createMemoryStore();
  const jobs = createStoreJobQueue({ store, clock });
  const rail = createX402Rail({
    network: BASE_SEPOLIA,
    payTo: PAY_TO,
    facilitator: createLocalFacilitator({ network: BASE_SEPOLIA }),
    clock,
  });
  const mail = recordingSender();
  const given: unknown[] = [];
  const core = createMailpieceCore({
    store,
    blobs: createMemoryBlobStore(),
    clock,
    jobs,
    rails: { x402: rail },
    checkoutPayments: createTestCheckout(),
    florist: createSimulatedFlorist({ store, clock }),
    printProviders: [
      createSimulatedPrinter({
        store,
        clock,
        pace: { acceptAfterMs: 1_000, inTransitAfterMs: 2_000, deliverAfterMs: 3_000 },
      }),
    ],
    email: {
      sender: mail.sender,
      from: { name: "Mailpiece", address: "receipts@mailpiece.test" },
      links: { order: (id) => `https://mailpiece.test/api/machine/orders/${id}` },
      onGivenUp: (error) => given.push(error),
    },
  });
  open = core;
  const pay = async (
    body: Record<string, unknown>,
    create: (input: CreateOrderInput) => Promise<CreateOrderOutcome | FlowerCreateOutcome> = core.createOrder,
  ) => {
    const raw = JSON.stringify(body);
    const payment = (credential?: string) => ({
      rail,
      resourceUrl: (id: string) => `https://mailpiece.test/api/machine/orders/${id}`,
      credential,
    });
    const unpaid = await create({ raw, body, clientKey: "203.0.113.9", payment: payment() });
    if (unpaid.kind !== "payment_required") throw new Error(`expected a 402, got ${unpaid.kind}`);
    const headers = await x402Pay(unpaid.challenge);
    const paid = await create({
      raw,
      body,
      clientKey: "203.0.113.9",
      payment: payment(headers.get("payment-signature") ?? undefined),
    });
    if (paid.kind !== "accepted") throw new Error(`expected the order paid, got ${paid.kind}`);
    return paid.order.order_id;
  };
  return {
    core,
    mail,
    given,
    pay,
    advance: (ms: number) => {
      now += ms;
    },
    steps: async (id: string) => (await core.getOrderStatus(id))?.steps.map((s) => s.step) ?? [],
  };
}

describe("email of machine orders", () => {
  it("sends a paid order's receipt once, with its PDF, and the order's steps show email_sent", async () => {
    const { core, mail, pay, steps } = setup();
    const id = await pay(letterOrder({ buyer_email: "ada@example.com" }));
    expect(await steps(id)).not.toContain("email_sent");
    await core.fulfil();
    await core.fulfil();
    const receipts = mail.sent.filter((m) => m.key === `receipt:order:${id}`);
    expect(receipts).toHaveLength(1);
    const [receipt] = receipts;
    expect(receipt!.to).toEqual([{ name: "Ada Buyer", address: "ada@example.com" }]);
    expect(receipt!.subject).toMatch(/receipt/i);
    expect(receipt!.subject).toContain(id);
    for (const body of [receipt!.text, receipt!.html]) {
      expect(body).toContain(id);
      expect(body).toMatch(/x402/i);
    }
    expect(receipt!.attachments?.map((a) => [a.filename, a.contentType])).toEqual([
      [`${id}.pdf`, "application/pdf"],
    ]);
    expect(Buffer.from(receipt!.attachments![0]!.content.subarray(0, 5)).toString()).toBe("%PDF-");
    expect(await steps(id)).toContain("email_sent");
  });

  it("keeps an order going while the mail server is down, and delivers the receipt once when it is back", async () => {
    const { core, mail, pay, steps, advance } = setup();
    mail.failures.push(
      new EmailError("unavailable", "connection refused"),
      new EmailError("unavailable", "451 try again later"),
    );
    const id = await pay(letterOrder());
    // A round reports the mail server's failure (for the logs) after doing all of its other work.
    const failures: unknown[] = [];
    const round = () => core.fulfil().catch((error: unknown) => failures.push(error));
    await round();
    expect(mail.sent).toHaveLength(0);
    expect(await steps(id)).not.toContain("email_sent");
    // The order goes on meanwhile: fulfilment is not held up by mail.
    expect((await core.getOrderStatus(id))?.status).not.toBe("queued");
    for (let i = 0; i < 6; i++) {
      advance(5_000);
      await round();
    }
    expect(mail.sent.filter((m) => m.key === `receipt:order:${id}`)).toHaveLength(1);
    expect(mail.calls.filter((key) => key === `receipt:order:${id}`)).toHaveLength(3);
    expect(failures.map((error) => (error as EmailError).code)).toEqual(["unavailable", "unavailable"]);
    expect(await steps(id)).toContain("email_sent");
  });

  it("mails the buyer when the letter is mailed and when it is delivered, each once", async () => {
    const { core, mail, pay, advance } = setup();
    const id = await pay(letterOrder());
    for (let round = 0; round < 8; round++) {
      await core.fulfil();
      advance(1_000);
    }
    expect((await core.getOrderStatus(id))?.status).toBe("delivered");
    await core.fulfil();
    const keys = mail.sent.map((m) => m.key).sort();
    expect(keys).toEqual([`receipt:order:${id}`, `status:${id}:delivered`, `status:${id}:in_transit`].sort());
    const delivered = mail.sent.find((m) => m.key === `status:${id}:delivered`)!;
    expect(delivered.subject).toMatch(/delivered/i);
    expect(delivered.text).toContain(`https://mailpiece.test/api/machine/orders/${id}`);
  });

  it("gives up a receipt the mail server refuses for good, without retrying it", async () => {
    const { core, mail, pay, given, advance } = setup();
    mail.failures.push(new EmailError("rejected", "550 no such user"));
    const id = await pay(letterOrder());
    await core.fulfil();
    advance(60_000);
    await core.fulfil();
    expect(mail.sent.some((m) => m.key === `receipt:order:${id}`)).toBe(false);
    expect(given).toEqual([expect.objectContaining({ code: "rejected" })]);
  });

  it("emails a delivered certified letter's signed return receipt to err_email, and marks it sent", async () => {
    const { core, mail, pay, advance } = setup();
    const id = await pay(
      letterOrder({
        certified: true,
        certified_return_receipt: true,
        return_receipt_format: "electronic",
        err_delivery: "email",
        err_email: "records@example.com",
      }),
    );
    for (let round = 0; round < 10; round++) {
      await core.fulfil();
      advance(60_000);
    }
    const mails = mail.sent.filter((m) => m.key === `return-receipt:${id}`);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual([{ address: "records@example.com" }]);
    expect(mails[0]!.attachments?.map((a) => a.filename)).toEqual([`return-receipt-${id}.pdf`]);
    expect(Buffer.from(mails[0]!.attachments![0]!.content.subarray(0, 5)).toString()).toBe("%PDF-");
    expect((await core.returnReceipts.fields(id))?.err_status).toBe("sent");
  });
});

describe("email of the other surfaces' orders", () => {
  it("sends the receipt of an order a person paid at hosted checkout to the buyer named there, paid by card", async () => {
    const { core, mail } = setup();
    const { buyer_name: _n, buyer_email: _e, ...body } = letterOrder();
    const draft = await core.createDraft({ body, raw: canonicalJson(body), clientKey: "198.51.100.7" });
    await core.completeCheckout({
      checkout_session_id: draft.checkout_session.id,
      buyer: { first_name: "Ada", last_name: "Lovelace", email: "ada.checkout@example.com" },
      payment_data: { token: "spt_test_ok", provider: "stripe" },
    });
    await core.fulfil();
    const receipt = mail.sent.find((m) => m.key === `receipt:order:${draft.order_id}`);
    expect(receipt?.to).toEqual([{ name: "Ada Lovelace", address: "ada.checkout@example.com" }]);
    expect(receipt?.text).toMatch(/card/i);
  });

  it("sends a paid flower letter's receipt with the florist's lines, once", async () => {
    const { core, mail, pay } = setup();
    const id = await pay(flowerLetterRequest(), (input) => core.flowers!.create(input));
    await core.fulfil();
    await core.fulfil();
    const receipts = mail.sent.filter((m) => m.key === `receipt:flower_letter:${id}`);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.to).toEqual([{ name: "Grace Hopper", address: "grace@example.com" }]);
    expect(receipts[0]!.subject).toMatch(/receipt/i);
    expect(receipts[0]!.text).toContain(id);
  });
});

describe("email of campaigns", () => {
  it("sends a paid campaign one receipt for all its pieces, and no mail for each piece", async () => {
    const { core, mail, pay, advance } = setup();
    const id = await pay(campaignBody(["Ann Example", "Bob Example"]));
    for (let round = 0; round < 8; round++) {
      await core.fulfil();
      advance(1_000);
    }
    expect(mail.sent.map((m) => m.key)).toEqual([`receipt:campaign:${id}`]);
    const [receipt] = mail.sent;
    expect(receipt!.subject).toMatch(/receipt/i);
    expect(receipt!.text).toContain(id);
    expect((await core.getOrderStatus(id))?.steps.map((s) => s.step)).toContain("email_sent");
  });
});

describe("email of Projects API orders", () => {
  it("sends the receipt of an order paid from the credits to the workspace's account email, marked as test mode", async () => {
    const { core, mail } = setup();
    const workspace = await core.workspaces.create("Acme", { email: "billing@acme.example" });
    expect(workspace.email).toBe("billing@acme.example");
    const principal = await core.workspaces.authenticate(workspace.test_api_key);
    const documentId = await readyDocument(core, principal);
    const quote = await core.projects.createQuote(principal, "letter", { document_id: documentId });
    const order = await core.projects.createOrder(
      principal,
      "letter",
      {
        quote_id: quote.quote_id,
        recipient: {
          name: "Grace Recipient",
          street1: "350 Fifth Avenue",
          city: "New York",
          province: "NY",
          zip: "10118",
        },
        sender: {
          name: "Ada Sender",
          street1: "1 Main Street",
          city: "New York",
          province: "NY",
          zip: "10118",
        },
      },
      "order-1",
    );
    await core.fulfil();
    await core.fulfil();
    const receipts = mail.sent.filter((m) => m.key === `receipt:order:${order.id}`);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.to).toEqual([{ name: "Acme", address: "billing@acme.example" }]);
    expect(receipts[0]!.subject).toMatch(/^\[TEST\] .*receipt/i);
    expect(receipts[0]!.text).toMatch(/credits/i);
  });

  it("refuses a workspace email that is not an address, naming the field", async () => {
    const { core } = setup();
    await expect(core.workspaces.create("Acme", { email: "not an address" })).rejects.toMatchObject({
      code: "validation_failed",
      issues: [expect.objectContaining({ path: "email" })],
    });
  });
});

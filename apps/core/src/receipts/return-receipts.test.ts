import { TEST_ADDRESS_PHRASES } from "@mailpiece/print-simulated";
import { describe, expect, it } from "vitest";
import { runQueue } from "../job-runner.ts";
import { refusal } from "../projects/projects.fixture.ts";
import { RETURN_RECEIPTS_QUEUE } from "./receipt-context.ts";
import { loadReceipt, receiptBlobKey } from "./receipt-record.ts";
import {
  bareSetup,
  deliveredLetter,
  electronicReceipt,
  receiptProvider,
  receiptsSetup,
  T0,
  tinyPdf,
  usAddress,
} from "./receipts.fixture.ts";
import { createReturnReceipts } from "./return-receipts.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const threeYearsAfter = (ms: number) => {
  const until = new Date(ms);
  until.setUTCFullYear(until.getUTCFullYear() + 3);
  return until.toISOString();
};

describe("electronic return receipts", () => {
  it("stores the receipt of a delivered certified letter once, and none before delivery", async () => {
    const setup = await receiptsSetup();
    const { receipts, principal, blobs, jobs } = setup;
    const id = await setup.order(electronicReceipt("manual"));
    let delivered = false;
    let roundsBefore = 0;
    for (let round = 0; round < 8 && !delivered; round++) {
      await setup.round();
      const order = await setup.stored(id);
      delivered = order.lifecycle?.status === "delivered";
      if (!delivered) {
        // Not before delivery: no job, no PDF, nothing to download.
        roundsBefore++;
        expect(await jobs.get(RETURN_RECEIPTS_QUEUE, `acquire:${id}`)).toBeUndefined();
        expect(await receipts.fields(id)).toEqual({
          err_status: "manual",
          err_delivered_at: null,
          err_retention_until: null,
          return_receipt_available: false,
          return_receipt_url: null,
        });
        expect(await receipts.pdf(principal, id)).toBeUndefined();
      }
      setup.advance(1_000);
    }
    expect(delivered).toBe(true);
    expect(roundsBefore).toBeGreaterThanOrEqual(3);
    const storedAt = setup.now() - 1_000;
    expect(blobs.puts.get(receiptBlobKey(id))).toBe(1);
    expect(await receipts.fields(id)).toEqual({
      err_status: "manual",
      err_delivered_at: new Date(storedAt).toISOString(),
      err_retention_until: threeYearsAfter(storedAt),
      return_receipt_available: true,
      return_receipt_url: `/api/v1/letters/${id}/return-receipt.pdf`,
    });
    const reference = (await setup.stored(id)).fulfilment!.reference!;
    const fromPrinter = await setup.printer.returnReceipt!(reference);
    expect(Buffer.from((await receipts.pdf(principal, id))!)).toEqual(Buffer.from(fromPrinter!.pdf));

    // Later rounds and notes change nothing: the receipt is kept once.
    for (let round = 0; round < 3; round++) {
      await setup.round();
      await receipts.noteDelivered(await setup.stored(id));
      setup.advance(HOUR);
    }
    await setup.runReceipts();
    expect(blobs.puts.get(receiptBlobKey(id))).toBe(1);
    expect((await receipts.fields(id))?.err_delivered_at).toBe(new Date(storedAt).toISOString());
    expect(await jobs.get(RETURN_RECEIPTS_QUEUE, `acquire:${id}`)).toBeUndefined();
  });

  it("keeps nothing for letters that asked for no electronic receipt", async () => {
    const setup = await receiptsSetup();
    const plain = await setup.order({ certified: true });
    const physical = await setup.order({
      certified: true,
      certified_return_receipt: true,
      return_receipt_format: "physical",
    });
    for (let round = 0; round < 6; round++) {
      await setup.round();
      setup.advance(1_000);
    }
    for (const id of [plain, physical]) {
      expect((await setup.stored(id)).lifecycle?.status).toBe("delivered");
      expect(await setup.jobs.get(RETURN_RECEIPTS_QUEUE, `acquire:${id}`)).toBeUndefined();
      expect(setup.blobs.puts.get(receiptBlobKey(id))).toBeUndefined();
      expect(await setup.receipts.fields(id)).toMatchObject({
        err_status: "manual",
        return_receipt_available: false,
        return_receipt_url: null,
      });
      expect(await setup.receipts.pdf(setup.principal, id)).toBeUndefined();
    }
  });

  it("moves err_status from pending to sent, then expired: the PDF deleted, the record kept", async () => {
    const setup = await receiptsSetup();
    const { receipts, principal } = setup;
    const id = await setup.order(electronicReceipt("email"));
    expect((await receipts.fields(id))?.err_status).toBe("pending");
    for (let round = 0; round < 6; round++) {
      await setup.round();
      setup.advance(1_000);
    }
    const stored = await receipts.fields(id);
    expect(stored).toMatchObject({
      err_status: "pending",
      err_delivered_at: null,
      return_receipt_available: true,
    });
    setup.advance(HOUR);
    await receipts.markEmailed(id);
    const sentAt = new Date(setup.now()).toISOString();
    expect(await receipts.fields(id)).toMatchObject({ err_status: "sent", err_delivered_at: sentAt });
    await receipts.markEmailed(id);
    expect((await receipts.fields(id))?.err_delivered_at).toBe(sentAt);
    expect((await refusal(receipts.markEmailFailed(id, "bounced"))).code).toBe("state_conflict");

    // A day before the end of its retention nothing goes; at its end the PDF is deleted.
    const until = Date.parse(stored!.err_retention_until!);
    setup.set(until - DAY);
    await setup.runReceipts();
    expect(await receipts.pdf(principal, id)).toBeInstanceOf(Uint8Array);
    setup.set(until);
    await setup.runReceipts();
    expect(await receipts.fields(id)).toEqual({
      err_status: "expired",
      err_delivered_at: sentAt,
      err_retention_until: stored!.err_retention_until,
      return_receipt_available: false,
      return_receipt_url: null,
    });
    expect(await setup.blobs.head(receiptBlobKey(id))).toBeUndefined();
    expect(await receipts.pdf(principal, id)).toBeUndefined();
    expect((await receipts.exportZip(principal)).count).toBe(0);
  });

  it("shows failed for a receipt whose email failed (still downloadable) and for a letter returned to sender", async () => {
    const setup = await receiptsSetup({ config: { retentionMs: 30 * DAY } });
    const { receipts, principal } = setup;
    const bounced = await setup.order(electronicReceipt("email"));
    const manual = await setup.order(electronicReceipt("manual"));
    const returned = await setup.order(
      electronicReceipt("manual"),
      usAddress("Grace Recipient", `1 ${TEST_ADDRESS_PHRASES.returnToSender} Way`),
    );
    for (let round = 0; round < 8; round++) {
      await setup.round();
      setup.advance(1_000);
    }
    await receipts.markEmailFailed(bounced, "mailbox full");
    expect(await receipts.fields(bounced)).toMatchObject({
      err_status: "failed",
      err_delivered_at: null,
      return_receipt_available: true,
    });
    const record = await loadReceipt(setup.store, bounced);
    expect((await receipts.fields(bounced))?.err_retention_until).toBe(
      new Date(record!.stored_at! + 30 * DAY).toISOString(),
    );
    expect(await receipts.pdf(principal, bounced)).toBeInstanceOf(Uint8Array);
    // A later attempt that succeeds moves it on.
    await receipts.markEmailed(bounced);
    expect((await receipts.fields(bounced))?.err_status).toBe("sent");

    expect((await setup.stored(returned)).lifecycle?.status).toBe("returned");
    expect(await receipts.fields(returned)).toMatchObject({
      err_status: "failed",
      return_receipt_available: false,
    });
    expect(await setup.jobs.get(RETURN_RECEIPTS_QUEUE, `acquire:${returned}`)).toBeUndefined();

    expect((await refusal(receipts.markEmailed(manual))).code).toBe("state_conflict");
    expect((await refusal(receipts.markEmailed(returned))).code).toBe("not_found");
    expect((await refusal(receipts.markEmailed("no-such-order"))).code).toBe("not_found");
    expect(await receipts.fields("no-such-order")).toBeUndefined();
    expect(await receipts.fields("../../etc")).toBeUndefined();
  });

  it("looks again further and further apart, then gives up: err_status failed", async () => {
    const { clock, store, blobs, jobs, advance } = bareSetup();
    const provider = receiptProvider();
    const receipts = createReturnReceipts({ store, blobs, jobs, clock, providers: [provider] });
    const principal = { workspace_id: "ws_1", mode: "test" as const };
    const order = deliveredLetter("order-1", principal, provider.name, "job-1");
    await receipts.noteDelivered(order);
    const run = () => runQueue(jobs, receipts.work, { owner: "test", leaseMs: 10_000 });
    const waits: number[] = [];
    for (let look = 0; look < 40; look++) {
      const job = await jobs.get(RETURN_RECEIPTS_QUEUE, "acquire:order-1");
      if (!job) break;
      advance(job.runAt - clock.now());
      const before = clock.now();
      await run();
      const after = await jobs.get(RETURN_RECEIPTS_QUEUE, "acquire:order-1");
      if (after) waits.push(after.runAt - before);
    }
    expect(provider.asked.length).toBeGreaterThan(5);
    expect(waits[0]).toBe(5 * 60_000);
    expect(Math.max(...waits)).toBe(6 * HOUR);
    for (let i = 1; i < waits.length - 1; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(clock.now()).toBe(T0 + 5 * DAY);
    expect(await receipts.fieldsOf(order)).toMatchObject({
      err_status: "failed",
      return_receipt_available: false,
    });
    // A receipt that shows up after the give-up is not taken any more.
    provider.receipts.set("job-1", {
      pdf: tinyPdf("late"),
      tracking_number: "9407job-1",
      signed_at: new Date(T0).toISOString(),
      signer_name: "Grace Recipient",
    });
    await receipts.noteDelivered(order);
    await run();
    expect(await receipts.pdf(principal, "order-1")).toBeUndefined();
  });

  it("takes the receipt as soon as the provider has it, and none of a provider without receipts", async () => {
    const { clock, store, blobs, jobs, advance } = bareSetup();
    const provider = receiptProvider();
    const { returnReceipt: _, ...plain } = receiptProvider("no-receipts");
    const receipts = createReturnReceipts({ store, blobs, jobs, clock, providers: [provider, plain] });
    const run = () => runQueue(jobs, receipts.work, { owner: "test", leaseMs: 10_000 });
    const principal = { workspace_id: "ws_1", mode: "test" as const };
    await receipts.noteDelivered(deliveredLetter("order-1", principal, provider.name, "job-1"));
    const unsupported = deliveredLetter("order-2", principal, plain.name, "job-2");
    await receipts.noteDelivered(unsupported);
    await run();
    expect((await receipts.fieldsOf(unsupported)).err_status).toBe("failed");
    advance(HOUR);
    provider.receipts.set("job-1", {
      pdf: tinyPdf("one"),
      tracking_number: "9407job-1",
      signed_at: "2026-03-02T12:30:00Z",
      signer_name: "Grace Recipient",
    });
    await run();
    expect(Buffer.from((await receipts.pdf(principal, "order-1"))!).toString()).toContain("receipt one");
    expect(blobs.puts.get(receiptBlobKey("order-1"))).toBe(1);
  });

  it("answers another workspace's or mode's receipt as not found, and a machine order's only by its fields", async () => {
    const { clock, store, blobs, jobs } = bareSetup();
    const provider = receiptProvider();
    const receipts = createReturnReceipts({ store, blobs, jobs, clock, providers: [provider] });
    const mine = { workspace_id: "ws_mine", mode: "test" as const };
    const project = deliveredLetter("order-1", mine, provider.name, "job-1");
    const machine = deliveredLetter("order-2", undefined, provider.name, "job-2");
    for (const [reference, label] of [
      ["job-1", "project"],
      ["job-2", "machine"],
    ] as const) {
      provider.receipts.set(reference, {
        pdf: tinyPdf(label),
        tracking_number: `9407${reference}`,
        signed_at: new Date(T0).toISOString(),
        signer_name: "Grace Recipient",
      });
    }
    await receipts.noteDelivered(project);
    await receipts.noteDelivered(machine);
    await runQueue(jobs, receipts.work, { owner: "test", leaseMs: 10_000 });
    expect(await receipts.pdf(mine, "order-1")).toBeInstanceOf(Uint8Array);
    for (const other of [
      { workspace_id: "ws_other", mode: "test" as const },
      { workspace_id: "ws_mine", mode: "live" as const },
    ]) {
      expect(await receipts.pdf(other, "order-1")).toBeUndefined();
      expect((await receipts.exportZip(other)).count).toBe(0);
    }
    expect(await receipts.pdf(mine, "order-2")).toBeUndefined();
    expect(await receipts.pdf(mine, "no:such:order")).toBeUndefined();
    expect(await receipts.fieldsOf(machine)).toMatchObject({
      err_status: "manual",
      return_receipt_available: true,
      return_receipt_url: null,
    });
    expect((await receipts.exportZip(mine)).count).toBe(1);
  });
});

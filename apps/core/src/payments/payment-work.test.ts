import { manualClock } from "@mailpiece/ports";
import { createStoreJobQueue } from "@mailpiece/queue-store";
import { createMemoryStore } from "@mailpiece/store-unstorage";
import { describe, expect, it } from "vitest";
import type { Confirmer } from "./confirm.ts";
import { PAYMENTS_QUEUE, paymentJobKey } from "./payment-record.ts";
import { notePaymentWork, PAYMENT_FIRST_LOOK_MS, paymentWork } from "./payment-work.ts";

const LEASE_MS = 15_000;

function setup(answer: Awaited<ReturnType<Confirmer>>) {
  const clock = manualClock(Date.parse("2026-06-01T12:00:00Z"));
  const jobs = createStoreJobQueue({ store: createMemoryStore({ clock }), clock });
  const asked: string[] = [];
  const confirm: Confirmer = async (id) => {
    asked.push(id);
    return answer;
  };
  const work = paymentWork(clock, LEASE_MS, { order: confirm });
  return { clock, jobs, work, asked };
}

describe("payment work", () => {
  it("is first due seconds after it is noted, not a settle lease later", async () => {
    const t = setup({ before: "settling", after: "paid" });
    const noted = t.clock.now();
    await notePaymentWork(t.jobs, "order", "o1", noted + PAYMENT_FIRST_LOOK_MS, noted);
    const job = await t.jobs.get(PAYMENTS_QUEUE, paymentJobKey("order", "o1"));
    expect(job?.runAt).toBe(noted + PAYMENT_FIRST_LOOK_MS);
    expect(PAYMENT_FIRST_LOOK_MS).toBeLessThanOrEqual(5_000);
    expect(job?.payload).toEqual({ kind: "order", id: "o1", noted_at: noted });
  });

  it("finishes a payment recorded paid at once", async () => {
    const t = setup({ before: "settling", after: "paid" });
    expect(await t.work.handle({ kind: "order", id: "o1", noted_at: t.clock.now() })).toBe("done");
    expect(t.asked).toEqual(["o1"]);
  });

  it("looks again at a record still unpaid within the settle lease of its note, and lets it go after", async () => {
    const t = setup({ before: "unpaid", after: "unpaid" });
    const noted = t.clock.now();
    t.clock.advance(PAYMENT_FIRST_LOOK_MS);
    // The request that noted it may be about to record its payment as settling.
    expect(await t.work.handle({ kind: "order", id: "o1", noted_at: noted })).toEqual({
      again: noted + LEASE_MS,
    });
    t.clock.advance(LEASE_MS);
    expect(await t.work.handle({ kind: "order", id: "o1", noted_at: noted })).toBe("done");
    // Work noted before the note's time was kept is let go as before.
    expect(await t.work.handle({ kind: "order", id: "o1" })).toBe("done");
  });

  it("looks at a payment still settling when its settle lease ends, then more rarely as it ages", async () => {
    const started = Date.parse("2026-06-01T12:00:00Z");
    const t = setup({ before: "settling", after: "settling", startedAt: started });
    t.clock.advance(PAYMENT_FIRST_LOOK_MS);
    expect(await t.work.handle({ kind: "order", id: "o1", noted_at: started })).toEqual({
      again: started + LEASE_MS,
    });
    t.clock.advance(10 * 60_000);
    const again = await t.work.handle({ kind: "order", id: "o1", noted_at: started });
    expect(again).toEqual({ again: t.clock.now() + 60_300 });
  });
});

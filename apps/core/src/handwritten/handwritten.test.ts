import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FULFILMENT_QUEUE, fulfilmentJobKey, HANDWRITTEN_FOLLOW_MS } from "../fulfilment.ts";
import { projectOrderView } from "../projects/order-view.ts";
import { refusal } from "../projects/projects.fixture.ts";
import { address, orderCrashStore, pdfText, sendsSetup } from "../projects/sends.fixture.ts";
import { createHandwritten } from "./index.ts";

const MESSAGE = "Dear Grace,\n\nThank you for the tea and the cake.\n\nWarmly, Ada";

async function setup(options: Parameters<typeof sendsSetup>[0] = {}) {
  const context = await sendsSetup(options);
  const send = (overrides: Record<string, unknown> = {}) => ({
    message: MESSAGE,
    recipient: address("Grace Recipient"),
    sender: address("Ada Sender"),
    metadata: { customer: "42" },
    ...overrides,
  });
  return { ...context, handwritten: createHandwritten(context.orders), send };
}

describe("handwritten sends", () => {
  it("sends a handwritten piece that ends in transit, without tracking, its credits captured", async () => {
    const { core, handwritten, principal, send, balance, fulfil, jobs, advance } = await setup();
    const body = send({ style: "neat" });
    const order = await handwritten.send(principal, body, "card-1");
    expect(order).toMatchObject({
      object: "handwritten",
      mailpiece_type: "handwritten",
      postcard_size: null,
      status: "queued",
      funds_status: "reserved",
      quote_id: null,
      document_id: null,
      template_id: null,
      page_count: 1,
      metadata: { customer: "42" },
      idempotent_replay: false,
    });
    // The price book's handwritten piece and its first-class stamp.
    expect(order.price_cents).toBe(325 + 78);
    expect(await handwritten.send(principal, body, "card-1")).toMatchObject({
      id: order.id,
      idempotent_replay: true,
    });
    expect(await balance()).toMatchObject({ available_cents: 10_000 - 403, reserved_cents: 403 });

    await fulfil(8);
    const done = await handwritten.get(principal, order.id);
    expect(done).toMatchObject({
      status: "in_transit",
      funds_status: "captured",
      tracking_number: null,
      tracking_url: null,
      tracking_status: null,
    });
    expect(done?.timeline.map((event) => event.status_after)).toEqual(
      expect.arrayContaining(["submitted", "accepted", "in_transit"]),
    );
    expect(await balance()).toMatchObject({ available_cents: 10_000 - 403, reserved_cents: 0 });
    // In transit it is looked at hourly, not every round, and let go after a month.
    const job = await core.jobs.get(FULFILMENT_QUEUE, fulfilmentJobKey(order.id));
    expect(job?.runAt).toBeGreaterThan(core.clock.now() + 30 * 60 * 1000);
    advance(HANDWRITTEN_FOLLOW_MS);
    await core.fulfil();
    expect(await core.jobs.get(FULFILMENT_QUEUE, fulfilmentJobKey(order.id))).toBeUndefined();
    expect((await core.workspaces.ledger(principal, {})).data.map((entry) => entry.type)).toEqual([
      "top_up",
      "reservation",
      "capture",
    ]);

    // The printer got one handwritten job: standard mail, no proof of mailing, the proof as its document.
    const proof = (await handwritten.document(principal, order.id))!;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      mailpiece_type: "handwritten",
      postcard_size: null,
      mail_class: "standard",
      certified: false,
      document: { sha256: createHash("sha256").update(proof).digest("hex"), page_count: 1 },
    });
    const text = pdfText(proof);
    expect(text).toContain("Grace Recipient");
    expect(text).toContain("Thank you for the tea and the cake.");

    // It is a handwritten piece, not a letter, to every read.
    expect(await core.projects.getOrder(principal, "letter", order.id)).toBeUndefined();
    expect(await core.projects.orderDocument(principal, "letter", order.id)).toBeUndefined();
    const other = await setup();
    expect(await other.handwritten.get(other.principal, order.id)).toBeUndefined();
  });

  it("refuses a message too long for the card at `message`, reserving nothing", async () => {
    const { handwritten, principal, send, balance } = await setup();
    const long = await refusal(handwritten.send(principal, send({ message: "x".repeat(801) }), "long"));
    expect(long.issues).toEqual([expect.objectContaining({ path: "message", code: "too_long" })]);
    // Within the character limit, but too many lines for one page.
    const lines = await refusal(handwritten.send(principal, send({ message: "a\n".repeat(400) }), "lines"));
    expect(lines.issues).toEqual([
      expect.objectContaining({ path: "message", code: "message_too_long_for_card" }),
    ]);
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
  });

  it("reports every problem of the body at its field", async () => {
    const { handwritten, principal, send } = await setup();
    const refused = await refusal(
      handwritten.send(
        principal,
        send({ message: " ", style: "gothic", sender: undefined, stamp: "forever", metadata: { a: 1 } }),
        "bad",
      ),
    );
    expect(refused.issues?.map((i) => [i.path, i.code])).toEqual(
      expect.arrayContaining([
        ["stamp", "unknown_field"],
        ["message", "too_short"],
        ["style", "invalid_enum"],
        ["metadata.a", "invalid_metadata"],
      ]),
    );
    expect(
      (await refusal(handwritten.send(principal, send({ sender: undefined }), "no-sender"))).issues,
    ).toEqual([expect.objectContaining({ path: "sender", code: "required" })]);
    // Mail is posted from the price book's origin only: a sender abroad cannot be its return address.
    const abroad = await refusal(
      handwritten.send(
        principal,
        send({
          sender: address("Ada", { city: "London", zip: "SW1A 1AA", country: "GB", province: undefined }),
        }),
        "abroad",
      ),
    );
    expect(abroad.issues?.map((i) => [i.path, i.code])).toEqual([
      ["sender.countryCode", "route_unavailable"],
    ]);
  });

  it("prepares a draft without spending, then sends it once", async () => {
    const { core, handwritten, principal, send, balance } = await setup();
    const prepared = await handwritten.prepareDraft(principal, send());
    expect(prepared).toMatchObject({ mailpiece_type: "handwritten", page_count: 1, price_cents: 403 });
    expect(await handwritten.draftType.price(principal, send())).toMatchObject({ price_cents: 403 });
    expect(await handwritten.draftType.validate(principal, send({ message: "" }))).toEqual([
      expect.objectContaining({ path: "message" }),
    ]);
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
    expect((await core.store.list("orders:")).records).toEqual([]);

    const order = await handwritten.sendPrepared(principal, prepared, "release");
    expect(await handwritten.sendPrepared(principal, prepared, "release")).toMatchObject({
      id: order.id,
      idempotent_replay: true,
    });
    expect(
      (await refusal(handwritten.sendPrepared(principal, { ...prepared, price_cents: 1 }, "stale"))).code,
    ).toBe("state_conflict");
    expect((await balance()).reserved_cents).toBe(403);
  });

  it("reads an order as the core reads its orders, when told how", async () => {
    const { orders, principal, send } = await setup();
    const handwritten = createHandwritten({
      ...orders,
      readOrder: async (_principal, order) => ({
        ...projectOrderView(order, false),
        webhook_events: [order.id],
      }),
    });
    const order = await handwritten.send(principal, send(), "read");
    expect((await handwritten.get(principal, order.id))?.webhook_events).toEqual([order.id]);
  });

  it("a retry after a crash before the order's record finishes the order on its one reservation", async () => {
    const { store, crashing } = orderCrashStore();
    const { handwritten, principal, send, balance, advance, fulfil } = await setup({ store });
    const body = send();
    crashing(true);
    await expect(handwritten.send(principal, body, "crash")).rejects.toThrow(/stopped/);
    crashing(false);
    expect((await balance()).reserved_cents).toBe(403);
    // The next day (a new proof would carry another date), before the reconciler ran, the retry finishes the order
    // with the proof and the price first made.
    advance(13 * 60 * 60 * 1000);
    const retried = await handwritten.send(principal, body, "crash");
    expect(retried).toMatchObject({ funds_status: "reserved", price_cents: 403 });
    const proof = pdfText((await handwritten.document(principal, retried.id))!);
    expect(proof).toContain("24 November 2026");
    expect(proof).not.toContain("25 November 2026");
    expect(await balance()).toMatchObject({ available_cents: 10_000 - 403, reserved_cents: 403 });
    await fulfil(2);
    expect(await balance()).toMatchObject({ available_cents: 10_000 - 403 });
  });
});

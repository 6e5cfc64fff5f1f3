import { describe, expect, it } from "vitest";
import { refusal } from "../projects/projects.fixture.ts";
import { address, coreWithWorkspace, HOUR } from "./drafts.fixture.ts";

const pathsOf = async (promise: Promise<unknown>) => {
  const error = await refusal(promise);
  expect(error.code).toBe("validation_failed");
  return error.issues.map(({ path, code }) => ({ path, code }));
};

/** Requests approval of a draft, and has a person approve it. */
async function approve(setup: Awaited<ReturnType<typeof coreWithWorkspace>>, id: string) {
  await setup.core.drafts.requestApproval(setup.restricted, id);
  return setup.core.drafts.decide(setup.workspace.id, id, "approve", { body: {}, via: "admin_api" });
}

describe("letter and postcard drafts", () => {
  it("save without spending, and check the body, the quote and the addresses", async () => {
    const setup = await coreWithWorkspace();
    const { core, restricted, test, letterBody } = setup;
    const before = await setup.balance("live");
    const body = await letterBody(restricted);
    const saved = await core.drafts.create(restricted, { type: "letter", ...body });
    expect(saved).toMatchObject({
      type: "letter",
      mode: "live",
      state: "draft",
      revision: { body: { type: "letter", ...body }, quote_id: body.quote_id },
    });
    expect(saved.revision.price_cents).toBeGreaterThan(0);
    expect(await setup.balance("live")).toEqual(before);
    expect(await setup.orders()).toEqual([]);

    // Another mode's quote is not this draft's; a letter quote is not a postcard's.
    expect(await pathsOf(core.drafts.create(test, { type: "letter", ...body }))).toEqual([
      { path: "quote_id", code: "quote_not_found" },
    ]);
    expect(await pathsOf(core.drafts.create(restricted, { type: "postcard", ...body }))).toEqual([
      { path: "quote_id", code: "quote_kind_mismatch" },
    ]);
    const abroad = { ...address("Jean"), country: "CA", zip: "H2X 1Y4", province: "QC", city: "Montreal" };
    expect(
      await pathsOf(
        core.drafts.create(restricted, { type: "letter", ...body, recipient: abroad, sender: undefined }),
      ),
    ).toEqual([
      { path: "recipient.countryCode", code: "destination_mismatch" },
      { path: "sender", code: "required" },
    ]);
    const overlong = await pathsOf(
      core.drafts.create(restricted, { type: "letter", ...body, recipient: address("x".repeat(300)) }),
    );
    expect(overlong).toContainEqual({ path: "recipient.name", code: "name_too_long" });
    setup.advance(25 * HOUR);
    expect(await pathsOf(core.drafts.create(restricted, { type: "letter", ...body }))).toEqual([
      { path: "quote_id", code: "quote_expired" },
    ]);
    expect((await core.drafts.list(restricted, {})).data).toHaveLength(1);
  });

  it("take a live key without submit_without_approval through approval: approval neither charges nor sends, release sends once", async () => {
    const setup = await coreWithWorkspace();
    const { core, restricted, letterBody } = setup;
    // A direct live send is refused for this key: it must go through a draft.
    expect(() => core.workspaces.requirePermission(restricted, "submit")).toThrow(/approval/);
    const saved = await core.drafts.create(restricted, { type: "letter", ...(await letterBody(restricted)) });
    const before = await setup.balance("live");
    await approve(setup, saved.id);
    expect(await setup.balance("live")).toEqual(before);
    expect(await setup.orders()).toEqual([]);

    const order = (await core.drafts.release(restricted, saved.id)) as unknown as Record<string, unknown>;
    expect(order).toMatchObject({
      object: "letter",
      mode: "live",
      status: "queued",
      funds_status: "reserved",
      price_cents: saved.revision.price_cents,
      metadata: { cost_center: "CC-77" },
      idempotent_replay: false,
    });
    const again = await core.drafts.release(restricted, saved.id);
    expect(again).toMatchObject({ id: order.id, idempotent_replay: true });
    // Another key of the workspace and mode gets the same order too.
    await expect(core.drafts.release(setup.live, saved.id)).resolves.toMatchObject({ id: order.id });
    expect(await setup.orders()).toHaveLength(1);
    const after = await setup.balance("live");
    expect(after.reserved_cents).toBe(saved.revision.price_cents);
    expect(after.available_cents).toBe(before.available_cents - saved.revision.price_cents);
    const reservations = (await core.workspaces.ledger(restricted, { limit: 100 })).data.filter(
      (entry) => entry.type === "reservation",
    );
    expect(reservations).toHaveLength(1);
    expect(await core.drafts.get(restricted, saved.id)).toMatchObject({
      state: "released",
      order_id: order.id,
    });
  });

  it("make one order and one reservation under concurrent releases", async () => {
    const setup = await coreWithWorkspace();
    const { core, live, letterBody } = setup;
    const saved = await core.drafts.create(live, { type: "letter", ...(await letterBody(live)) });
    const orders = await Promise.all(Array.from({ length: 6 }, () => core.drafts.release(live, saved.id)));
    expect(new Set(orders.map((o) => o.id)).size).toBe(1);
    expect(await setup.orders()).toHaveLength(1);
    expect((await setup.balance("live")).reserved_cents).toBe(saved.revision.price_cents);
  });

  it("make one order when two processes on one store release at once", async () => {
    const setup = await coreWithWorkspace();
    const { core, live, letterBody } = setup;
    const other = setup.newCore();
    const saved = await core.drafts.create(live, { type: "letter", ...(await letterBody(live)) });
    const orders = await Promise.all([
      ...Array.from({ length: 3 }, () => core.drafts.release(live, saved.id)),
      ...Array.from({ length: 3 }, () => other.drafts.release(live, saved.id)),
    ]);
    expect(new Set(orders.map((o) => o.id)).size).toBe(1);
    expect(orders.filter((o) => !o.idempotent_replay)).toHaveLength(1);
    expect(await setup.orders()).toHaveLength(1);
    expect((await setup.balance("live")).reserved_cents).toBe(saved.revision.price_cents);
  });

  it("refuse to release on an expired quote without spending; a refresh renews it at the same price and keeps the approval", async () => {
    const setup = await coreWithWorkspace();
    const { core, restricted, letterBody } = setup;
    const saved = await core.drafts.create(restricted, { type: "letter", ...(await letterBody(restricted)) });
    await approve(setup, saved.id);
    setup.advance(25 * HOUR);
    const before = await setup.balance("live");
    const refused = await refusal(core.drafts.release(restricted, saved.id));
    expect(refused.issues).toEqual([expect.objectContaining({ path: "quote_id", code: "quote_expired" })]);
    expect(await setup.balance("live")).toEqual(before);
    expect(await core.drafts.get(restricted, saved.id)).toMatchObject({ state: "approved", order_id: null });

    const refreshed = await core.drafts.refresh(restricted, saved.id);
    expect(refreshed).toMatchObject({
      state: "approved",
      current_revision: 2,
      revision: { reason: "refreshed", price_cents: saved.revision.price_cents },
      approval: { state: "approved", revision: 2 },
    });
    expect(refreshed.revision.quote_id).not.toBe(saved.revision.quote_id);
    expect(refreshed.revision.body).toEqual({
      ...saved.revision.body,
      quote_id: refreshed.revision.quote_id,
    });
    const order = await core.drafts.release(restricted, saved.id);
    expect(await core.drafts.get(restricted, saved.id)).toMatchObject({
      state: "released",
      order_id: order.id,
      released_revision: 2,
    });
  });

  it("refresh a quote with the same options: proof mail, color, a postcard's size", async () => {
    const setup = await coreWithWorkspace();
    const { core, live, letterBody } = setup;
    const options = {
      color: true,
      double_sided: false,
      certified: true,
      certified_return_receipt: true,
      return_receipt_format: "physical",
    };
    const saved = await core.drafts.create(live, { type: "letter", ...(await letterBody(live, options)) });
    const refreshed = await core.drafts.refresh(live, saved.id);
    expect(refreshed.revision.price_cents).toBe(saved.revision.price_cents);
    const quoteOf = async (id: string | null) => {
      const record = await setup.store.get<{ options: unknown; view: { line_items: unknown } }>(
        `projects_quotes:${id}`,
      );
      return { options: record?.value.options, lines: record?.value.view.line_items };
    };
    expect(await quoteOf(refreshed.revision.quote_id)).toEqual(await quoteOf(saved.revision.quote_id));

    const card = await setup.postcardDocument(live);
    const quote = await core.projects.createQuote(live, "postcard", {
      document_id: card,
      postcard_size: "6x9",
    });
    const postcard = await core.drafts.create(live, {
      type: "postcard",
      quote_id: quote.quote_id,
      recipient: address("Grace"),
      sender: address("Ada"),
    });
    const renewed = await core.drafts.refresh(live, postcard.id);
    expect(renewed.revision.price_cents).toBe(quote.price_cents);
    const fresh = await setup.store.get<{ postcard_size: string; document_id: string }>(
      `projects_quotes:${renewed.revision.quote_id}`,
    );
    expect(fresh?.value).toMatchObject({ postcard_size: "6x9", document_id: card });
    await expect(core.drafts.release(live, postcard.id)).resolves.toMatchObject({
      object: "postcard",
      postcard_size: "6x9",
    });
  });

  it("refuse a release the credits do not cover, reserving nothing and keeping the approval", async () => {
    const setup = await coreWithWorkspace({ liveCreditsCents: 100 });
    const { core, restricted, letterBody } = setup;
    const saved = await core.drafts.create(restricted, { type: "letter", ...(await letterBody(restricted)) });
    await approve(setup, saved.id);
    expect((await refusal(core.drafts.release(restricted, saved.id))).code).toBe("insufficient_credits");
    expect(await setup.orders()).toEqual([]);
    expect(await setup.balance("live")).toMatchObject({ available_cents: 100, reserved_cents: 0 });
    expect((await core.drafts.get(restricted, saved.id)).state).toBe("approved");
  });
});

import { createInlinePdfWork, PdfWorkError } from "@mailpiece/pdf-work";
import { describe, expect, it } from "vitest";
import { readyDocument, refusal } from "../projects/projects.fixture.ts";
import { address, pdfText, sendsSetup } from "../projects/sends.fixture.ts";
import { createTemplates } from "./index.ts";

/** A one-page black-and-white letter on the published constants: base fee 1.80 and 0.20 a page. */
const ONE_PAGE_CENTS = 180 + 20;

const THANKS = {
  name: "Thank-you note",
  format: "markdown",
  body: "Dear {{ first_name }},\n\nThank you for ordering **{{item}}**.\n\n{{closing}}",
  variables: [{ name: "first_name" }, { name: "item" }, { name: "closing", default: "Kind regards" }],
};

async function setup(options: Parameters<typeof sendsSetup>[0] = {}) {
  const context = await sendsSetup(options);
  const templates = createTemplates(context.orders);
  const template = await templates.create(context.principal, THANKS);
  const send = (overrides: Record<string, unknown> = {}) => ({
    variables: { first_name: "Grace", item: "*Tea* & cake" },
    recipient: address("Grace Recipient"),
    sender: address("Ada Sender"),
    metadata: { customer: "42" },
    ...overrides,
  });
  return { ...context, templates, template, send };
}

describe("template sends", () => {
  it("reserves once per Idempotency-Key, answers a replay with the same order and is delivered by the printer", async () => {
    const { core, templates, template, principal, send, balance, fulfil } = await setup();
    const body = send();
    const order = await templates.send(principal, template.id, body, "send-1");
    expect(order).toMatchObject({
      object: "letter",
      mailpiece_type: "letter",
      status: "queued",
      funds_status: "reserved",
      template_id: template.id,
      template_version: 1,
      quote_id: null,
      document_id: null,
      page_count: 1,
      metadata: { customer: "42" },
      idempotent_replay: false,
    });
    // Priced as a letter quote of one page with the same options is: 1.80 + 0.20 a page, with no floor.
    const quote = await core.projects.createQuote(principal, "letter", {
      document_id: await readyDocument(core, principal, 1),
    });
    expect(order.price_cents).toBe(quote.price_cents);
    expect(order.price_cents).toBe(ONE_PAGE_CENTS);
    expect(await balance()).toMatchObject({
      available_cents: 10_000 - ONE_PAGE_CENTS,
      reserved_cents: ONE_PAGE_CENTS,
    });

    const replay = await templates.send(principal, template.id, body, "send-1");
    expect(replay).toMatchObject({ id: order.id, idempotent_replay: true });
    expect((await balance()).reserved_cents).toBe(ONE_PAGE_CENTS);
    expect(
      (await refusal(templates.send(principal, template.id, send({ metadata: {} }), "send-1"))).code,
    ).toBe("request_id_conflict");
    expect((await refusal(templates.send(principal, template.id, body, undefined))).code).toBe(
      "idempotency_key_required",
    );

    // The letter reads as the merged template: values printed as written, markup of the template applied.
    const pdf = (await core.projects.orderDocument(principal, "letter", order.id))!;
    const text = pdfText(pdf);
    expect(text).toContain("Dear Grace,");
    expect(text).toContain("Thank you for ordering *Tea* & cake.");
    expect(text).toContain("Kind regards");
    expect(text).toContain("Grace Recipient");

    await fulfil(6);
    const done = await core.projects.getOrder(principal, "letter", order.id);
    expect(done).toMatchObject({ status: "delivered", funds_status: "captured", template_id: template.id });
    expect(await balance()).toMatchObject({ available_cents: 10_000 - ONE_PAGE_CENTS, reserved_cents: 0 });
    const ledger = await core.workspaces.ledger(principal, {});
    expect(ledger.data.map((entry) => entry.type)).toEqual(["top_up", "reservation", "capture"]);
    // A replay after delivery, and after the template is archived, still answers the order.
    await templates.archive(principal, template.id);
    expect(await templates.send(principal, template.id, body, "send-1")).toMatchObject({
      id: order.id,
      status: "delivered",
      idempotent_replay: true,
    });
  });

  it("refuses a missing variable at variables.<name>, reserving nothing and leaving the key free", async () => {
    const { core, templates, template, principal, send, balance } = await setup();
    const refused = await refusal(
      templates.send(principal, template.id, send({ variables: { item: "tea", nickname: "Z" } }), "key"),
    );
    expect(refused.code).toBe("validation_failed");
    expect(refused.issues?.map((i) => [i.path, i.code])).toEqual([
      ["variables.nickname", "variable_unknown"],
      ["variables.first_name", "variable_missing"],
    ]);
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
    expect((await core.workspaces.ledger(principal, {})).data.map((entry) => entry.type)).toEqual(["top_up"]);
    // The corrected request may use the same key.
    expect(await templates.send(principal, template.id, send(), "key")).toMatchObject({
      idempotent_replay: false,
    });
  });

  it("reports every problem of a send at once: addresses, options, route and variables", async () => {
    const { templates, template, principal, send } = await setup();
    const issues = async (overrides: Record<string, unknown>) =>
      (await refusal(templates.send(principal, template.id, send(overrides), "key"))).issues?.map((i) => [
        i.path,
        i.code,
      ]);
    expect(
      await issues({ variables: {}, sender: undefined, destination_country_code: "CA", colour: true }),
    ).toEqual(
      expect.arrayContaining([
        ["colour", "unknown_field"],
        ["recipient.countryCode", "destination_mismatch"],
        ["sender", "required"],
        ["variables.first_name", "variable_missing"],
        ["variables.item", "variable_missing"],
      ]),
    );
    expect(await issues({ sender: undefined, certified: true, destination_country_code: "DE" })).toEqual(
      expect.arrayContaining([
        ["certified", "proof_mail_not_available"],
        ["sender", "required"],
      ]),
    );
    expect(await issues({ mail_class: "priority", certified: true })).toEqual(
      expect.arrayContaining([["mail_class", "mail_class_certified_conflict"]]),
    );
  });

  it("prices the letter's options as a letter quote does", async () => {
    const { templates, template, principal, send } = await setup();
    const certified = await templates.send(
      principal,
      template.id,
      send({ certified: true, certified_return_receipt: true, color: true }),
      "certified",
    );
    // Base 180, one color page 40, certified mail 800, electronic return receipt 300.
    expect(certified.price_cents).toBe(1320);
    expect(certified).toMatchObject({ return_receipt_format: "electronic", err_delivery: "manual" });
    const abroad = await templates.send(
      principal,
      template.id,
      send({ recipient: address("Zoë", { city: "Toronto", province: "ON", zip: "M5V 2T6", country: "CA" }) }),
      "abroad",
    );
    // The destination defaults to the recipient's country: base 180, one page 20, postage to Canada 150.
    expect(abroad.price_cents).toBe(350);
  });

  it("refuses to send an archived template, an unknown one, or a version it never had", async () => {
    const { templates, template, principal, send, stranger, balance } = await setup();
    expect(
      (await refusal(templates.send(principal, template.id, send({ version: 2 }), "v2"))).issues,
    ).toEqual([expect.objectContaining({ path: "version", code: "version_not_found" })]);
    expect((await refusal(templates.send(await stranger(), template.id, send(), "other"))).code).toBe(
      "not_found",
    );
    await templates.archive(principal, template.id);
    expect((await refusal(templates.send(principal, template.id, send(), "archived"))).code).toBe(
      "state_conflict",
    );
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
  });

  it("sends the version asked for, and the current one by default", async () => {
    const { core, templates, template, principal, send } = await setup();
    await templates.update(principal, template.id, { body: "Hello {{first_name}}, version two." });
    const current = await templates.send(principal, template.id, send(), "current");
    const first = await templates.send(principal, template.id, send({ version: 1 }), "first");
    expect([current.template_version, first.template_version]).toEqual([2, 1]);
    const text = async (id: string) => pdfText((await core.projects.orderDocument(principal, "letter", id))!);
    expect(await text(current.id)).toContain("Hello Grace, version two.");
    expect(await text(first.id)).toContain("Thank you for ordering");
  });

  it("prepares a draft without spending, and sends the prepared version once its draft is released", async () => {
    const { core, templates, template, principal, send, balance } = await setup();
    const prepared = await templates.prepareDraft(principal, template.id, send());
    expect(prepared).toMatchObject({
      template_id: template.id,
      template_version: 1,
      page_count: 1,
      price_cents: ONE_PAGE_CENTS,
      body: { version: 1 },
    });
    expect(await balance()).toMatchObject({ available_cents: 10_000, reserved_cents: 0 });
    expect((await core.store.list("orders:")).records).toEqual([]);

    // The template changes after the draft was prepared: the release sends the version prepared.
    await templates.update(principal, template.id, { body: "Changed {{first_name}}" });
    const order = await templates.sendPrepared(principal, prepared, "release-1");
    expect(order).toMatchObject({ template_version: 1, price_cents: ONE_PAGE_CENTS });
    expect(await templates.sendPrepared(principal, prepared, "release-1")).toMatchObject({
      id: order.id,
      idempotent_replay: true,
    });
    const stale = await refusal(
      templates.sendPrepared(principal, { ...prepared, price_cents: 300 }, "release-2"),
    );
    expect(stale.code).toBe("state_conflict");
    expect((await balance()).reserved_cents).toBe(ONE_PAGE_CENTS);
  });

  it("serves drafts: problems as issues, the prepared price, and the send", async () => {
    const { templates, template, principal, send, balance } = await setup();
    const type = templates.draftType;
    expect(await type.validate(principal, { template_id: template.id, ...send() })).toEqual([]);
    expect(
      (await type.validate(principal, { template_id: template.id, ...send({ variables: {} }) })).map(
        (i) => i.path,
      ),
    ).toEqual(["variables.first_name", "variables.item"]);
    expect(await type.validate(principal, { template_id: "tmpl_unknown", ...send() })).toEqual([
      expect.objectContaining({ path: "template_id", code: "template_not_found" }),
    ]);
    expect(await type.price(principal, { template_id: template.id, ...send() })).toEqual({
      price_cents: ONE_PAGE_CENTS,
      currency: "usd",
      quote_id: null,
      quote_expires_at: null,
    });
    expect(await balance()).toMatchObject({ reserved_cents: 0 });
    const order = await type.send(principal, { template_id: template.id, ...send() }, "draft-release");
    expect(order.idempotent_replay).toBe(false);
    expect((await balance()).reserved_cents).toBe(ONE_PAGE_CENTS);
  });

  it("typesets on the document workers: a letter past their deadline is document_too_complex", async () => {
    const inline = createInlinePdfWork();
    const pdf = {
      ...inline,
      typesetLetter: async () => {
        throw new PdfWorkError("pdf_work_deadline", "The document work took longer than 20000 ms.");
      },
    };
    const { templates, template, principal, send, balance } = await setup({ pdf });
    const refused = await refusal(templates.send(principal, template.id, send(), "slow"));
    expect(refused.issues).toEqual([
      expect.objectContaining({ path: "variables", code: "document_too_complex" }),
    ]);
    expect((await balance()).reserved_cents).toBe(0);
  });
});

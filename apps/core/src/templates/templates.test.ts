import { describe, expect, it } from "vitest";
import { refusal } from "../projects/projects.fixture.ts";
import { sendsSetup } from "../projects/sends.fixture.ts";
import { createTemplates } from "./index.ts";

const THANKS = {
  name: "Thank-you note",
  format: "markdown",
  body: "Dear {{ first_name }},\n\nThank you for ordering **{{item}}**.\n\n{{closing}}",
  variables: [{ name: "first_name" }, { name: "item" }, { name: "closing", default: "Kind regards" }],
};

async function setup() {
  const context = await sendsSetup();
  return { ...context, templates: createTemplates(context.orders) };
}

describe("templates", () => {
  it("creates a template as version 1, and each update that changes something as the next version", async () => {
    const { templates, principal, advance } = await setup();
    const created = await templates.create(principal, THANKS);
    expect(created).toMatchObject({
      object: "template",
      name: "Thank-you note",
      format: "markdown",
      version: 1,
      status: "active",
      variables: [
        { name: "first_name", required: true },
        { name: "item", required: true },
        { name: "closing", required: false, default: "Kind regards" },
      ],
    });
    expect(created.id).toMatch(/^tmpl_[0-9a-f]{44}$/);
    expect(created.versions).toEqual([{ version: 1, created_at: created.created_at }]);

    advance(60_000);
    const patched = await templates.update(principal, created.id, { body: "Hello {{first_name}}!" });
    expect(patched).toMatchObject({ version: 2, body: "Hello {{first_name}}!", name: "Thank-you note" });
    expect(patched.versions.map((v) => v.version)).toEqual([1, 2]);
    expect(patched.updated_at).not.toBe(created.updated_at);

    // A patch that changes nothing makes no version and leaves the template as it was.
    advance(60_000);
    const same = await templates.update(principal, created.id, { body: "Hello {{first_name}}!" });
    expect(same).toEqual(patched);

    // A patch with problems changes nothing either.
    const refused = await refusal(templates.update(principal, created.id, { body: "Hi {{nickname}}" }));
    expect(refused.code).toBe("validation_failed");
    expect(refused.issues?.map((i) => [i.path, i.code])).toEqual([["body", "variable_undeclared"]]);
    expect(await templates.get(principal, created.id)).toEqual(patched);
  });

  it("refuses a bad template with every issue at its field, storing nothing", async () => {
    const { templates, principal } = await setup();
    const refused = await refusal(
      templates.create(principal, { name: " ", body: "Hi {{who}}", variables: [], colour: "red" }),
    );
    expect(refused.code).toBe("validation_failed");
    expect(refused.issues?.map((i) => [i.path, i.code])).toEqual(
      expect.arrayContaining([
        ["name", "too_short"],
        ["body", "variable_undeclared"],
        ["colour", "unknown_field"],
      ]),
    );
    expect((await templates.list(principal, {})).data).toEqual([]);
  });

  it("archives a template: still readable, never updated again, archiving twice changes nothing", async () => {
    const { templates, principal, advance } = await setup();
    const created = await templates.create(principal, THANKS);
    advance(1_000);
    const archived = await templates.archive(principal, created.id);
    expect(archived).toMatchObject({ status: "archived", version: 1 });
    advance(1_000);
    expect(await templates.archive(principal, created.id)).toEqual(archived);
    expect(await templates.get(principal, created.id)).toEqual(archived);
    const refused = await refusal(templates.update(principal, created.id, { name: "New name" }));
    expect(refused.code).toBe("state_conflict");
  });

  it("lists a workspace's templates oldest first, a page at a time, and no one else's", async () => {
    const { templates, principal, advance, stranger } = await setup();
    const made = [];
    for (const name of ["First", "Second", "Third"]) {
      made.push(await templates.create(principal, { ...THANKS, name }));
      advance(1_000);
    }
    const other = await stranger();
    await templates.create(other, { ...THANKS, name: "Elsewhere" });

    const first = await templates.list(principal, { limit: 2 });
    expect(first.data.map((t) => t.name)).toEqual(["First", "Second"]);
    expect(first).toMatchObject({ object: "list", has_more: true });
    const rest = await templates.list(principal, { limit: 2, cursor: first.next_cursor! });
    expect(rest.data.map((t) => t.name)).toEqual(["Third"]);
    expect((await templates.list(principal, {})).data.map((t) => t.id)).toEqual(made.map((t) => t.id));

    expect((await refusal(templates.list(principal, { limit: 0 }))).issues?.[0]).toMatchObject({
      path: "limit",
      code: "invalid_limit",
    });
    expect((await refusal(templates.get(other, made[0]!.id))).code).toBe("not_found");
    expect((await refusal(templates.update(other, made[0]!.id, { name: "Mine" }))).code).toBe("not_found");
    expect((await refusal(templates.archive(other, made[0]!.id))).code).toBe("not_found");
    expect((await refusal(templates.get(principal, "tmpl_nope"))).code).toBe("not_found");
  });

  it("makes one version per concurrent update, none lost", async () => {
    const { templates, principal } = await setup();
    const created = await templates.create(principal, THANKS);
    await Promise.all(
      ["A", "B", "C", "D"].map((name) => templates.update(principal, created.id, { name: `Note ${name}` })),
    );
    const after = await templates.get(principal, created.id);
    expect(after.version).toBe(5);
    expect(after.versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5]);
  });
});

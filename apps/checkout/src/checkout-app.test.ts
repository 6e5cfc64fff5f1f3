import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCheckoutServer } from "./test-server.fixture.ts";

let server: Awaited<ReturnType<typeof startCheckoutServer>>;

beforeAll(async () => {
  server = await startCheckoutServer({ checkoutTtlMs: 60 * 60 * 1000 });
}, 60_000);

afterAll(async () => {
  await server?.close();
});

const pay = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.base, ...headers },
    body: new URLSearchParams(fields).toString(),
  });

const ADA = { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };

describe("the hosted checkout page", () => {
  it("shows what will be mailed, both addresses, the price with its line items and the pay form, with no script", async () => {
    const draft = await server.draft();
    const response = await fetch(draft.url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("referrer-policy")).toBe("same-origin");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/i);
    for (const line of [...draft.sender.lines, ...draft.recipient.lines]) {
      expect(html).toContain(line.replaceAll("&", "&amp;"));
    }
    for (const item of draft.line_items) expect(html).toContain(item.description);
    expect(html).toContain(`Pay $${draft.price_usd}`);
    expect(html).toMatch(/name="first_name"[\s\S]*name="email"[\s\S]*name="token"/);
    expect(html).toContain('data-status="open"');
    // The preview link opens the exact PDF that prints.
    const preview = /<a href="([^"]+)"[^>]*>Open the PDF/.exec(html)?.[1]?.replaceAll("&amp;", "&");
    expect(preview).toBeDefined();
    const pdf = await fetch(preview!);
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
  });

  it("answers the form's problems in place, with status 422, and charges nothing", async () => {
    const draft = await server.draft({ letter: "A letter with a form problem." });
    const before = server.paidCharges().length;
    const response = await pay(draft.url, { first_name: "", email: "nope", token: "tok_visa" });
    expect(response.status).toBe(422);
    const html = await response.text();
    expect(html).toMatch(/id="f-first_name"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/id="f-email"[^>]*aria-invalid="true"/);
    expect(html).toMatch(/id="f-token"[^>]*aria-invalid="true"/);
    expect(html).toContain('value="nope"');
    expect(html).not.toContain("tok_visa");
    expect(server.paidCharges().length).toBe(before);
  });

  it("refuses a form posted from another origin", async () => {
    const draft = await server.draft({ letter: "A letter posted across sites." });
    const response = await pay(
      draft.url,
      { ...ADA, token: "spt_test_ok" },
      { origin: "https://elsewhere.example" },
    );
    expect(response.status).toBe(403);
    expect((await server.core.getCheckout(draft.checkout_session.id))?.status).toBe("open");
  });

  it("shows a declined card on the still open page, then pays once and shows the paid state", async () => {
    const draft = await server.draft({ letter: "Declined first, then paid." });
    const declined = await pay(draft.url, { ...ADA, token: "spt_test_declined" });
    expect(declined.status).toBe(303);
    expect(declined.headers.get("location")).toBe(draft.url);
    const open = await (await fetch(draft.url)).text();
    expect(open).toContain('data-code="payment_declined"');
    expect(open).toContain('data-status="open"');

    const paid = await pay(draft.url, { ...ADA, token: "spt_test_ok" });
    expect(paid.status).toBe(303);
    const html = await (await fetch(draft.url)).text();
    expect(html).toContain('data-status="completed"');
    expect(html).toContain(draft.order_id);
    expect(html).not.toContain('name="token"');
    // Sending the form again (a double click, a resubmitted post) charges nothing more.
    await pay(draft.url, { ...ADA, token: "spt_test_ok" });
    const forThisOrder = server.paidCharges().filter((c) => c.metadata?.order === draft.order_id);
    expect(forThisOrder).toHaveLength(1);
    expect((await server.core.getOrderStatus(draft.order_id))?.is_paid).toBe(true);
  });

  it("shows canceled and expired sessions honestly, without a form, and 404 for an unknown one", async () => {
    const canceled = await server.draft({ letter: "A letter whose checkout is canceled." });
    await server.core.cancelCheckout(canceled.checkout_session.id);
    const canceledHtml = await (await fetch(canceled.url)).text();
    expect(canceledHtml).toContain('data-status="canceled"');
    expect(canceledHtml).not.toContain('name="token"');
    const refused = await pay(canceled.url, { ...ADA, token: "spt_test_ok" });
    expect(refused.status).toBe(409);

    const expiring = await server.draft({ letter: "A letter whose checkout expires." });
    server.advance(2 * 60 * 60 * 1000);
    const expiredHtml = await (await fetch(expiring.url)).text();
    expect(expiredHtml).toContain('data-status="expired"');
    expect(expiredHtml).not.toContain('name="token"');

    const unknown = await fetch(`${server.base}/checkout/cs_${"0".repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("Checkout not found");
  });
});

describe("the payment-method setup page", () => {
  it("refuses another origin and bad tokens in place, saves a test card once, and shows it after a redirect", async () => {
    const workspace = await server.core.workspaces.create("Acme");
    const principal = await server.core.workspaces.authenticate(workspace.test_api_key);
    const session = await server.core.projects.createSetup(principal, {});
    const url = `${server.base}${session.url_path}`;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const html = await page.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('name="token"');
    expect(html).toContain("Nothing is charged now");

    const foreign = await pay(url, { token: "spt_test_ok" }, { origin: "https://elsewhere.example" });
    expect(foreign.status).toBe(403);
    const bad = await pay(url, { token: "tok_visa" });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("shared payment token");
    expect((await server.core.projects.listPaymentMethods(principal)).data).toHaveLength(0);

    const saved = await pay(url, { token: "spt_test_ok" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(url);
    const again = await pay(url, { token: "spt_test_ok" });
    expect(again.status).toBe(303);
    const done = await (await fetch(url)).text();
    expect(done).toContain('data-status="completed"');
    expect(done).toContain("Visa ending in 4242");
    expect(done).not.toContain('name="token"');
    expect((await server.core.projects.listPaymentMethods(principal)).data).toHaveLength(1);
    expect((await fetch(`${server.base}/checkout/setup/ps_00000000000000000000000000000000`)).status).toBe(
      404,
    );
  });
});

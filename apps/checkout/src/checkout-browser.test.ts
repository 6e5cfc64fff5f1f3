import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { startCheckoutServer } from "./test-server.fixture.ts";

/** Debian's Chromium (scripts/system-deps.sh installs it); CHROMIUM_PATH names another. */
const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
const SCREENSHOTS = join(import.meta.dirname, "..", "test-output");

let server: Awaited<ReturnType<typeof startCheckoutServer>>;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) throw new Error("Chromium is missing: run scripts/system-deps.sh, or set CHROMIUM_PATH.");
  mkdirSync(SCREENSHOTS, { recursive: true });
  server = await startCheckoutServer();
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox; the page is our own, on 127.0.0.1.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"],
    protocolTimeout: 120_000,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const DESKTOP = { width: 1280, height: 900 };

/** A full-page screenshot, saved under test-output/ and attached to the test's report. */
async function screenshot(page: Page, name: string, context: TestContext): Promise<void> {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await context.annotate(`screenshot: ${name}`, { path, contentType: "image/png" });
}

async function fillAndPay(page: Page, token: string): Promise<void> {
  await page.type("#f-first_name", "Ada");
  await page.type("#f-last_name", "Lovelace");
  await page.type("#f-email", "ada@example.com");
  await page.type("#f-token", token);
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#pay")]);
  if ((await page.$("#status")) === null)
    throw new Error(`after paying: ${page.url()} ${(await page.content()).slice(0, 600)}`);
}

const statusOf = (page: Page) => page.$eval("#status", (el) => el.getAttribute("data-status"));

describe("the checkout page in headless Chromium", { timeout: 120_000 }, () => {
  it("on a phone: shows the draft without sideways scrolling, pays with the test token, shows paid", async (context) => {
    const draft = await server.draft();
    const page = await browser.newPage();
    await page.setViewport(PHONE);
    const blocked: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(server.base) && !request.url().startsWith("data:"))
        blocked.push(request.url());
    });
    await page.goto(draft.url, { waitUntil: "load" });
    expect(await statusOf(page)).toBe("open");
    expect(await page.$eval("#total", (el) => el.textContent)).toBe(`$${draft.price_usd}`);
    // Evaluated in the page: how far the content reaches past the viewport's width.
    const overflow = Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"));
    expect(overflow).toBeLessThanOrEqual(0);
    const recipient = await page.$$eval("address", (nodes) =>
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered lines are what is checked
      nodes.map((n) => (n as unknown as { innerText: string }).innerText),
    );
    expect(recipient.join("\n")).toContain("Grace Recipient");
    await screenshot(page, "checkout-phone-open", context);

    await fillAndPay(page, "spt_test_ok");
    expect(await statusOf(page)).toBe("completed");
    expect(await page.$("#f-token")).toBeNull();
    await screenshot(page, "checkout-phone-paid", context);
    expect(blocked).toEqual([]);
    expect((await server.core.getOrderStatus(draft.order_id))?.is_paid).toBe(true);
    await page.close();
  });

  it("on a desktop: a declined card leaves the page open with the reason, then the test token pays", async (context) => {
    const draft = await server.draft({ letter: "A letter paid on a desktop after a declined card." });
    const page = await browser.newPage();
    await page.setViewport(DESKTOP);
    await page.goto(draft.url, { waitUntil: "load" });
    await screenshot(page, "checkout-desktop-open", context);
    await fillAndPay(page, "spt_test_declined");
    expect(await statusOf(page)).toBe("open");
    expect(await page.$eval("#notice", (el) => el.getAttribute("data-code"))).toBe("payment_declined");
    await screenshot(page, "checkout-desktop-declined", context);
    // The form keeps the buyer's details (from the session) but never the token.
    expect(await page.$eval("#f-email", (el) => (el as unknown as { value: string }).value)).toBe(
      "ada@example.com",
    );
    expect(await page.$eval("#f-token", (el) => (el as unknown as { value: string }).value)).toBe("");
    await page.$eval("#f-first_name", (el) => {
      (el as unknown as { value: string }).value = "";
    });
    await page.$eval("#f-last_name", (el) => {
      (el as unknown as { value: string }).value = "";
    });
    await page.$eval("#f-email", (el) => {
      (el as unknown as { value: string }).value = "";
    });
    await fillAndPay(page, "spt_test_ok");
    expect(await statusOf(page)).toBe("completed");
    await screenshot(page, "checkout-desktop-paid", context);
    await page.close();
  });

  it("shows an expired session as expired, with no form", async (context) => {
    const draft = await server.draft({ letter: "A letter whose checkout expires before it is paid." });
    server.advance(25 * 60 * 60 * 1000);
    const page = await browser.newPage();
    await page.setViewport(PHONE);
    await page.goto(draft.url, { waitUntil: "load" });
    expect(await statusOf(page)).toBe("expired");
    expect(await page.$("form")).toBeNull();
    await screenshot(page, "checkout-phone-expired", context);
    await page.close();
  });

  it("a workspace tops up its test credits on the top-up page: a declined card, then a paid one", async (context) => {
    const workspace = await server.core.workspaces.create("Acme");
    const principal = await server.core.workspaces.authenticate(workspace.test_api_key);
    const before = (await server.core.workspaces.balance(principal.workspace_id, "test")).available_cents;
    const session = await server.core.projects.createTopUp(principal, { amount_cents: 2_000 });
    const page = await browser.newPage();
    await page.setViewport(PHONE);
    await page.goto(`${server.base}${session.url_path}`, { waitUntil: "load" });
    expect(await statusOf(page)).toBe("open");
    expect(await page.$eval("#total", (el) => el.textContent)).toBe("$20.00");
    const overflow = Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"));
    expect(overflow).toBeLessThanOrEqual(0);
    await page.type("#f-token", "spt_test_declined");
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#pay")]);
    expect(await statusOf(page)).toBe("open");
    expect(await page.$eval("#notice", (el) => el.getAttribute("data-code"))).toBe("payment_declined");
    await screenshot(page, "top-up-phone-declined", context);
    await page.type("#f-token", "spt_test_ok");
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#pay")]);
    expect(await statusOf(page)).toBe("completed");
    expect(await page.$("form")).toBeNull();
    await screenshot(page, "top-up-phone-paid", context);
    expect((await server.core.workspaces.balance(principal.workspace_id, "test")).available_cents).toBe(
      before + 2_000,
    );
    await page.close();
  });
  it("a workspace saves a card for live credits on the setup page: the first live key is shown once", async (context) => {
    const workspace = await server.core.workspaces.create("Acme Live");
    const principal = await server.core.workspaces.authenticate(workspace.test_api_key);
    const session = await server.core.projects.createSetup(principal, { mode: "live" });
    const page = await browser.newPage();
    await page.setViewport(PHONE);
    await page.goto(`${server.base}${session.url_path}`, { waitUntil: "load" });
    expect(await statusOf(page)).toBe("open");
    const overflow = Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"));
    expect(overflow).toBeLessThanOrEqual(0);
    await page.type("#f-token", "spt_test_declined");
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#save")]);
    expect(await statusOf(page)).toBe("open");
    expect(await page.$eval("#notice", (el) => el.getAttribute("data-code"))).toBe("payment_declined");
    expect((await server.core.workspaces.get(principal.workspace_id))?.live_enabled).toBe(false);
    await page.type("#f-token", "spt_test_ok");
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#save")]);
    expect(await statusOf(page)).toBe("completed");
    expect(await page.$eval("#method", (el) => el.textContent)).toContain("Visa ending in 4242");
    const key = await page.$eval("#live-api-key", (el) => el.textContent ?? "");
    expect(key).toMatch(/^svc_live_/);
    await screenshot(page, "setup-phone-live-key", context);
    // The key works, and the page never shows it again.
    expect((await server.core.workspaces.authenticate(key)).mode).toBe("live");
    await page.reload({ waitUntil: "load" });
    expect(await statusOf(page)).toBe("completed");
    expect(await page.$("#live-api-key")).toBeNull();
    expect(await page.content()).not.toContain(key);
    await page.close();
  });
});

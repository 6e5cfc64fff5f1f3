import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emailMessageFixture } from "@mailpiece/conformance";
import { createEmailOutbox } from "@mailpiece/email-outbox";
import type { Browser, Page } from "puppeteer-core";
import puppeteer from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { type AdminServer, newAdminToken, pendingDraft, startAdminServer } from "./test-server.fixture.ts";

/** Debian's Chromium (scripts/system-deps.sh installs it); CHROMIUM_PATH names another. */
const CHROMIUM =
  process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
const SCREENSHOTS = join(import.meta.dirname, "..", "test-output");

let server: AdminServer;
let browser: Browser;
let token: string;

beforeAll(async () => {
  if (!CHROMIUM) throw new Error("Chromium is missing: run scripts/system-deps.sh, or set CHROMIUM_PATH.");
  mkdirSync(SCREENSHOTS, { recursive: true });
  token = newAdminToken();
  server = await startAdminServer({ adminToken: token });
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Root in a container has no user namespaces for Chromium's sandbox; the page is our own, on 127.0.0.1.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"],
    protocolTimeout: 60_000,
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server) {
    for (const response of server.responses) expect(response).not.toContain(token);
    expect(server.errors).toEqual([]);
    await server.close();
  }
});

const DESKTOP = { width: 1280, height: 900 };

/** A full-page screenshot, saved under test-output/ and attached to the test's report. */
async function screenshot(page: Page, name: string, context: TestContext): Promise<void> {
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await context.annotate(`screenshot: ${name}`, { path, contentType: "image/png" });
}

/** Clicks what submits a form and waits for the page it leads to. */
async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
}

const textOf = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? "");
const heading = (page: Page) => textOf(page, "h1");

describe("the dashboard in headless Chromium", { timeout: 60_000 }, () => {
  it("signs in, creates a workspace and shows its key once, opens it, signs out", async (context) => {
    const page = await browser.newPage();
    await page.setViewport(DESKTOP);
    const problems: string[] = [];
    page.on("console", (message) => {
      // The refused sign-in answers 401 on purpose; anything else (a CSP violation above all) is a problem.
      if (message.type() === "error" && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(String(error)));
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(server.base)) elsewhere.push(request.url());
    });

    await page.goto(`${server.base}/dashboard`, { waitUntil: "load" });
    expect(await heading(page)).toBe("Sign in");
    await screenshot(page, "admin-sign-in", context);

    // A wrong token is refused, with the reason on the page.
    await page.type("#token", `${token.slice(0, -2)}!!`);
    await submit(page, "#sign-in");
    expect(await heading(page)).toBe("Sign in");
    expect(await textOf(page, "#notice")).toContain("not this deployment's admin token");
    await screenshot(page, "admin-sign-in-refused", context);

    // The right one opens the workspace list.
    await page.type("#token", token);
    await submit(page, "#sign-in");
    expect(await heading(page)).toBe("Workspaces");
    const cookies = await browser.cookies();
    const session = cookies.find((cookie) => cookie.name === "mp_admin");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });

    // Create a workspace: its key is shown this once.
    await page.type("#name", "Acme <Mailroom> & Co");
    await submit(page, "#create");
    const key = await textOf(page, "#new-key");
    expect(key).toMatch(/^svc_test_[A-Za-z0-9_-]{32}$/);
    await expect(server.core.workspaces.authenticate(key)).resolves.toMatchObject({ mode: "test" });
    expect(await textOf(page, "#created")).toContain("Acme <Mailroom> & Co");
    await screenshot(page, "admin-workspace-created", context);

    // Back on the list the key is gone; the row shows the name, as typed, and the test credits.
    await page.goto(`${server.base}/dashboard`, { waitUntil: "load" });
    expect(await page.$("#new-key")).toBeNull();
    expect(await page.content()).not.toContain(key);
    const row = await textOf(page, "#workspaces tbody tr");
    expect(row).toContain("Acme <Mailroom> & Co");
    expect(row).toContain("$100.00");
    await screenshot(page, "admin-workspaces", context);

    // The workspace page: the key by prefix and status, both balances, a ledger line.
    await submit(page, "#workspaces tbody tr a");
    expect(await textOf(page, "#workspace-name")).toBe("Acme <Mailroom> & Co");
    const prefix = (await textOf(page, "#keys .key-prefix")).replace(/…$/, "");
    expect(prefix.length).toBeGreaterThan("svc_test_".length);
    expect(key.startsWith(prefix)).toBe(true);
    expect(await textOf(page, "#keys tbody")).toContain("active");
    expect(await textOf(page, "#balance-test")).toContain("$100.00");
    expect(await textOf(page, "#balance-live")).toContain("setup_required");
    const ledger = await textOf(page, "#ledger-test tbody tr");
    expect(ledger).toContain("top_up");
    expect(ledger).toContain("+$100.00");
    expect(await page.content()).not.toContain(key);
    await screenshot(page, "admin-workspace-page", context);

    // Sign out: the session is over, its pages lead back to the sign-in form.
    const workspaceUrl = page.url();
    await submit(page, "#sign-out");
    expect(await heading(page)).toBe("Sign in");
    await page.goto(workspaceUrl, { waitUntil: "load" });
    expect(await heading(page)).toBe("Sign in");
    await screenshot(page, "admin-signed-out", context);

    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
    await page.close();
  });

  it("approves a draft waiting for approval with its button, charging and sending nothing", async (context) => {
    const made = await server.core.workspaces.create("Approvals & Co");
    const live = await server.core.workspaces.authenticate(
      (await server.core.workspaces.enableLive(made.id))!.api_key,
    );
    const draft = await pendingDraft(server.core, live, { project: "Hidden Project" });
    const before = await server.core.workspaces.balance(made.id, "live");

    const page = await browser.newPage();
    await page.setViewport(DESKTOP);
    const problems: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(String(error)));

    await page.goto(`${server.base}/dashboard/workspaces/${made.id}`, { waitUntil: "load" });
    expect(await heading(page)).toBe("Sign in");
    await page.type("#token", token);
    await submit(page, "#sign-in");
    await page.goto(`${server.base}/dashboard/workspaces/${made.id}`, { waitUntil: "load" });
    await submit(page, "#approvals-link");
    expect(await heading(page)).toBe("Approvals");
    const row = await textOf(page, `#approvals-live tr[data-draft="${draft.id}"]`);
    expect(row).toContain("letter");
    expect(row).toContain(`$${(draft.revision.price_cents / 100).toFixed(2)}`);
    expect(await page.content()).not.toContain("Hidden Project");
    await screenshot(page, "admin-approvals", context);

    await submit(page, `#approve-${draft.id}`);
    expect(await textOf(page, "#notice")).toContain(`Draft ${draft.id} was approved.`);
    expect(await page.$(`#approve-${draft.id}`)).toBeNull();
    expect(await page.$("#no-approvals-live")).not.toBeNull();
    await screenshot(page, "admin-approvals-approved", context);

    expect(await server.core.drafts.get(live, draft.id)).toMatchObject({ state: "approved", order_id: null });
    expect(await server.core.workspaces.balance(made.id, "live")).toEqual(before);
    expect((await server.core.store.list("orders:")).records).toEqual([]);
    await submit(page, "#sign-out");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("reads the outbox: the list, a message with its attachment, its HTML never rendered", async (context) => {
    const dir = await mkdtemp(join(tmpdir(), "admin-browser-outbox-"));
    const outbox = await createEmailOutbox({ dir });
    const target = await startAdminServer({ adminToken: token, outbox });
    const page = await browser.newPage();
    try {
      await outbox.send(
        emailMessageFixture("receipt:o_1", {
          html: `<p>Paid</p><script>alert("outbox")</script><img src=x onerror="alert(1)">`,
        }),
      );
      await page.setViewport(DESKTOP);
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(String(error)));
      page.on("dialog", (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      const elsewhere: string[] = [];
      page.on("request", (request) => {
        if (!request.url().startsWith(target.base)) elsewhere.push(request.url());
      });

      await page.goto(`${target.base}/dashboard`, { waitUntil: "load" });
      await page.type("#token", token);
      await submit(page, "#sign-in");
      await submit(page, "#outbox-link");
      expect(await heading(page)).toBe("Outbox");
      expect(await textOf(page, "#outbox tbody tr")).toContain("zoe@example.test");
      await screenshot(page, "admin-outbox", context);

      await submit(page, "#outbox tbody tr a");
      expect(await textOf(page, "#subject")).toBe("Reçu de paiement : commande o_1 (3,40 $)");
      expect(await textOf(page, "#mail-text")).toContain("We received 340 cents for order o_1.");
      expect(await textOf(page, "#attachments tbody")).toContain("receipt-o_1.pdf");
      expect(await textOf(page, "#mail-html")).toContain(`<script>alert("outbox")</script>`);
      expect(await page.$("main script, main img, main iframe")).toBeNull();
      await screenshot(page, "admin-outbox-message", context);

      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
      for (const response of target.responses) expect(response).not.toContain(token);
      expect(target.errors).toEqual([]);
    } finally {
      await page.close();
      await target.close();
      await outbox.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emailMessageFixture } from "@mailpiece/conformance";
import { createEmailOutbox, type EmailOutbox } from "@mailpiece/email-outbox";
import { manualClock } from "@mailpiece/ports";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OUTBOX_ID, outboxMessageView, RAW_SHOWN_BYTES } from "./outbox.ts";
import { type AdminServer, newAdminToken, signIn, startAdminServer } from "./test-server.fixture.ts";

/** Tags that must never reach a dashboard page from a message. */
const MESSAGE_TAGS = /<(script|img|iframe|b)\b/i;

const RECEIPT_HTML = `<p>Paid</p><script>alert("outbox")</script><img src=x onerror="alert(1)"><iframe src="https://evil.example"></iframe>`;

let dir: string;
let outbox: EmailOutbox;
let server: AdminServer;
let bare: AdminServer;
let token: string;
let receiptId: string;
let statusId: string;

const get = (target: AdminServer, path: string, cookie?: string) =>
  fetch(`${target.base}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "admin-outbox-"));
  const clock = manualClock(Date.UTC(2026, 2, 14, 9, 30, 5));
  outbox = await createEmailOutbox({ dir, clock });
  // A receipt with a PDF and an HTML part that holds a script, then a status mail without attachments.
  await outbox.send(
    emailMessageFixture("receipt:o_1", {
      subject: `Receipt <b>o_1</b> & "co"`,
      text: "We received 340 cents for order o_1.\n<script>not a tag</script>",
      html: RECEIPT_HTML,
    }),
  );
  clock.advance(60_000);
  const { attachments: _none, ...status } = emailMessageFixture("status:o_2", {
    subject: "Your letter o_2 was mailed",
    text: "Letter o_2 is on its way.",
    html: "<p>Letter o_2 is on its way.</p>",
  });
  await outbox.send(status);
  const listed = await outbox.list();
  [statusId, receiptId] = listed.entries.map((entry) => entry.id) as [string, string];
  token = newAdminToken();
  server = await startAdminServer({ adminToken: token, outbox });
  bare = await startAdminServer({ adminToken: token });
}, 60_000);

afterAll(async () => {
  for (const target of [server, bare]) {
    if (!target) continue;
    for (const response of target.responses) expect(response).not.toContain(token);
    expect(target.errors).toEqual([]);
    await target.close();
  }
  await outbox?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("the outbox in the dashboard", () => {
  it("links the outbox from every signed-in page", async () => {
    const session = await signIn(server);
    const home = await (await get(server, "/dashboard", session.cookie)).text();
    expect(home).toContain('<a href="/dashboard/outbox" id="outbox-link">Outbox</a>');
    const missing = await get(server, "/dashboard/nowhere", session.cookie);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('id="outbox-link"');
    // Signed out, there is no navigation at all.
    expect(await (await get(server, "/dashboard")).text()).not.toContain('id="outbox-link"');
  });

  it("lists the messages newest first with time, recipients, subject and size, escaped", async () => {
    const session = await signIn(server);
    const response = await get(server, "/dashboard/outbox", session.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await response.text();
    const rows = [...html.matchAll(/<tr data-id="([^"]+)">/g)].map((match) => match[1]);
    expect(rows).toEqual([statusId, receiptId]);
    expect(html).toContain("2026-03-14 09:31:05 UTC");
    expect(html).toContain("2026-03-14 09:30:05 UTC");
    expect(html).toContain("zoe@example.test, accounts@example.test");
    expect(html).toContain(`<a href="/dashboard/outbox/${statusId}">Your letter o_2 was mailed</a>`);
    expect(html).toContain("Receipt &lt;b&gt;o_1&lt;/b&gt; &amp; &quot;co&quot;");
    const receipt = (await outbox.read(receiptId))!.entry;
    expect(html).toContain(`${(receipt.size / 1024).toFixed(1)} KiB`);
    expect(html).not.toMatch(MESSAGE_TAGS);
    expect(html).not.toContain('id="older"');
  });

  it("shows a message's headers, text, attachments, HTML source and raw text, never its markup", async () => {
    const session = await signIn(server);
    const response = await get(server, `/dashboard/outbox/${receiptId}`, session.cookie);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await response.text();
    const { entry } = (await outbox.read(receiptId))!;
    expect(html).toContain('<h1 id="subject">Receipt &lt;b&gt;o_1&lt;/b&gt; &amp; &quot;co&quot;</h1>');
    expect(html).toMatch(/id="mail-from">&quot;Mailpiece receipts&quot; &lt;receipts@mailpiece\.test&gt;</);
    expect(html).toMatch(/id="mail-to">[^<]*zoe@example\.test[^<]*accounts@example\.test/);
    expect(html).toContain('id="mail-date">2026-03-14T09:30:05.000Z<');
    expect(html).toContain(
      `id="mail-message-id">${entry.message_id!.replace("<", "&lt;").replace(">", "&gt;")}<`,
    );
    expect(html).toContain("We received 340 cents for order o_1.\n&lt;script&gt;not a tag&lt;/script&gt;");
    expect(html).toMatch(
      /id="attachments">[\s\S]*receipt-o_1\.pdf[\s\S]*<code>application\/pdf<\/code>[\s\S]*\d+ B</,
    );
    expect(html).toContain(
      '<pre id="mail-html">&lt;p&gt;Paid&lt;/p&gt;&lt;script&gt;alert(&quot;outbox&quot;)&lt;/script&gt;',
    );
    expect(html).toMatch(/<pre id="mail-raw">[\s\S]*Message-ID: &lt;[0-9a-f]{32}@mailpiece\.test&gt;/);
    expect(html).toContain(`<a href="/dashboard/outbox/${receiptId}.eml" id="download">`);
    expect(html).not.toMatch(MESSAGE_TAGS);
    expect(html).not.toContain("<script");

    const plain = await (await get(server, `/dashboard/outbox/${statusId}`, session.cookie)).text();
    expect(plain).toContain('<pre id="mail-text">Letter o_2 is on its way.');
    expect(plain).toContain('id="no-attachments"');
  });

  it("downloads the .eml byte for byte as the outbox holds it", async () => {
    const session = await signIn(server);
    for (const id of [receiptId, statusId]) {
      const response = await get(server, `/dashboard/outbox/${id}.eml`, session.cookie);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("message/rfc822");
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="${id}.eml"`);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = new Uint8Array(await response.arrayBuffer());
      const held = (await outbox.read(id))!.eml;
      expect(body.byteLength).toBe(held.byteLength);
      expect(Buffer.compare(Buffer.from(body), Buffer.from(held))).toBe(0);
    }
  });

  it("sends a request without a session to the sign-in, showing nothing", async () => {
    for (const path of [
      "/dashboard/outbox",
      `/dashboard/outbox/${receiptId}`,
      `/dashboard/outbox/${receiptId}.eml`,
    ]) {
      const response = await get(server, path);
      expect(response.status, path).toBe(303);
      expect(response.headers.get("location")).toBe(`${server.base}/dashboard`);
      expect(await response.text()).toBe("");
    }
    const forged = await get(server, `/dashboard/outbox/${receiptId}.eml`, "mp_admin=forged");
    expect(forged.status).toBe(303);
  });

  it("answers an unknown or malformed id with the dashboard's 404 page, and a bad cursor with 400", async () => {
    const session = await signIn(server);
    const unknown = `20990101t000000000z-${"0".repeat(32)}`;
    const ids = [
      unknown,
      `${unknown}.eml`,
      "not-an-id",
      "..%2F..%2Fetc%2Fpasswd",
      "%3Cscript%3E",
      `${receiptId}.eml.eml`,
      `${receiptId}.txt`,
      "x".repeat(300),
    ];
    for (const id of ids) {
      const response = await get(server, `/dashboard/outbox/${id}`, session.cookie);
      expect(response.status, id).toBe(404);
      expect(response.headers.get("content-type")).toContain("text/html");
      const html = await response.text();
      expect(html).toContain("There is no such message in the outbox.");
      expect(html).not.toContain("<script");
    }
    for (const cursor of ["bogus", "%3Cscript%3E", "a b"]) {
      const response = await get(server, `/dashboard/outbox?cursor=${cursor}`, session.cookie);
      expect(response.status, cursor).toBe(400);
      expect(await response.text()).toContain("This page of the list does not exist.");
    }
  });

  it("pages 50 messages at a time with an 'older' link", async () => {
    const pagedDir = await mkdtemp(join(tmpdir(), "admin-outbox-paged-"));
    const clock = manualClock(Date.UTC(2026, 0, 1));
    const paged = await createEmailOutbox({ dir: pagedDir, clock });
    const target = await startAdminServer({ adminToken: token, outbox: paged });
    try {
      for (let i = 0; i < 52; i++) {
        const { attachments: _none, ...message } = emailMessageFixture(`status:${i}`, {
          subject: `Status ${i}`,
        });
        await paged.send(message);
        clock.advance(1_000);
      }
      const session = await signIn(target);
      const first = await (await get(target, "/dashboard/outbox", session.cookie)).text();
      const subjects = (html: string) => [...html.matchAll(/>(Status \d+)<\/a>/g)].map((match) => match[1]);
      expect(subjects(first)).toEqual(Array.from({ length: 50 }, (_, i) => `Status ${51 - i}`));
      const older = /<a href="(\/dashboard\/outbox\?cursor=[^"]+)" id="older">/.exec(first)?.[1];
      expect(older).toBeDefined();
      const second = await (await get(target, older!, session.cookie)).text();
      expect(subjects(second)).toEqual(["Status 1", "Status 0"]);
      expect(second).not.toContain('id="older"');
      for (const response of target.responses) expect(response).not.toContain(token);
      expect(target.errors).toEqual([]);
    } finally {
      await target.close();
      await paged.close();
      await rm(pagedDir, { recursive: true, force: true });
    }
  });

  it("has no outbox pages and no link without an outbox", async () => {
    const session = await signIn(bare);
    const home = await (await get(bare, "/dashboard", session.cookie)).text();
    expect(home).toContain("<h1>Workspaces</h1>");
    expect(home).not.toContain("/dashboard/outbox");
    for (const path of [
      "/dashboard/outbox",
      `/dashboard/outbox/${receiptId}`,
      `/dashboard/outbox/${receiptId}.eml`,
    ]) {
      const response = await get(bare, path, session.cookie);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toContain("There is no such dashboard page.");
    }
  });
});

describe("outboxMessageView", () => {
  const entry = {
    id: "20260101t000000000z-0123456789abcdef0123456789abcdef",
    subject: "Kept",
    from: "receipts@mailpiece.test",
    to: ["zoe@example.test"],
    sent_at: "2026-01-01T00:00:00.000Z",
    size: 0,
  };

  it("ids and cursors are letters, digits, _ and - only", () => {
    expect(OUTBOX_ID.test(entry.id)).toBe(true);
    for (const bad of ["", "../x", "a.eml", "a b", "<x>", "x".repeat(129)])
      expect(OUTBOX_ID.test(bad)).toBe(false);
  });

  it("keeps only the start of a long raw message, and reads its text part only", async () => {
    const body = "line of text\r\n".repeat(Math.ceil((RAW_SHOWN_BYTES * 2) / 14));
    const eml = new TextEncoder().encode(
      `From: a@example.test\r\nTo: b@example.test\r\nSubject: Long\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>${body}</p>\r\n`,
    );
    const view = await outboxMessageView({ entry, eml });
    expect(view.rawTruncated).toBe(true);
    expect(new TextEncoder().encode(view.raw).byteLength).toBeLessThanOrEqual(RAW_SHOWN_BYTES);
    expect(view.raw.startsWith("From: a@example.test\r\n")).toBe(true);
    expect(view.parsed?.subject).toBe("Long");
    // The HTML is kept as source; it is not turned into a text part.
    expect(view.parsed?.text).toBeUndefined();
    expect(view.parsed?.html?.startsWith("<p>line of text")).toBe(true);
    expect(view.parsed?.attachments).toEqual([]);
  });

  it("shows a short message whole", async () => {
    const eml = new TextEncoder().encode("Subject: Hi\r\n\r\nHello\r\n");
    const view = await outboxMessageView({ entry, eml });
    expect(view.rawTruncated).toBe(false);
    expect(view.raw).toBe("Subject: Hi\r\n\r\nHello\r\n");
    expect(view.parsed?.text?.trimEnd()).toBe("Hello");
    expect(view.parsed?.from).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { parseSmtpUrl, redact, secretForms } from "./smtp-url.ts";

describe("parseSmtpUrl", () => {
  it("reads STARTTLS and implicit TLS URLs with their default ports and decoded credentials", () => {
    expect(parseSmtpUrl("smtp://mailer%40example.test:p%40ss%2Fw%20rd@smtp.example.test")).toEqual({
      host: "smtp.example.test",
      port: 587,
      implicitTls: false,
      auth: { user: "mailer@example.test", pass: "p@ss/w rd" },
    });
    expect(parseSmtpUrl("smtps://u:p@smtp.example.test")).toMatchObject({ port: 465, implicitTls: true });
    expect(parseSmtpUrl("smtp://127.0.0.1:2525")).toEqual({
      host: "127.0.0.1",
      port: 2525,
      implicitTls: false,
    });
    expect(parseSmtpUrl("smtp://[::1]:25/")).toMatchObject({ host: "::1", port: 25 });
    expect(parseSmtpUrl("smtp://u@h.example.test").auth).toEqual({ user: "u", pass: "" });
  });

  it("refuses other schemes, paths, queries, fragments, a missing host or user, and bad escapes", () => {
    for (const url of [
      "http://u:p@h.example.test",
      "smtp://u:p@h.example.test/x",
      "smtp://u:p@h.example.test?secure=1",
      "smtp://u:p@h.example.test#x",
      "smtp://:p@h.example.test",
      "smtp://u:%E0%A4%A@h.example.test",
      "smtp:h.example.test",
      "",
    ]) {
      expect(() => parseSmtpUrl(url), url).toThrow(TypeError);
    }
  });
});

describe("secretForms and redact", () => {
  it("cover the password as given, percent-encoded, base64 for LOGIN and PLAIN, and the URL", () => {
    const url = "smtp://mailer:p%40ss%20word@h.example.test";
    const forms = secretForms(parseSmtpUrl(url), url);
    expect(forms).toEqual(
      expect.arrayContaining([
        "p@ss word",
        "p%40ss%20word",
        Buffer.from("p@ss word").toString("base64"),
        Buffer.from("\u0000mailer\u0000p@ss word").toString("base64"),
        url,
      ]),
    );
    const text = `AUTH PLAIN ${Buffer.from("\u0000mailer\u0000p@ss word").toString("base64")} via ${url}`;
    const cleaned = redact(text, forms);
    for (const form of forms) expect(cleaned).not.toContain(form);
    expect(cleaned).toBe("AUTH PLAIN [redacted] via [redacted]");
    expect(secretForms(parseSmtpUrl("smtp://h.example.test"), "smtp://h.example.test")).toEqual([]);
  });
});

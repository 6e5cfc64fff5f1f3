import { describe, expect, it } from "vitest";
import { classifySmtpFailure } from "./smtp-failure.ts";

const failure = (fields: Record<string, unknown>) =>
  Object.assign(new Error(String(fields.message ?? "")), fields);
const context = { server: "smtp.example.test:587", handedOver: false, secrets: ["hunter2-secret"] };

describe("classifySmtpFailure", () => {
  const cases: Array<[string, Record<string, unknown>, boolean, string, boolean]> = [
    [
      "a refused login",
      { code: "EAUTH", command: "AUTH PLAIN", responseCode: 535 },
      false,
      "auth_failed",
      true,
    ],
    ["missing credentials", { code: "EAUTH", command: "API" }, false, "auth_failed", true],
    [
      "a login refused for now",
      { code: "EAUTH", command: "AUTH LOGIN", responseCode: 454 },
      false,
      "unavailable",
      true,
    ],
    [
      "a recipient refused for good",
      { code: "EENVELOPE", command: "RCPT TO", responseCode: 550 },
      true,
      "rejected",
      true,
    ],
    [
      "a sender refused for good",
      { code: "EENVELOPE", command: "MAIL FROM", responseCode: 553 },
      false,
      "rejected",
      true,
    ],
    [
      "a message refused for now",
      { code: "EMESSAGE", command: "DATA", responseCode: 451 },
      true,
      "unavailable",
      true,
    ],
    [
      "a message refused for good",
      { code: "EMESSAGE", command: "DATA", responseCode: 554 },
      true,
      "rejected",
      true,
    ],
    [
      "STARTTLS refused",
      { code: "ETLS", command: "STARTTLS", responseCode: 502 },
      false,
      "unavailable",
      true,
    ],
    [
      "a greeting refused",
      { code: "EPROTOCOL", command: "CONN", responseCode: 554 },
      false,
      "unavailable",
      true,
    ],
    ["a refused connection", { code: "ESOCKET", command: "CONN" }, false, "unavailable", true],
    [
      "a message too large for the server",
      { code: "EMESSAGE", command: "MAIL FROM" },
      false,
      "rejected",
      true,
    ],
    [
      "a connection lost after the hand-over",
      { code: "ECONNECTION", command: "CONN" },
      true,
      "unavailable",
      false,
    ],
    ["a timeout after the hand-over", { code: "ETIMEDOUT", command: "CONN" }, true, "unavailable", false],
    ["an aborted send after the hand-over", { code: "EABORT" }, true, "unavailable", false],
    ["something unknown before the hand-over", {}, false, "unavailable", true],
  ];
  for (const [why, fields, handedOver, code, definite] of cases) {
    it(`${why}: ${code}, ${definite ? "nothing sent" : "outcome unknown"}`, () => {
      const out = classifySmtpFailure(failure({ message: "boom", ...fields }), { ...context, handedOver });
      expect(out.error.code).toBe(code);
      expect(out.definite).toBe(definite);
      expect(out.error.message).toContain("smtp.example.test:587");
    });
  }

  it("redacts secrets from what the server or nodemailer said, and keeps no cause", () => {
    const out = classifySmtpFailure(
      failure({
        message: "Invalid login: 535 bad password hunter2-secret",
        code: "EAUTH",
        responseCode: 535,
      }),
      context,
    );
    expect(out.error.message).not.toContain("hunter2-secret");
    expect(out.error.message).toContain("[redacted]");
    expect(out.error.cause).toBeUndefined();
    expect(classifySmtpFailure("not an error", context).error.code).toBe("unavailable");
  });
});

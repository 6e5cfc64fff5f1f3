import { isMailpieceError } from "@mailpiece/errors";
import { describe, expect, it } from "vitest";
import { FloristError, isValidKey, manualClock, PaymentError, PortError, PrintError } from "./index.ts";

describe("isValidKey", () => {
  it("accepts segment keys made of the allowed characters", () => {
    expect(isValidKey("orders:2f0c6a1e-0000-4000-8000-000000000000")).toBe(true);
    expect(isValidKey("a")).toBe(true);
    expect(isValidKey(`a${"b".repeat(511)}`)).toBe(true);
  });
  it("refuses empty, leading separators, slashes, spaces and overlong keys", () => {
    for (const key of ["", ":a", "a/b", "a b", "../x", `a${"b".repeat(512)}`, 5, undefined]) {
      expect(isValidKey(key)).toBe(false);
    }
  });
});

describe("PortError", () => {
  it("is recognised by its marker, also across copies", () => {
    const error = new PortError("version_conflict", "stale");
    expect(PortError.isInstance(error)).toBe(true);
    expect(error.code).toBe("version_conflict");
    expect(PortError.isInstance(new Error("x"))).toBe(false);
    const lookalike = Object.assign(new Error("x"), { [Symbol.for("mailpiece.error.PortError")]: true });
    expect(PortError.isInstance(lookalike)).toBe(true);
  });
});

describe("the port errors", () => {
  it("are Mailpiece errors with their names, codes, causes and issues", () => {
    const cause = new Error("underneath");
    const errors = [
      new PortError("store_unavailable", "down", { cause }),
      new PaymentError("malformed_credential", "garbled", { cause }),
      new PrintError("invalid_job", "bad", { cause, field: "recipient.country" }),
      new FloristError("invalid_order", "bad", { cause, field: "recipient.phone" }),
    ];
    expect(errors.map((e) => [e.name, e.code, String(e)])).toEqual([
      ["PortError", "store_unavailable", "PortError: down"],
      ["PaymentError", "malformed_credential", "PaymentError: garbled"],
      ["PrintError", "invalid_job", "PrintError: bad"],
      ["FloristError", "invalid_order", "FloristError: bad"],
    ]);
    for (const error of errors) {
      expect(isMailpieceError(error)).toBe(true);
      expect(error).toBeInstanceOf(Error);
      expect(error.cause).toBe(cause);
      expect(error.issues).toEqual([]);
    }
    expect(errors[2]).toMatchObject({ field: "recipient.country" });
    expect(errors[3]).toMatchObject({ field: "recipient.phone" });
  });

  it("recognise only their own class, also from another copy of the package", () => {
    const payment = new PaymentError("payment_expired", "late");
    expect(PaymentError.isInstance(payment)).toBe(true);
    expect(PortError.isInstance(payment)).toBe(false);
    expect(PrintError.isInstance(new FloristError("product_unknown", "x"))).toBe(false);
    const copied = Object.assign(new Error("x"), { [Symbol.for("mailpiece.error.PaymentError")]: true });
    expect(PaymentError.isInstance(copied)).toBe(true);
    expect(Object.keys(payment).sort()).toEqual(["code", "issues", "name"]);
  });
});

describe("manualClock", () => {
  it("moves only when told", () => {
    const clock = manualClock(1000);
    expect(clock.now()).toBe(1000);
    clock.advance(250);
    expect(clock.now()).toBe(1250);
    clock.set(5);
    expect(clock.now()).toBe(5);
  });
});

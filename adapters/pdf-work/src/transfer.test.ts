import { describe, expect, it } from "vitest";
import { returnableBytes, sendableBytes } from "./transfer.ts";

describe("sendableBytes", () => {
  it("copies exactly the viewed bytes once and transfers the copy, leaving the caller's bytes intact", () => {
    const whole = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);
    const view = whole.subarray(2, 5);
    const sent = sendableBytes(view);
    expect(sent.bytes).toEqual(new Uint8Array([3, 4, 5]));
    expect(sent.bytes?.buffer.byteLength).toBe(3);
    expect(sent.transfer).toEqual([sent.bytes?.buffer]);
    expect(sent.bytes?.buffer).not.toBe(whole.buffer);
    structuredClone(sent.bytes, { transfer: sent.transfer });
    expect(view).toEqual(new Uint8Array([3, 4, 5]));
    expect(whole.byteLength).toBe(8);
  });

  it("leaves a Node Buffer intact, whose slice() is a view of the same memory", () => {
    const backing = new ArrayBuffer(64);
    const view = Buffer.from(backing, 8, 40);
    view.write("%PDF-1.7", "latin1");
    const sent = sendableBytes(view);
    structuredClone(sent.bytes, { transfer: sent.transfer });
    expect(view.byteLength).toBe(40);
    expect(view.toString("latin1").startsWith("%PDF-")).toBe(true);
  });

  it("shares bytes on a SharedArrayBuffer without a copy", () => {
    const shared = new Uint8Array(new SharedArrayBuffer(4));
    expect(sendableBytes(shared)).toEqual({ bytes: shared, transfer: [] });
  });

  it("sends anything that is not a Uint8Array as null", () => {
    expect(sendableBytes("%PDF-1.4")).toEqual({ bytes: null, transfer: [] });
    expect(sendableBytes([37, 80])).toEqual({ bytes: null, transfer: [] });
  });
});

describe("returnableBytes", () => {
  it("transfers the buffer itself when the view covers all of it", () => {
    const pdf = new Uint8Array([37, 80, 68, 70]);
    const out = returnableBytes(pdf);
    expect(out.bytes).toBe(pdf);
    expect(out.transfer).toEqual([pdf.buffer]);
  });

  it("copies a view of a larger buffer before transferring, so the rest of the buffer stays", () => {
    const whole = new Uint8Array([9, 9, 37, 80, 9]);
    const out = returnableBytes(whole.subarray(2, 4));
    expect(out.bytes).toEqual(new Uint8Array([37, 80]));
    expect(out.transfer).toEqual([out.bytes.buffer]);
    expect(out.bytes.buffer).not.toBe(whole.buffer);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { createLineBuffer, createLogger } from "./logger.ts";

describe("createLogger", () => {
  it("writes one JSON object per line at or above its level", () => {
    const lines: string[] = [];
    const logger = createLogger("warn", (line) => lines.push(line));
    logger.info("ignored");
    logger.warn("careful", { path: "/x" });
    logger.error("broken");
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({ level: "warn", msg: "careful", path: "/x" });
    expect(typeof first.time).toBe("string");
  });

  it("writes nothing when silent", () => {
    const lines: string[] = [];
    const logger = createLogger("silent", (line) => lines.push(line));
    logger.error("x");
    expect(lines).toEqual([]);
  });
});

describe("createLineBuffer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("joins the lines of a spell into one write, after the interval", () => {
    vi.useFakeTimers();
    const chunks: string[] = [];
    const buffer = createLineBuffer((chunk) => chunks.push(chunk), { intervalMs: 100 });
    buffer.write("a");
    buffer.write("b");
    expect(chunks).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(chunks).toEqual(["a\nb\n"]);
    buffer.write("c");
    vi.advanceTimersByTime(100);
    expect(chunks).toEqual(["a\nb\n", "c\n"]);
  });

  it("writes at once when it holds its maximum, so it never grows past it", () => {
    const chunks: string[] = [];
    const buffer = createLineBuffer((chunk) => chunks.push(chunk), { maxChars: 10 });
    buffer.write("12345");
    expect(chunks).toEqual([]);
    buffer.write("6789");
    expect(chunks).toEqual(["12345\n6789\n"]);
    buffer.close();
    expect(chunks).toHaveLength(1);
  });

  it("writes what it holds on flush and on close, and nothing when empty", () => {
    const chunks: string[] = [];
    const buffer = createLineBuffer((chunk) => chunks.push(chunk));
    buffer.flush();
    buffer.write("x");
    buffer.flush();
    buffer.write("y");
    buffer.close();
    expect(chunks).toEqual(["x\n", "y\n"]);
  });
});

import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

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

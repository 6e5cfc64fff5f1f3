import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { letterOrder } from "@mailpiece/conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

/** Letters built to be slow to typeset: each is within the request schema (a body of at most 20 000 characters). */
const HOSTILE_LETTERS: Record<string, Record<string, unknown>> = {
  "deep nesting": { letter: { body: `${">".repeat(19_990)} deep`, format: "markdown" } },
  "nested lists": {
    letter: {
      body: Array.from({ length: 600 }, (_, i) => `${"  ".repeat(i)}- x`)
        .join("\n")
        .slice(0, 20_000),
      format: "markdown",
    },
  },
  "one 20 000-character word": { letter: "W".repeat(20_000) },
  "thousands of tiny table cells": {
    letter: {
      body: ["|a|b|", "|-|-|", ...Array.from({ length: 2_000 }, () => "|x|y|")].join("\n").slice(0, 20_000),
      format: "markdown",
    },
  },
  "deep HTML": { letter: { body: "<div>".repeat(3_900), format: "html" } },
  // Not hostile, only long: a full 20 000-character markdown letter is real typesetting work.
  "a long legitimate letter": {
    letter: {
      body: Array.from(
        { length: 60 },
        (_, i) =>
          `## Part ${i + 1}\n\nThis paragraph is long enough to wrap across several printed lines, with *emphasis*, **strong words** and a [link](https://example.com) or two, so that every page is full.\n\n- one\n- two`,
      )
        .join("\n\n")
        .slice(0, 20_000),
      format: "markdown",
    },
  },
};

describe("no request holds the event loop", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "mailpiece-loop-"));
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(
      loadConfig({ PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "silent", VALIDATE_PER_MINUTE: "100000" }),
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps answering small requests while hostile letters are validated in parallel", async () => {
    const validate = (body: unknown) =>
      fetch(`${server.url}/api/machine/orders/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    // Warm the workers up, so that the measurement is about the requests, not the first thread's start.
    expect((await validate(letterOrder())).status).toBe(200);

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const hostile = Promise.all(
      Object.entries(HOSTILE_LETTERS).map(async ([name, patch]) => {
        const res = await validate(letterOrder(patch));
        return { name, status: res.status, body: await res.text() };
      }),
    );
    // A stream of small requests meanwhile: each must be answered, in turn, while the hostile ones run.
    const small: number[] = [];
    let settled = false;
    void hostile.finally(() => {
      settled = true;
    });
    while (!settled || small.length < 5) {
      const res = await fetch(`${server.url}/api/machine/forms`);
      small.push(res.status);
      await res.arrayBuffer();
    }
    const results = await hostile;
    delay.disable();

    expect(small.every((status) => status === 200)).toBe(true);
    // Each hostile letter gets an answer with a stable code: typeset, or refused for its shape, never a 5xx.
    for (const result of results) {
      expect([200, 422], `${result.name}: ${result.body.slice(0, 300)}`).toContain(result.status);
    }
    // The main thread's longest stall. Typesetting the deep letter in-process held it for seconds; off the loop,
    // what is left is parsing small JSON bodies. The bound is generous for a loaded 2-core machine.
    expect(delay.max / 1e6).toBeLessThan(1_000);
  }, 180_000);
});

import { describe, expect, it } from "vitest";
import { createKeyMutex } from "./key-mutex.ts";

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("createKeyMutex", () => {
  it("runs tasks for one key one after another, in call order", async () => {
    const mutex = createKeyMutex();
    const events: string[] = [];
    const gate = deferred();
    const first = mutex.run("k", async () => {
      events.push("first:start");
      await gate.promise;
      events.push("first:end");
      return 1;
    });
    const second = mutex.run("k", async () => {
      events.push("second");
      return 2;
    });
    const third = mutex.run("k", async () => {
      events.push("third");
      return 3;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(events).toEqual(["first:start"]);
    gate.resolve();
    expect(await Promise.all([first, second, third])).toEqual([1, 2, 3]);
    expect(events).toEqual(["first:start", "first:end", "second", "third"]);
  });

  it("lets a task for another key run while one key is held", async () => {
    const mutex = createKeyMutex();
    const gate = deferred();
    const held = mutex.run("a", () => gate.promise);
    const other = await mutex.run("b", async () => "b ran");
    expect(other).toBe("b ran");
    expect(mutex.activeKeys).toBe(1);
    gate.resolve();
    await held;
  });

  it("passes on after a task fails and forgets idle keys", async () => {
    const mutex = createKeyMutex();
    const failing = mutex.run("k", async () => {
      throw new Error("boom");
    });
    const next = mutex.run("k", async () => "next");
    await expect(failing).rejects.toThrow("boom");
    expect(await next).toBe("next");
    expect(mutex.activeKeys).toBe(0);
  });
});

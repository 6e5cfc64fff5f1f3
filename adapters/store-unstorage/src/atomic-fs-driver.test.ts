import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { createStorage } from "unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atomicFsDriver, removeTempFiles } from "./atomic-fs-driver.ts";
import { keyToPath } from "./fs-key-path.ts";

let root: string;
let base: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "mailpiece-atomic-fs-"));
  base = join(root, "data");
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

describe("atomicFsDriver", () => {
  it("keeps each item in the file keyToPath names and leaves no temporary file", async () => {
    const storage = createStorage({ driver: atomicFsDriver({ base }) });
    await storage.setItemRaw("orders:1", "one");
    await storage.setItemRaw("orders", "parent");
    await storage.setItemRaw("Orders:x", new Uint8Array([1, 2, 3]));
    await storage.setItemRaw("orders:1", "one, again");
    expect(await filesUnder(base)).toEqual(
      [keyToPath("Orders:x"), keyToPath("orders"), keyToPath("orders:1")].map((p) => p.join("/")).sort(),
    );
    expect(await readFile(join(base, ...keyToPath("orders:1")), "utf8")).toBe("one, again");
    expect(Buffer.from((await storage.getItemRaw("Orders:x")) as Uint8Array)).toEqual(Buffer.from([1, 2, 3]));
    expect(await storage.getItem("orders")).toBe("parent");
    expect(await storage.hasItem("orders:2")).toBe(false);
    expect(await storage.getItemRaw("orders:2")).toBeNull();
  });

  it("lists keys, also under a base, and ignores temporary and foreign files", async () => {
    const storage = createStorage({ driver: atomicFsDriver({ base }) });
    for (const key of ["a", "a:b", "a:b:c", "ab:c", "z"]) await storage.setItemRaw(key, key);
    await writeFile(join(base, ".tmp-123-abc"), "half");
    await writeFile(join(base, "a+", ".tmp-9-def"), "half");
    await writeFile(join(base, "README"), "not ours");
    await mkdir(join(base, "Foreign+"));
    await writeFile(join(base, "Foreign+", "x"), "not ours");
    expect((await storage.getKeys()).sort()).toEqual(["a", "a:b", "a:b:c", "ab:c", "z"]);
    expect((await storage.getKeys("a")).sort()).toEqual(["a:b", "a:b:c"]);
    expect(await storage.getKeys("a:b")).toEqual(["a:b:c"]);
    expect(await storage.getKeys("missing")).toEqual([]);
  });

  it("never writes outside its directory, whatever the key", async () => {
    const driver = atomicFsDriver({ base });
    for (const key of ["..:x", "..:..:escape", ".", "a:..:..:b", "%2e%2e:x"]) {
      await driver.setItem?.(key, key, {});
      expect(await driver.getItem(key, {})).toBe(key);
    }
    expect(await readdir(root)).toEqual(["data"]);
    expect((await driver.getKeys("", {})).sort()).toEqual([
      "%2e%2e:x",
      ".",
      "..:..:escape",
      "..:x",
      "a:..:..:b",
    ]);
  });

  it("reads only the leading bytes when asked for headBytes", async () => {
    const storage = createStorage({ driver: atomicFsDriver({ base }) });
    await storage.setItemRaw("blob", new Uint8Array(5000).fill(7));
    const head = (await storage.getItemRaw("blob", { headBytes: 16 })) as Uint8Array;
    expect(head.byteLength).toBe(16);
    const whole = (await storage.getItemRaw("blob")) as Uint8Array;
    expect(whole.byteLength).toBe(5000);
  });

  it("removes items, and removing an absent item is not an error", async () => {
    const storage = createStorage({ driver: atomicFsDriver({ base }) });
    await storage.setItemRaw("a:b", "x");
    await storage.removeItem("a:b");
    await storage.removeItem("a:b");
    expect(await storage.hasItem("a:b")).toBe(false);
    expect(await storage.getKeys()).toEqual([]);
  });
});

describe("removeTempFiles", () => {
  it("deletes leftover temporary files and the directories they leave empty, and nothing else", async () => {
    const storage = createStorage({ driver: atomicFsDriver({ base }) });
    await storage.setItemRaw("keep:1", "kept");
    await writeFile(join(base, "keep+", ".tmp-1-aa"), "half");
    await mkdir(join(base, "gone+", "deeper+"), { recursive: true });
    await writeFile(join(base, "gone+", "deeper+", ".tmp-2-bb"), "half");
    await writeFile(join(base, ".lock"), "1 ab\n");
    expect(await removeTempFiles(base)).toBe(2);
    expect(await filesUnder(base)).toEqual([".lock", "keep+/1"]);
    expect((await readdir(base)).sort()).toEqual([".lock", "keep+"]);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "../adapters/ports/src/index.ts";
import { createFileStore, createMemoryStore } from "../adapters/store-unstorage/src/index.ts";

/** A store a benchmark runs on, opened fresh for each case and disposed of (with its folder) after it. */
export interface StoreKind {
  name: string;
  open(): Promise<{ store: Store; dispose(): Promise<void> }>;
}

/** The embedded stores: in memory, and in files under a fresh temporary folder. */
export const EMBEDDED_STORES: readonly StoreKind[] = [
  {
    name: "memory",
    async open() {
      const store = createMemoryStore();
      return { store, dispose: () => store.close() };
    },
  },
  {
    name: "file",
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "mailpiece-bench-store-"));
      const store = await createFileStore({ dir });
      return {
        store,
        async dispose() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

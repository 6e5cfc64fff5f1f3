// @mailpiece/store-unstorage: a memory store on a manual clock, and the crash-safe file store in a fresh folder.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manualClock, PortError } from "@mailpiece/ports";
import { createFileStore, createMemoryStore } from "@mailpiece/store-unstorage";

const clock = manualClock();
const memory = createMemoryStore({ clock });
const first = await memory.create("claims:idem-123", { orderId: "o_1" }, { ttlMs: 60_000 });
const again = await memory.create("claims:idem-123", { orderId: "o_2" });
console.log(first.created, again.created, again.record.value.orderId); // → true false o_1
clock.advance(60_001);
console.log(await memory.get("claims:idem-123")); // → undefined

const dir = await mkdtemp(join(tmpdir(), "records-"));
const store = await createFileStore({ dir }); // locks the folder until close
const order = await store.put("orders:o_1", { status: "paid" });
await store.put("orders:o_1", { status: "submitted" }, { ifVersion: order.version }); // compare-and-set
try {
  await store.put("orders:o_1", { status: "lost update" }, { ifVersion: order.version });
} catch (error) {
  console.log(PortError.isInstance(error), error.code); // → true version_conflict
}
const page = await store.list("orders:", { limit: 100 });
console.log(page.records.map((record) => `${record.key} ${record.value.status} v${record.version}`).join());
// → orders:o_1 submitted v2
console.log(JSON.stringify(store.capabilities)); // → {"durable":true,"shared":false}
await store.close();
await rm(dir, { recursive: true });

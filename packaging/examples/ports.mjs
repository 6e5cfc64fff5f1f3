// @mailpiece/ports: the contracts' pure helpers.
import { isValidKey, manualClock, PortError, PRINT_JOB_STATUSES, serialiseJson } from "@mailpiece/ports";

console.log(isValidKey("orders:o_1"), isValidKey("../etc/passwd")); // → true false
console.log(JSON.stringify(serialiseJson({ b: 1, a: [true] }))); // → {"ok":true,"json":"{\"b\":1,\"a\":[true]}"}
console.log(serialiseJson({ amount: 1n }).ok); // → false
const clock = manualClock(Date.UTC(2026, 0, 1));
clock.advance(1_000);
console.log(new Date(clock.now()).toISOString()); // → 2026-01-01T00:00:01.000Z
console.log(PRINT_JOB_STATUSES.join(" ")); // → submitted accepted in_transit delivered returned failed canceled
console.log(typeof PortError.isInstance); // → function

import { portRequirement, type Requirement } from "../kit.ts";
import type { StoreContractName } from "./store-contract.ts";

const port = (section: string, sentence: string) => portRequirement("Store", section, sentence);

const KEYS = port(
  "Keys",
  "A key MUST match `KEY_PATTERN` … Every method MUST reject any other key with `PortError` code `invalid_key` and change nothing.",
);
const CREATE_ATOMIC = port(
  "Versions",
  "`create` MUST be atomic: under any number of concurrent callers for one absent key, exactly one MUST receive `created: true`; every other caller MUST receive `created: false` and the winner's record.",
);
const TTL = port(
  "Expiry",
  "A record written with `ttlMs` MUST be absent for `get`, `list` and `create` once `ttlMs` has passed on the store's clock; `create` on an expired key MUST succeed as on an absent one.",
);
const LIST = port(
  "Listing",
  "`list(prefix)` MUST return the live records whose key starts with `prefix`, in ascending key order (by UTF-16 code units), at most `limit` (default 100, at most 1000) per page, and a `cursor` when more may follow.",
);
const IF_VERSION = port(
  "Versions",
  "`put` with `ifVersion` MUST write only when the stored version equals `ifVersion`; otherwise it MUST throw `version_conflict` and change nothing.",
);

/** The MUST sentence of the Store port (adapters/ports/src/store.ts) that each test checks. */
export const STORE_REQUIREMENTS: Readonly<Record<StoreContractName, Requirement>> = {
  "rejects invalid keys with invalid_key": KEYS,
  "accepts every valid key and keeps distinct keys apart": KEYS,
  "rejects non-serialisable values": port(
    "Values",
    "`create` and `put` MUST reject a value that is not (a function, a bigint, a cycle, `undefined` at the top level) with code `value_not_serializable` and change nothing.",
  ),
  "stores any JSON value and returns it unchanged": port("Values", "A value MUST be JSON-serialisable."),
  "get returns a copy": port(
    "Values",
    "`get` MUST return a copy: mutating a returned value MUST NOT change what the store holds.",
  ),
  "create stores version 1": port("Versions", "`create` MUST store version 1"),
  "put stores the previous version + 1, and 1 when absent": port(
    "Versions",
    "every successful `put` MUST store the previous version + 1 (1 when absent).",
  ),
  "put with a matching ifVersion writes the next version": IF_VERSION,
  "put with a stale ifVersion throws version_conflict and changes nothing": IF_VERSION,
  "put with ifVersion: exactly one of many concurrent callers succeeds": port(
    "Versions",
    "Under any number of concurrent `put`s with the same `ifVersion`, exactly one MUST succeed.",
  ),
  "create is atomic under concurrent callers": CREATE_ATOMIC,
  "create on a live key returns created: false and the stored record": CREATE_ATOMIC,
  "delete returns whether a live record was removed": port(
    "Versions",
    "`delete` MUST return whether a live record was removed.",
  ),
  "delete with ifVersion deletes only on a match, else throws version_conflict": port(
    "Versions",
    "`delete` with `ifVersion` MUST delete only when the stored version equals `ifVersion`, else throw `version_conflict`.",
  ),
  "ttl: a record is live until ttlMs has passed on the store's clock": TTL,
  "ttl: expired records are absent from get, list and create": TTL,
  "list returns exactly the live records whose key starts with the prefix": LIST,
  "list pages in key order and the cursor continues after the last key": port(
    "Listing",
    "Passing that cursor MUST continue after the last key returned",
  ),
  "list returns at most limit records: 100 by default, never more than 1000": LIST,
  "list: a key present for the whole listing appears exactly once": port(
    "Listing",
    "so that a key present for the whole listing appears exactly once.",
  ),
  "durable: acknowledged writes survive reopen": port(
    "Durability",
    "An adapter that declares `durable: true` MUST keep every acknowledged write across a restart and MUST leave every record readable, holding either its old or its new value, if the process is killed at any moment.",
  ),
  "shared: among several processes at once, one create wins, compare-and-set is exact and no update is lost":
    port(
      "Durability",
      "An adapter that declares `shared: true` MUST keep all of the above among several processes using it at once.",
    ),
};

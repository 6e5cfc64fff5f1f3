import { portRequirement, type Requirement } from "../kit.ts";
import type { BlobStoreContractName } from "./blob-store-contract.ts";

const port = (section: string, sentence: string) => portRequirement("BlobStore", section, sentence);

/** The MUST sentence of the BlobStore port (adapters/ports/src/blob-store.ts) that each test checks. */
export const BLOB_STORE_REQUIREMENTS: Readonly<Record<BlobStoreContractName, Requirement>> = {
  "rejects invalid keys with invalid_key": port(
    "Contracts",
    "Keys MUST follow the Store's `KEY_PATTERN`; any other key MUST be rejected with `invalid_key`, by every method.",
  ),
  "get returns exactly the bytes last put, with size, contentType and sha256": port(
    "Contracts",
    "`get` MUST return exactly the bytes last put, with `size`, `contentType` and the lowercase hex `sha256` of them.",
  ),
  "accepts a zero-byte blob": port(
    "Contracts",
    "`put` MUST accept any byte sequence from 0 to `MAX_BLOB_BYTES` bytes",
  ),
  "accepts a blob of exactly MAX_BLOB_BYTES": port(
    "Contracts",
    "`put` MUST accept any byte sequence from 0 to `MAX_BLOB_BYTES` bytes",
  ),
  "refuses a blob over MAX_BLOB_BYTES with blob_too_large and changes nothing": port(
    "Contracts",
    "and MUST reject a larger one with `blob_too_large`, changing nothing.",
  ),
  "put is atomic: readers see the old or the new bytes, never a mix": port(
    "Contracts",
    "`put` MUST be atomic: a concurrent or later reader MUST see the old bytes or the new bytes, never a mix",
  ),
  "delete returns whether a blob was removed; get and head then return undefined": port(
    "Contracts",
    "`delete` MUST return whether a blob was removed; `get` and `head` MUST then return undefined.",
  ),
  "durable: acknowledged blobs survive reopen": port(
    "Contracts",
    "a durable adapter MUST keep that true if the process is killed at any moment.",
  ),
  "putStream stores the streamed bytes like put, with size, contentType and sha256": port(
    "Streams",
    "`putStream` MUST store the bytes the body yields as `put` would store them, and return the same info",
  ),
  "putStream is atomic: readers see the old or the new bytes, never a mix": port(
    "Streams",
    "`putStream` MUST be atomic like `put`: readers see the old blob or the whole new one, never a part of the body.",
  ),
  "putStream accepts a body of exactly MAX_BLOB_BYTES": port(
    "Streams",
    "`putStream` MUST accept a body of 0 to `MAX_BLOB_BYTES` bytes",
  ),
  "putStream refuses a body over MAX_BLOB_BYTES with blob_too_large and leaves no blob behind": port(
    "Streams",
    "and MUST reject a longer one with `blob_too_large`, leaving the previous blob (or no blob) as it was",
  ),
  "putStream refuses a body whose length differs from the declared size, changing nothing": port(
    "Streams",
    "Given `options.size`, `putStream` MUST reject a body of any other length, changing nothing.",
  ),
  "putStream changes nothing when the body fails": port(
    "Streams",
    "When the body fails (throws or errors), `putStream` MUST reject, changing nothing.",
  ),
  "getStream streams exactly the bytes and info of the blob, or undefined when absent": port(
    "Streams",
    "`getStream` MUST return undefined for an absent blob; otherwise the info `head` returns and a body that yields exactly the bytes that info describes",
  ),
};

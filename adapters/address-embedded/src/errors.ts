import { defineError } from "@mailpiece/errors";

export type AddressIndexErrorCode = "missing_column" | "invalid_index_file";

/** Loading an address source or an index file failed: a CSV without a needed column, a file that is no index. */
export class AddressIndexError extends defineError<AddressIndexErrorCode>("AddressIndexError") {}

export type { ContainerRange } from "./address-index.ts";
export { AddressIndex } from "./address-index.ts";
export type { AddressBuildStats } from "./builder.ts";
export { AddressIndexBuilder, buildAddressIndex } from "./builder.ts";
export type { CliOutput } from "./cli.ts";
export { runAddressesCli } from "./cli.ts";
export type { LoadedAddresses, OpenAddressesOptions } from "./csv.ts";
export { loadOpenAddressesCsv, readOpenAddressesCsv } from "./csv.ts";
export type { AddressIndexErrorCode } from "./errors.ts";
export { AddressIndexError } from "./errors.ts";
export type { ImportAddressesOptions } from "./import.ts";
export { importAddresses } from "./import.ts";
export type { AddressIndexData } from "./index-data.ts";
export {
  deserializeIndex,
  INDEX_FILE_VERSION,
  openIndexFile,
  serializeIndex,
  writeIndexFile,
} from "./index-file.ts";
export type { EmbeddedAddressProviderOptions } from "./provider.ts";
export { createEmbeddedAddressProvider } from "./provider.ts";
export type { AddressRow } from "./row.ts";
export { loadSample, SAMPLE_CSV_URL, SAMPLE_CSV_URLS } from "./sample.ts";

export {
  LOQATE_DEFAULT_BASE_URL,
  LOQATE_FIND_PATH,
  LOQATE_GENERIC_ERRORS,
  LOQATE_RETRIEVE_PATH,
} from "./loqate-client.ts";
export type { LoqateAddressProviderOptions } from "./loqate-provider.ts";
export {
  createLoqateAddressProvider,
  LOQATE_DEFAULT_MAX_RESPONSE_BYTES,
  LOQATE_DEFAULT_TIMEOUT_MS,
} from "./loqate-provider.ts";

import type { AddressProvider, AddressSuggestion } from "@mailpiece/ports";
import { AddressError } from "@mailpiece/ports";
import { CoreError, rateLimitedError } from "./errors.ts";
import type { RateLimit } from "./rate-limit.ts";
import { createLocalRateLimiter } from "./rate-limit.ts";

export interface AddressSearchInput {
  query: string;
  /** ISO 3166-1 alpha-2; default US. */
  country_code?: string;
  container?: string;
  limit?: number;
  /** Who is asking (the client IP), for the per-client limits. */
  clientKey: string;
}

/** Spec 1's limits of address search: 120 per minute and 3000 per day per client IP. */
export const ADDRESS_SEARCH_RATE_LIMITS: readonly RateLimit[] = Object.freeze([
  { limit: 120, windowMs: 60_000 },
  { limit: 3000, windowMs: 24 * 60 * 60_000 },
]);

/**
 * Address search (spec 1, `svc.search_addresses`) through the deployment's AddressProvider, within the per-client
 * limits. The provider's refusals become CoreError `validation_failed` on the argument at fault, a provider that
 * cannot answer `address_search_unavailable`.
 */
export function addressSearch(
  provider: AddressProvider,
  limits: readonly RateLimit[] = ADDRESS_SEARCH_RATE_LIMITS,
) {
  const limiters = limits.map((rule) => createLocalRateLimiter(rule));
  return async (input: AddressSearchInput, now: number): Promise<AddressSuggestion[]> => {
    for (const limiter of limiters) {
      const rate = limiter.consume(input.clientKey, now);
      if (!rate.allowed) throw rateLimitedError(rate.retryAfterSeconds, "address searches");
    }
    try {
      return await provider.search({
        query: input.query,
        country_code: input.country_code ?? "US",
        ...(input.container === undefined ? {} : { container: input.container }),
        ...(input.limit === undefined ? {} : { limit: input.limit }),
      });
    } catch (error) {
      if (!AddressError.isInstance(error)) throw error;
      if (error.code === "provider_unavailable") throw addressSearchUnavailable(error);
      const path = error.field ?? "query";
      throw new CoreError("validation_failed", error.message, {
        issues: [{ path, code: error.code, message: error.message }],
      });
    }
  };
}

/** The failure of an address provider that cannot answer (a network service that is down): retry shortly. */
export function addressSearchUnavailable(cause: unknown): CoreError {
  return new CoreError("address_search_unavailable", "Address search is unavailable; try again shortly.", {
    retryAfterSeconds: 5,
    cause,
  });
}

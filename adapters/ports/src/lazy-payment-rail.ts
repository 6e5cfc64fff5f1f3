import type { PaymentRail } from "./payment-rail.ts";

/** What is known of a rail before its protocol library is loaded: enough to route requests and to warn at start. */
export interface PaymentRailInfo {
  readonly protocol: PaymentRail["protocol"];
  readonly simulated: boolean;
  readonly credentialHeader: string;
}

/** A rail that builds its implementation on first use; `loaded` tells whether that happened. */
export interface LazyPaymentRail extends PaymentRail {
  loaded(): boolean;
}

/**
 * A PaymentRail whose implementation `load` builds the first time a method needs it, so that a process that takes
 * no payment (it only validates and quotes, or pays on the other rail) never loads that protocol's libraries, which
 * are large. Every method waits for the load except `receiptHeaders`, which takes a settlement that this rail's
 * `settle` or `confirm` returned, so the rail is loaded by then. A load that fails fails the calls waiting for it and
 * is tried again by the next call. The loaded rail must state the same protocol, credential header and simulation
 * as `info`, or the calls fail with a TypeError (a configuration mistake, never a payment outcome).
 * `confirm` of a loaded rail without one answers `pending`.
 */
export function lazyPaymentRail(info: PaymentRailInfo, load: () => Promise<PaymentRail>): LazyPaymentRail {
  let rail: PaymentRail | undefined;
  let loading: Promise<PaymentRail> | undefined;
  const ready = (): Promise<PaymentRail> => {
    if (rail) return Promise.resolve(rail);
    loading ??= load().then(
      (built) => {
        for (const key of ["protocol", "simulated", "credentialHeader"] as const) {
          if (built[key] !== info[key]) {
            throw new TypeError(
              `the ${info.protocol} rail was declared with ${key} ${String(info[key])}, but it is ${String(built[key])}`,
            );
          }
        }
        rail = built;
        return built;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  return {
    protocol: info.protocol,
    simulated: info.simulated,
    credentialHeader: info.credentialHeader,
    loaded: () => rail !== undefined,
    challenge: async (charge, failure) => (await ready()).challenge(charge, failure),
    parseCredential: async (value) => (await ready()).parseCredential(value),
    readCredential: async (headers) => (await ready()).readCredential(headers),
    verify: async (credential, charge) => (await ready()).verify(credential, charge),
    settle: async (payment, charge) => (await ready()).settle(payment, charge),
    receiptHeaders(settlement) {
      if (!rail) {
        throw new TypeError(
          `receiptHeaders of the ${info.protocol} rail needs a settlement that this rail returned`,
        );
      }
      return rail.receiptHeaders(settlement);
    },
    async confirm(payment) {
      const built = await ready();
      return built.confirm ? built.confirm(payment) : { status: "pending" };
    },
  };
}

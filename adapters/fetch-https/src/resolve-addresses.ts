import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isIpLiteral } from "./allow-list.ts";
import type { DocumentTarget } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import { isPublicAddress } from "./ip-address.ts";

/** One resolved address of a host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; the fetcher calls it once per hop and connects only to what it returned. */
export type LookupFunction = (hostname: string) => Promise<ResolvedAddress[]>;

/** The operating system's resolver (`getaddrinfo`, so /etc/hosts applies), every address in resolver order. */
export const systemLookup: LookupFunction = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true });
  return answers.map(({ address }) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
};

/**
 * The addresses a hop may connect to: the host is resolved exactly once with `lookup` (an IP-literal host, which
 * only `privateHosts` admits, is its own address). Unless `allowPrivateAddresses` is set or the host is one of
 * `privateHosts`, every address must be public: one non-public answer refuses the whole host with
 * `address_not_public`, before any connection. No answer, a failing resolver or an answer that is not an IP address
 * is `connection_failed`.
 */
export async function resolveAddresses(
  target: DocumentTarget,
  lookup: LookupFunction,
  allowPrivateAddresses: boolean,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  const literal = isIpLiteral(target.hostname) ? target.hostname.replace(/^\[|\]$/g, "") : undefined;
  const answers = await abortable(
    literal === undefined
      ? lookup(target.hostname)
      : Promise.resolve<ResolvedAddress[]>([{ address: literal, family: isIP(literal) === 6 ? 6 : 4 }]),
    signal,
  ).catch((cause: unknown) => {
    if (signal.aborted) throw signal.reason;
    throw new FetchError("connection_failed", `${target.hostname} does not resolve`, {
      url: target.url.href,
      cause,
    });
  });
  if (!Array.isArray(answers) || answers.length === 0) {
    throw new FetchError("connection_failed", `${target.hostname} resolves to no address`, {
      url: target.url.href,
    });
  }
  const addresses = answers.map((answer): ResolvedAddress => {
    const address = typeof answer?.address === "string" ? answer.address : "";
    const family = isIP(address);
    if (family === 0) {
      throw new FetchError(
        "connection_failed",
        `${target.hostname} resolves to something that is not an address`,
        {
          url: target.url.href,
        },
      );
    }
    return { address, family: family === 6 ? 6 : 4 };
  });
  if (!allowPrivateAddresses && !target.private) {
    // The message reaches the client: it must not say which address a host has, only that it is refused.
    if (!addresses.every(({ address }) => isPublicAddress(address))) {
      throw new FetchError("address_not_public", `${target.hostname} does not resolve to a public address`, {
        url: target.url.href,
      });
    }
  }
  return addresses;
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

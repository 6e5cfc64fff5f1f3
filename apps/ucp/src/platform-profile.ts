import { RPC_DISCOVERY_FAILED, UcpError } from "./errors.ts";
import { CHECKOUT_CAPABILITY, UCP_VERSION } from "./protocol.ts";

/** What this business reads of a platform's profile: its UCP version and the capabilities it speaks. */
export interface PlatformProfile {
  version: string;
  capabilities: { name: string; version: string; extends?: string }[];
}

/** The `ucp` member of every answer: the version used and the capabilities active for this call. */
export interface UcpResponseMeta {
  version: string;
  capabilities: { name: string; version: string }[];
}

export interface ProfileResolverOptions {
  /** Fetches a profile URL under the deployment's rules for user-supplied URLs; rejects on any refusal. */
  fetch(url: string): Promise<Uint8Array>;
  /** How long a fetched profile is reused; default 5 minutes. */
  cacheMs?: number;
  /** How long a profile that could not be fetched or read is refused without asking again; default 30 s. */
  failureCacheMs?: number;
  /** Profiles kept at most (the oldest go first); default 1000. */
  maxEntries?: number;
  now?: () => number;
}

export interface ProfileResolver {
  /** The profile at `url` (the call's `_meta.ucp.profile`), fetched once per cache period; throws UcpError. */
  resolve(url: unknown): Promise<PlatformProfile>;
}

const MAX_URL_LENGTH = 2048;
const VERSION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Resolves platform profiles: the URL must be an absolute http(s) URL, the fetch goes through the deployment's safe
 * fetcher (which refuses private addresses, oversized and slow answers), and the JSON must name a UCP version and
 * capabilities. Answers and failures are cached; concurrent calls for one URL share one fetch.
 */
export function createProfileResolver(options: ProfileResolverOptions): ProfileResolver {
  const cacheMs = options.cacheMs ?? 5 * 60_000;
  const failureCacheMs = options.failureCacheMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 1000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { expires: number; outcome: PlatformProfile | UcpError }>();
  const inFlight = new Map<string, Promise<PlatformProfile | UcpError>>();

  const load = async (url: string): Promise<PlatformProfile | UcpError> => {
    let bytes: Uint8Array;
    try {
      bytes = await options.fetch(url);
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      const reason = typeof code === "string" && /^[a-z0-9_]+$/i.test(code) ? ` (${code})` : "";
      return discoveryError(
        "profile_unreachable",
        `The platform profile at _meta.ucp.profile could not be fetched${reason}. Profiles are fetched over HTTPS from public addresses.`,
      );
    }
    return readProfile(bytes);
  };

  return {
    async resolve(input) {
      const url = checkProfileUrl(input);
      const cached = cache.get(url);
      if (cached && cached.expires > now()) return unwrap(cached.outcome);
      let pending = inFlight.get(url);
      if (!pending) {
        pending = load(url).then((outcome) => {
          cache.delete(url);
          cache.set(url, {
            expires: now() + (UcpError.isInstance(outcome) ? failureCacheMs : cacheMs),
            outcome,
          });
          while (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
          return outcome;
        });
        inFlight.set(url, pending);
        pending.finally(() => inFlight.delete(url)).catch(() => {});
      }
      return unwrap(await pending);
    },
  };
}

function unwrap(outcome: PlatformProfile | UcpError): PlatformProfile {
  if (UcpError.isInstance(outcome)) throw outcome;
  return outcome;
}

function discoveryError(code: string, message: string): UcpError {
  return UcpError.one(code, message, { rpcCode: RPC_DISCOVERY_FAILED, path: "$._meta.ucp.profile" });
}

function checkProfileUrl(input: unknown): string {
  if (input === undefined || input === null || input === "") {
    throw discoveryError(
      "missing_profile",
      "Every call carries the platform's UCP profile URL in _meta.ucp.profile (the request's _meta, not the tool arguments).",
    );
  }
  let url: URL | undefined;
  try {
    url = typeof input === "string" && input.length <= MAX_URL_LENGTH ? new URL(input) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw discoveryError(
      "invalid_profile",
      `_meta.ucp.profile must be the absolute HTTPS URL of the platform's profile, at most ${MAX_URL_LENGTH} characters.`,
    );
  }
  url.hash = "";
  return url.href;
}

function readProfile(bytes: Uint8Array): PlatformProfile | UcpError {
  const invalid = (why: string) =>
    discoveryError(
      "invalid_profile",
      `The platform profile at _meta.ucp.profile is not a UCP profile: ${why}.`,
    );
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return invalid("it is not JSON");
  }
  const ucp = isObject(json) ? json.ucp : undefined;
  if (!isObject(ucp)) return invalid("it has no ucp object");
  if (typeof ucp.version !== "string" || !VERSION.test(ucp.version)) {
    return invalid("ucp.version is not a YYYY-MM-DD version");
  }
  if (!Array.isArray(ucp.capabilities) || ucp.capabilities.length > 500) {
    return invalid("ucp.capabilities is not a list of capabilities");
  }
  const capabilities: PlatformProfile["capabilities"] = [];
  for (const entry of ucp.capabilities) {
    if (!isObject(entry) || typeof entry.name !== "string" || typeof entry.version !== "string") {
      return invalid("every entry of ucp.capabilities needs a name and a version");
    }
    capabilities.push({
      name: entry.name,
      version: entry.version,
      ...(typeof entry.extends === "string" ? { extends: entry.extends } : {}),
    });
  }
  return { version: ucp.version, capabilities };
}

/**
 * Negotiation: a platform on this version or an older one is served (UCP_VERSION is the version used); a newer one
 * is refused with version_unsupported. The active capabilities are the business's that the platform also names;
 * without the checkout capability among them nothing can be done (capabilities_incompatible).
 */
export function negotiate(profile: PlatformProfile): UcpResponseMeta {
  if (profile.version > UCP_VERSION) {
    throw UcpError.one(
      "version_unsupported",
      `Version ${profile.version} is not supported; this business speaks UCP ${UCP_VERSION} and older.`,
      { severity: "requires_buyer_input", rpcCode: RPC_DISCOVERY_FAILED },
    );
  }
  if (!profile.capabilities.some((capability) => capability.name === CHECKOUT_CAPABILITY)) {
    throw UcpError.one(
      "capabilities_incompatible",
      `The platform profile does not list ${CHECKOUT_CAPABILITY}, the only capability this business offers.`,
      { rpcCode: RPC_DISCOVERY_FAILED },
    );
  }
  return { version: UCP_VERSION, capabilities: [{ name: CHECKOUT_CAPABILITY, version: UCP_VERSION }] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

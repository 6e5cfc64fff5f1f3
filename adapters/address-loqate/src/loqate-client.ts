import { AddressError } from "@mailpiece/ports";

/** Loqate's Capture Interactive Find, JSON answer (`json3`): suggestions for typed text, or inside a container. */
export const LOQATE_FIND_PATH = "/Capture/Interactive/Find/v1.10/json3.ws";
/** Loqate's Capture Interactive Retrieve, JSON answer (`json3`): the full address behind an `Address` suggestion. */
export const LOQATE_RETRIEVE_PATH = "/Capture/Interactive/Retrieve/v1.2/json3.ws";

export const LOQATE_DEFAULT_BASE_URL = "https://api.addressy.com";

export type LoqateService = "Find" | "Retrieve";

/** One item of a Loqate answer, with its fields as Loqate sent them. */
export type LoqateItem = Readonly<Record<string, unknown>>;

/**
 * What Loqate answered: its items, or the error item it answered instead (HTTP 200 with
 * `{"Items":[{"Error":"2","Description":"Unknown key",...}]}`). An error keeps only its number: Loqate's texts are
 * never put in a message.
 */
export type LoqateAnswer = { items: LoqateItem[] } | { error: LoqateError };

export interface LoqateError {
  /** Loqate's error number: -1 and 2 to 999 are common to every service, 1001 and up belong to one service. */
  code: number;
}

/**
 * Loqate's errors common to every web service, by number, in Mailpiece's own words. Each means that the service
 * cannot answer this account now (a key, credit, limit or service problem), never that nothing matched.
 */
export const LOQATE_GENERIC_ERRORS: Readonly<Record<number, string>> = Object.freeze({
  [-1]: "unknown error",
  2: "unknown key",
  3: "account out of credit",
  4: "request not allowed from this IP address",
  5: "request not allowed from this URL",
  6: "web service not available on this key",
  7: "web service not available on this plan",
  8: "key daily limit exceeded",
  9: "surge protector running",
  10: "surge protector triggered",
  11: "no valid licence available",
  12: "management key required",
  13: "demo limit exceeded",
  14: "free service limit exceeded",
  15: "wrong type of key",
  16: "key expired",
});

/** True for an error number that belongs to one service (Find's or Retrieve's own), from 1001 up. */
export function isServiceError(code: number): boolean {
  return code > 1000;
}

export interface LoqateClientOptions {
  apiKey: string;
  /** Checked by `checkBaseUrl`: an origin and optional path, without a trailing slash. */
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** Calls one Loqate service and reads its answer; every way of not getting a readable answer throws. */
export interface LoqateClient {
  call(service: LoqateService, params: Readonly<Record<string, string>>): Promise<LoqateAnswer>;
}

/**
 * The HTTP side of the adapter. The key travels only as the `Key` query parameter of a GET to the configured base
 * URL; redirects are refused, so it never travels further. A network failure, a timeout (one budget for the request
 * and its body), an HTTP status other than 2xx, a body over `maxResponseBytes` (read as a stream and dropped at the
 * first byte too many), a body that is not JSON or has no `Items` list: each throws `provider_unavailable` with a
 * message of Mailpiece's own and no cause, so that neither the URL (which holds the key) nor anything Loqate wrote
 * reaches a log.
 */
export function createLoqateClient(options: LoqateClientOptions): LoqateClient {
  const { apiKey, baseUrl, fetch, timeoutMs, maxResponseBytes } = options;
  return {
    async call(service, params) {
      const url = new URL(`${baseUrl}${service === "Find" ? LOQATE_FIND_PATH : LOQATE_RETRIEVE_PATH}`);
      url.searchParams.set("Key", apiKey);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);

      const signal = AbortSignal.timeout(timeoutMs);
      const failed = (reason: string) =>
        signal.aborted
          ? unavailable(service, `no answer within ${timeoutMs} ms`)
          : unavailable(service, reason);

      let response: Response;
      try {
        response = await fetch(url, {
          method: "GET",
          headers: { accept: "application/json" },
          redirect: "error",
          signal,
        });
      } catch {
        throw failed("the service cannot be reached");
      }
      if (response.status < 200 || response.status > 299) {
        await response.body?.cancel().catch(() => undefined);
        throw unavailable(service, `the service answered HTTP ${response.status}`);
      }

      let bytes: Uint8Array | undefined;
      try {
        bytes = await readAtMost(response, maxResponseBytes, signal);
      } catch {
        throw failed("the answer broke off");
      }
      if (bytes === undefined) throw unavailable(service, `the answer is over ${maxResponseBytes} bytes`);

      let body: unknown;
      try {
        body = JSON.parse(new TextDecoder().decode(bytes));
      } catch {
        throw unavailable(service, "the answer is not JSON");
      }
      const items = (body as { Items?: unknown } | null)?.Items;
      if (typeof body !== "object" || body === null || !Array.isArray(items)) {
        throw unavailable(service, "the answer has no Items list");
      }
      const records = items.filter(
        (item): item is LoqateItem => typeof item === "object" && item !== null && !Array.isArray(item),
      );
      const error = records.find((item) => Object.hasOwn(item, "Error"));
      if (error !== undefined) return { error: { code: errorNumber(error.Error) } };
      return { items: records };
    },
  };
}

/** `provider_unavailable` for a service, saying why in Mailpiece's words only. */
export function unavailable(service: LoqateService, reason: string): AddressError {
  return new AddressError("provider_unavailable", `Loqate ${service} cannot answer: ${reason}.`);
}

/** `provider_unavailable` for an error item Loqate answered, named by its number. */
export function refused(service: LoqateService, code: number): AddressError {
  const known = LOQATE_GENERIC_ERRORS[code];
  return unavailable(service, `Loqate answered error ${code}${known === undefined ? "" : ` (${known})`}`);
}

/** Loqate sends the error number as a string (`"2"`); anything that is not a whole number counts as -1, unknown. */
function errorNumber(value: unknown): number {
  const code =
    typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
  return Number.isInteger(code) ? code : -1;
}

/**
 * The body of a response, read chunk by chunk: undefined as soon as it grows past `max` bytes (a declared
 * Content-Length over `max` is refused before reading). The read also ends when `signal` aborts, even with a body
 * stream that does not watch the signal itself.
 */
async function readAtMost(
  response: Response,
  max: number,
  signal: AbortSignal,
): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (response.body === null) return new Uint8Array(0);
  const reader = response.body.getReader();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > max) return undefined;
      chunks.push(value);
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

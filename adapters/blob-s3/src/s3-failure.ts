import { PortError } from "@mailpiece/ports";

/** The fields of an AWS SDK error (or a Node system error under it) that say what went wrong. */
interface SdkFailure {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** Node's codes for a server that cannot be reached or dropped the connection. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
]);

const ACCESS_DENIED = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "InvalidToken",
  "ExpiredToken",
  "AuthorizationHeaderMalformed",
]);

/** The HTTP status of an SDK error, when the server answered. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as SdkFailure | undefined)?.$metadata?.httpStatusCode;
  return typeof status === "number" ? status : undefined;
}

/** The S3 error code (`NoSuchKey`, `PreconditionFailed`, …) or Node error code of a failure. */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { name, code } = error as SdkFailure;
  if (typeof code === "string") return code;
  return typeof name === "string" ? name : undefined;
}

/** True for the answer of S3 to a key that holds no object. */
export function isNotFound(error: unknown): boolean {
  const code = codeOf(error);
  return code === "NoSuchKey" || code === "NotFound" || (statusOf(error) === 404 && code !== "NoSuchBucket");
}

/**
 * Turns the failures of one store into `store_unavailable` PortErrors whose message and cause never hold the
 * credentials: the SDK's errors carry fields such as the access key id and the string that was signed, so only a
 * name and a scrubbed message are kept.
 */
export function failureReporter(tag: string, endpoint: string, secrets: readonly string[]) {
  const hidden = secrets.filter((secret) => secret.length >= 4);
  const scrub = (text: string): string => {
    let out = text;
    for (const secret of hidden) out = out.split(secret).join("[redacted]");
    return out;
  };

  const reasonOf = (error: unknown): string => {
    const failure = (typeof error === "object" && error !== null ? error : {}) as SdkFailure;
    const code = codeOf(error) ?? "Error";
    const status = statusOf(error);
    const message = typeof failure.message === "string" ? failure.message : String(error);
    const networkCode = [failure.code, failure.name].find(
      (value): value is string => typeof value === "string" && NETWORK_CODES.has(value),
    );
    if (networkCode !== undefined || code === "TimeoutError") {
      return `could not reach ${endpoint} (${networkCode ?? code})`;
    }
    if (ACCESS_DENIED.has(code) || status === 403) {
      return `access was denied (${code}${status ? `, HTTP ${status}` : ""}): check the credentials and the bucket's policy`;
    }
    if (code === "NoSuchBucket") return `the bucket does not exist (${code})`;
    return `${code}${status ? ` (HTTP ${status})` : ""}: ${message}`;
  };

  return {
    scrub,
    /** A `store_unavailable` PortError for a failed `action`; a PortError passes through unchanged. */
    error(action: string, cause: unknown): PortError {
      if (PortError.isInstance(cause)) return cause;
      const reason = scrub(reasonOf(cause));
      const kept = new Error(reason);
      kept.name = scrub(codeOf(cause) ?? "Error");
      return new PortError("store_unavailable", `${tag} could not ${action}: ${reason}`, { cause: kept });
    },
  };
}

export type FailureReporter = ReturnType<typeof failureReporter>;

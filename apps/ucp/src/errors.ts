/**
 * UCP errors. A refused call answers a JSON-RPC error whose `data` is the UCP error structure,
 * `{status: "error", errors: [{code, message, severity, path?, details?}]}`; `path` is a JSONPath into the call's
 * arguments (`$["svc.mailpiece"].recipient_address_id`).
 */

import { pathSegments } from "@mailpiece/orders";

/** What the platform can do about an error (UCP's message severities). */
export type Severity = "recoverable" | "requires_buyer_input" | "requires_buyer_review" | "unrecoverable";

export interface UcpErrorDetail {
  /** A stable, lower-case code: version_unsupported, missing_profile, unsupported_mailpiece, address_not_found... */
  code: string;
  message: string;
  severity: Severity;
  path?: string;
  details?: Record<string, unknown>;
}

/** JSON-RPC error codes: a refused request (invalid params), and a failed discovery or negotiation. */
export const RPC_INVALID_PARAMS = -32602;
export const RPC_DISCOVERY_FAILED = -32001;
export const RPC_UNAVAILABLE = -32603;

export class UcpError extends Error {
  override readonly name = "UcpError";
  readonly errors: readonly UcpErrorDetail[];
  readonly rpcCode: number;

  constructor(errors: readonly UcpErrorDetail[], rpcCode: number = RPC_INVALID_PARAMS) {
    super(errors.map((error) => error.message).join(" "));
    this.errors = errors;
    this.rpcCode = rpcCode;
  }

  static one(
    code: string,
    message: string,
    options: { severity?: Severity; path?: string; details?: Record<string, unknown>; rpcCode?: number } = {},
  ): UcpError {
    const { severity = "recoverable", rpcCode, path, details } = options;
    return new UcpError(
      [{ code, message, severity, ...(path === undefined ? {} : { path }), ...(details ? { details } : {}) }],
      rpcCode,
    );
  }

  static isInstance(value: unknown): value is UcpError {
    return value instanceof UcpError;
  }

  /** The `data` member of the JSON-RPC error. */
  get data(): { status: "error"; errors: UcpErrorDetail[] } {
    return { status: "error", errors: [...this.errors] };
  }
}

/**
 * A field path as the core names it (`recipient_address_id`, `pdf.upload_token`, `line_items[0].quantity`, `a.0.b`)
 * as a JSONPath under `root` (default `$`).
 */
export function jsonPath(path: string, root = "$"): string {
  let out = root;
  for (const segment of pathSegments(path)) {
    if (typeof segment === "number" || /^(0|[1-9]\d*)$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

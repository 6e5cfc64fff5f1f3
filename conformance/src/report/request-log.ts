import { AsyncLocalStorage } from "node:async_hooks";
import type { HttpTarget } from "../machine/http-target.ts";

/**
 * One request a test sent, as reports show it: the method, the path with secret-looking query values replaced,
 * the JSON-RPC method (and tool) for a JSON-RPC call, and the answer's status, or why no answer came. Headers and
 * bodies are never kept, so no credential or body secret can reach a report.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  /** `tools/call svc.ping` for a JSON-RPC request to an MCP endpoint. */
  rpc?: string;
  status?: number;
  /** Why the request got no answer (a refused connection, a timeout). */
  error?: string;
}

const current = new AsyncLocalStorage<RecordedRequest[]>();

/** Query parameters whose values are secrets or capabilities (signed links, tokens, keys). */
const SECRET_PARAMETER = /token|sig|secret|key|auth|pass|session|code|nonce|credential/i;
const REDACTED = "REDACTED";

/**
 * Runs `body`, appending to `requests` every request that a `recordingTarget` sends while it runs (also from calls
 * it starts), so the log is there when `body` throws.
 */
export function recordRequests<T>(requests: RecordedRequest[], body: () => Promise<T>): Promise<T> {
  return current.run(requests, body);
}

/**
 * A target that records each request it sends into the log of the test that sends it (see `recordRequests`), so a
 * report can name the request a failing test sent last. Outside `recordRequests` it records nothing.
 */
export function recordingTarget(target: HttpTarget): HttpTarget {
  return {
    label: target.label,
    async fetch(path, init) {
      const log = current.getStore();
      if (!log) return target.fetch(path, init);
      const entry: RecordedRequest = {
        method: (init?.method ?? "GET").toUpperCase(),
        path: redactPath(path),
      };
      const rpc = rpcOf(init?.body);
      if (rpc) entry.rpc = rpc;
      log.push(entry);
      try {
        const response = await target.fetch(path, init);
        entry.status = response.status;
        return response;
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
        throw error;
      }
    },
  };
}

/** A path segment that is a token: `upl_…`, `svc_test_…` and other prefixed random strings. */
const PREFIXED_TOKEN = /^((?:[A-Za-z]{2,10}_){1,3})[A-Za-z0-9_-]{12,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path segment as reports show it: a token keeps its prefix only; any other long opaque string is hidden. */
function redactSegment(segment: string): string {
  const prefixed = PREFIXED_TOKEN.exec(segment);
  if (prefixed) return `${prefixed[1]}${REDACTED}`;
  return segment.length >= 32 && !UUID.test(segment) ? REDACTED : segment;
}

/**
 * `path` as reports show it: path segments that are tokens (an upload slot's, a signed link's) and the values of
 * secret-looking query parameters replaced by REDACTED.
 */
export function redactPath(path: string): string {
  const at = path.indexOf("?");
  const pathname = (at < 0 ? path : path.slice(0, at)).split("/").map(redactSegment).join("/");
  if (at < 0) return pathname;
  const query = new URLSearchParams(path.slice(at + 1));
  const shown = [...query].map(
    ([name, value]) =>
      `${encodeURIComponent(name)}=${SECRET_PARAMETER.test(name) ? REDACTED : encodeURIComponent(value)}`,
  );
  return `${pathname}?${shown.join("&")}`;
}

/** The JSON-RPC method of a request body, with the tool's name for `tools/call`; nothing else of the body. */
function rpcOf(body: RequestInit["body"] | undefined): string | undefined {
  if (typeof body !== "string" || !body.includes('"jsonrpc"')) return undefined;
  try {
    const calls = ([] as unknown[]).concat(JSON.parse(body));
    const named = calls.map((call) => {
      const { method, params } = (call ?? {}) as { method?: unknown; params?: { name?: unknown } };
      if (typeof method !== "string") return undefined;
      return method === "tools/call" && typeof params?.name === "string"
        ? `${method} ${params.name}`
        : method;
    });
    const shown = named.filter((name): name is string => name !== undefined);
    return shown.length > 0 ? shown.join(", ") : undefined;
  } catch {
    return undefined;
  }
}

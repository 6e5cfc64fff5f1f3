import type { HttpTarget } from "../machine/http-target.ts";

export type Json = Record<string, unknown>;

/** One answer of the target, read whole. */
export interface Answer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
  /** The body parsed as JSON, when it is a JSON object; undefined otherwise. */
  json: Json | undefined;
}

export interface RequestOptions {
  method?: string;
  /** Sent as it is when a string or bytes, as JSON (with its content type) otherwise. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The bearer key of this request: the client's by default, null for none. */
  key?: string | null;
}

/** The longest wait a 429 may ask for before the request is sent again (the limits are per minute). */
const MAX_RETRY_AFTER_SECONDS = 65;
/** How many times one request waits out a 429. */
const MAX_RATE_LIMIT_RETRIES = 2;

/** Reads a response whole: bytes, text and, when the body is a JSON object, the object. */
export async function readAnswer(response: Response): Promise<Answer> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let json: Json | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    json =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, text, json };
}

/** A client of the Projects API and the test-mode drafts on one target, with an optional bearer key. */
export interface V1Client {
  /** Sends one request to `path` (starting with "/") on the target and reads the answer. */
  send(path: string, options?: RequestOptions): Promise<Answer>;
  /**
   * Sends a request to a URL the API answered (an upload URL, a preview link): through the target when its path is
   * one of the deployment's (/api/v1/... or /v1/test/...), directly otherwise (storage of another host).
   */
  sendToUrl(url: string, init?: RequestInit): Promise<Answer>;
}

export function v1Client(target: HttpTarget, apiKey: string | undefined): V1Client {
  const send = async (path: string, options: RequestOptions = {}): Promise<Answer> => {
    const key = options.key === undefined ? apiKey : options.key;
    const headers: Record<string, string> = { ...options.headers };
    if (key !== null && key !== undefined) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined;
    if (typeof options.body === "string" || options.body instanceof Uint8Array) body = options.body;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const init: RequestInit = {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      ...(body === undefined ? {} : { body }),
    };
    let answer = await readAnswer(await target.fetch(path, init));
    // A refused request changed nothing: once the limit's window has moved on, the same request is sent again.
    for (let retry = 0; answer.status === 429 && retry < MAX_RATE_LIMIT_RETRIES; retry++) {
      const wait = Number(answer.headers.get("retry-after"));
      if (!Number.isFinite(wait) || wait < 0 || wait > MAX_RETRY_AFTER_SECONDS) break;
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      answer = await readAnswer(await target.fetch(path, init));
    }
    return answer;
  };

  const sendToUrl = async (url: string, init: RequestInit = {}): Promise<Answer> => {
    const parsed = new URL(url);
    if (parsed.pathname.startsWith("/api/v1/") || parsed.pathname.startsWith("/v1/test/")) {
      return readAnswer(await target.fetch(`${parsed.pathname}${parsed.search}`, init));
    }
    return readAnswer(await fetch(parsed, init));
  };

  return { send, sendToUrl };
}

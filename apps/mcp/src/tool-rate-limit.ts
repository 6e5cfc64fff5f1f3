/**
 * A tool call refused by one of the core's per-client limits (spec 1: address search, unpaid order creation) is a
 * JSON-RPC error carrying `data.error: "rate_limited"` and the seconds to wait; over HTTP it is answered with 429 and
 * Retry-After, as the request budget of /mcp is, rather than a 200 whose stream holds the error.
 */
export const RATE_LIMITED = "rate_limited";

/** The JSON-RPC error code of a rate-limited call: implementation-defined server error range. */
export const RATE_LIMITED_RPC_CODE = -32029;

/** Whether a parsed JSON-RPC body is one tools/call request (the only calls that reach the core's limits). */
export function isToolCall(body: unknown): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === "tools/call" &&
    (body as { id?: unknown }).id !== undefined
  );
}

/**
 * The transport's answer to a tools/call, with a rate-limited call turned into 429 + Retry-After and the JSON-RPC
 * error as a JSON body. The first event of the stream is read to decide; everything read is passed on unchanged
 * otherwise. A JSON answer (not a stream) is inspected the same way.
 */
export async function surfaceRateLimit(response: Response): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (!response.body || response.status !== 200) return response;
  if (type.includes("application/json")) {
    const text = await response.text();
    return (
      rateLimitedAnswer(text) ?? new Response(text, { status: response.status, headers: response.headers })
    );
  }
  if (!type.includes("text/event-stream")) return response;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const read: Uint8Array[] = [];
  let text = "";
  while (!/\r?\n\r?\n/.test(text)) {
    const next = await reader.read();
    if (next.done) break;
    read.push(next.value);
    text += decoder.decode(next.value, { stream: true });
  }
  const limited = rateLimitedAnswer(firstEventData(text));
  if (limited) {
    await reader.cancel().catch(() => {});
    return limited;
  }
  const replay = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of read) controller.enqueue(chunk);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(replay, { status: response.status, headers: response.headers });
}

/** The data of the first server-sent event in `text` (its `data:` lines joined). */
function firstEventData(text: string): string {
  const event = text.split(/\r?\n\r?\n/, 1)[0] ?? "";
  return event
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""))
    .join("\n");
}

function rateLimitedAnswer(data: string): Response | undefined {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return undefined;
  }
  const error = (message as { error?: { data?: { error?: unknown; retry_after_seconds?: unknown } } })?.error;
  if (error?.data?.error !== RATE_LIMITED) return undefined;
  const seconds = Number(error.data.retry_after_seconds);
  return Response.json(message, {
    status: 429,
    headers: { "retry-after": String(Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 1) },
  });
}

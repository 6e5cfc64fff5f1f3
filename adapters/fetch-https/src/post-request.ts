import type { Socket } from "node:net";
import type { DocumentTarget } from "./document-url.ts";
import { exchange } from "./exchange.ts";

/** What a POST got back: the status, and how much of the answer's body was read before it was dropped. */
export interface PostAnswer {
  /** The HTTP status, whatever it is: 3xx answers are returned, never followed. */
  status: number;
  /** Bytes of the answer's body read (and thrown away). */
  bytesRead: number;
  /** True when the body was cut off: longer than the cap, broken, or still coming at the deadline. */
  truncated: boolean;
}

/**
 * Sends one `POST` with `body` and `headers` over an established socket and answers its status. The answer's body
 * is read and thrown away, at most `maxResponseBytes` of it: past that, or when it breaks, or when the deadline
 * comes while it is still arriving, the connection is closed and the status stands. No answer at all is
 * `connection_failed` (or the deadline's `timeout`). The socket is always closed when the exchange is over.
 */
export function requestPost(
  socket: Socket,
  target: DocumentTarget,
  request: { headers: Readonly<Record<string, string>>; body: Buffer; maxResponseBytes: number },
  signal: AbortSignal,
): Promise<PostAnswer> {
  const outgoing = { method: "POST" as const, headers: request.headers, body: request.body };
  return exchange<PostAnswer>(socket, target, outgoing, signal, (response, settle) => {
    const status = response.statusCode ?? 0;
    let bytesRead = 0;
    const done = (truncated: boolean) => settle.finish({ status, bytesRead, truncated });
    settle.onAbort = () => done(true);
    response.on("data", (chunk: Buffer) => {
      if (settle.settled) return;
      bytesRead = Math.min(bytesRead + chunk.length, request.maxResponseBytes);
      if (bytesRead >= request.maxResponseBytes) done(true);
    });
    response.on("end", () => done(!response.complete));
    response.on("error", () => done(true));
    response.on("close", () => done(true));
  });
}

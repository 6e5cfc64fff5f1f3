import type { IncomingMessage } from "node:http";
import { request } from "node:http";
import type { Socket } from "node:net";
import type { DocumentTarget } from "./document-url.ts";
import { FetchError } from "./errors.ts";

/** One request to send over an established socket: its method, its headers (besides `Host`) and its body. */
export interface ExchangeRequest {
  method: "GET" | "POST";
  headers: Readonly<Record<string, string>>;
  body?: Buffer;
}

/** How a response handler ends the exchange. */
export interface Settle<T> {
  /** Ends it with this outcome. */
  finish(outcome: T): void;
  /** Ends it with this error. */
  fail(error: unknown): void;
  /** Ends it with `connection_failed`: the connection broke before the answer was complete. */
  broken(cause?: unknown): void;
  /** True once the exchange has ended. */
  readonly settled: boolean;
  /**
   * What the deadline does once the answer has begun; by default it fails the exchange with the signal's reason.
   * A handler that already has what it needs (a status) sets this to finish with it instead.
   */
  onAbort: (() => void) | undefined;
}

/**
 * Sends one request over an established socket (TLS, or plain TCP for an http target) with the URL's host as
 * `Host`, and hands the response to `onResponse`, which ends the exchange through `settle`. An error or a close
 * before any answer is `connection_failed`; the signal's abort ends it with its reason. The socket is always
 * closed when the exchange is over.
 */
export function exchange<T>(
  socket: Socket,
  target: DocumentTarget,
  outgoingRequest: ExchangeRequest,
  signal: AbortSignal,
  onResponse: (response: IncomingMessage, settle: Settle<T>) => void,
): Promise<T> {
  if (signal.aborted) {
    socket.destroy();
    return Promise.reject(signal.reason);
  }
  const url = target.url.href;
  return new Promise<T>((resolve, reject) => {
    let answered = false;
    let over = false;
    const end = (done: () => void) => {
      if (over) return;
      over = true;
      signal.removeEventListener("abort", onAbort);
      outgoing.destroy();
      socket.destroy();
      done();
    };
    const settle: Settle<T> = {
      get settled() {
        return over;
      },
      onAbort: undefined,
      finish: (outcome) => end(() => resolve(outcome)),
      fail: (error) => end(() => reject(signal.aborted ? signal.reason : error)),
      broken: (cause) =>
        settle.fail(
          new FetchError("connection_failed", "the connection broke before the answer was complete", {
            url,
            cause,
          }),
        ),
    };
    const onAbort = () => (settle.onAbort ?? (() => settle.fail(signal.reason)))();

    const outgoing = request({
      createConnection: () => socket,
      method: outgoingRequest.method,
      path: `${target.url.pathname}${target.url.search}`,
      setHost: false,
      headers: {
        host:
          target.port === (target.secure ? 443 : 80) ? target.hostname : `${target.hostname}:${target.port}`,
        ...outgoingRequest.headers,
      },
    });
    signal.addEventListener("abort", onAbort, { once: true });
    outgoing.on("error", settle.broken);
    outgoing.on("close", () => {
      if (!answered) settle.broken();
    });
    outgoing.on("response", (response) => {
      answered = true;
      onResponse(response, settle);
    });
    outgoing.end(outgoingRequest.body);
  });
}

import type { Socket } from "node:net";
import type { DocumentTarget } from "./document-url.ts";
import { FetchError } from "./errors.ts";
import { exchange } from "./exchange.ts";

/**
 * The headers of every request: no cookies, no authorization, nothing from the caller. `accept` is the default;
 * a fetcher created with another `accept` sends that instead.
 */
export const REQUEST_HEADERS: Readonly<Record<string, string>> = {
  accept: "application/pdf",
  "accept-encoding": "identity",
  "user-agent": "Mailpiece-Fetch/0.1",
  connection: "close",
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What one hop answered: a document, or where to go next. */
export type HopOutcome =
  | { kind: "document"; bytes: Uint8Array; contentType: string | null }
  | { kind: "redirect"; location: string };

/**
 * Sends one `GET` over an established socket (TLS, or plain TCP for an http target) and reads the answer, with
 * `accept` as the Accept header. 301, 302, 303, 307 and 308 with a `Location` are redirects; any other non-2xx is
 * `http_status`. A 2xx body is refused with `too_large` when its
 * `Content-Length` exceeds `maxBytes`, and otherwise streamed and cut off (connection closed) as soon as it passes
 * `maxBytes`. A body that ends early is `connection_failed`. The socket is always closed when the hop is over.
 */
export function requestDocument(
  socket: Socket,
  target: DocumentTarget,
  limits: { maxBytes: number; accept: string },
  signal: AbortSignal,
): Promise<HopOutcome> {
  const { maxBytes, accept } = limits;
  const url = target.url.href;
  const request = { method: "GET" as const, headers: { ...REQUEST_HEADERS, accept } };
  return exchange<HopOutcome>(socket, target, request, signal, (response, settle) => {
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(status) && location !== undefined && location !== "") {
      settle.finish({ kind: "redirect", location });
      return;
    }
    if (status < 200 || status > 299) {
      settle.fail(new FetchError("http_status", `the server answered ${status}`, { status, url }));
      return;
    }
    const declared = response.headers["content-length"];
    if (declared !== undefined && Number(declared) > maxBytes) {
      settle.fail(
        new FetchError("too_large", `the document is ${declared} bytes, more than ${maxBytes}`, { url }),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    response.on("data", (chunk: Buffer) => {
      if (settle.settled) return;
      received += chunk.length;
      if (received > maxBytes) {
        settle.fail(new FetchError("too_large", `the document is more than ${maxBytes} bytes`, { url }));
        return;
      }
      chunks.push(chunk);
    });
    response.on("end", () => {
      if (!response.complete) {
        settle.broken();
        return;
      }
      const bytes = new Uint8Array(received);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.length;
      }
      const contentType = response.headers["content-type"];
      settle.finish({ kind: "document", bytes, contentType: contentType ?? null });
    });
    response.on("error", settle.broken);
    response.on("close", () => settle.broken());
  });
}

import { once } from "node:events";
import { createConnection, type Socket } from "node:net";
import { letterOrder } from "@mailpiece/conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";
import type { RunningServer } from "./start.ts";
import { startServer } from "./start.ts";

/**
 * Request bodies as a Node server receives them: a declared length arriving in pieces, a connection that ends
 * before its body, a chunked body. The JSON reader takes the body straight from the Node request when its length
 * is declared; each case must give the answer a one-piece body gets, or a clean refusal that harms no one else.
 */
let running: RunningServer;
let port: number;

beforeAll(async () => {
  running = await startServer(
    loadConfig({ PORT: "0", HOST: "127.0.0.1", STORE: "memory", LOG_LEVEL: "silent", PDF_WORKERS: "0" }),
  );
  port = Number(new URL(running.url).port);
}, 60_000);
afterAll(async () => {
  await running.close();
});

const PATH = "/api/machine/orders/validate";

/** Writes the request in the given pieces, one event-loop turn apart, and resolves with everything the server sent. */
async function exchange(pieces: (string | Buffer)[], options: { end?: boolean } = {}): Promise<string> {
  const socket: Socket = createConnection({ host: "127.0.0.1", port });
  await once(socket, "connect");
  // The server may answer and close while pieces are still being written (a refusal needs no more of the body).
  const closed = once(socket, "close");
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  for (const piece of pieces) {
    socket.write(piece);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (options.end) socket.end();
  await closed;
  return Buffer.concat(received).toString("utf8");
}

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
function bodyOf(response: string): { valid?: boolean; error?: string } {
  const split = response.indexOf("\r\n\r\n");
  let body = response.slice(split + 4);
  if (/^transfer-encoding:\s*chunked/im.test(response.slice(0, split))) {
    let text = "";
    for (;;) {
      const line = body.indexOf("\r\n");
      const size = Number.parseInt(body.slice(0, line), 16);
      if (!size) break;
      text += body.slice(line + 2, line + 2 + size);
      body = body.slice(line + 2 + size + 2);
    }
    body = text;
  }
  return JSON.parse(body);
}

function head(length: number | "chunked"): string {
  return [
    `POST ${PATH} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    "Connection: close",
    length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`,
    "",
    "",
  ].join("\r\n");
}

describe("request bodies over a socket", () => {
  it("a declared length that arrives in many pieces reads as the whole body", async () => {
    const order = letterOrder();
    const body = Buffer.from(JSON.stringify(order));
    const whole = await fetch(`${running.url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(whole.status).toBe(200);
    const pieces: Buffer[] = [];
    // Pieces cut through multi-byte characters too (the order carries "Zoë Łukasz-Müller").
    for (let at = 0; at < body.length; at += 7) pieces.push(body.subarray(at, at + 7));
    const response = await exchange([head(body.length), ...pieces]);
    expect(statusOf(response)).toBe(200);
    // The same answer, but for the preview link's expiry, which is rounded to a window the two requests may straddle.
    const withoutExpiry = (view: Record<string, unknown>) => ({
      ...view,
      preview_url: String(view.preview_url).split("?")[0],
    });
    expect(withoutExpiry(bodyOf(response))).toEqual(
      withoutExpiry((await whole.json()) as Record<string, unknown>),
    );
  });

  it("a connection that ends before its declared body gets no answer and leaves the server serving", async () => {
    const body = JSON.stringify(letterOrder());
    const response = await exchange([head(body.length + 100), body], { end: true });
    expect(response === "" || statusOf(response) === 400).toBe(true);
    const after = await fetch(`${running.url}${PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(letterOrder()),
    });
    expect(after.status).toBe(200);
  });

  it("a chunked body reads as the same order", async () => {
    const body = JSON.stringify(letterOrder());
    const half = Math.floor(body.length / 2);
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    const response = await exchange([
      head("chunked"),
      chunk(body.slice(0, half)),
      chunk(body.slice(half)),
      "0\r\n\r\n",
    ]);
    expect(statusOf(response)).toBe(200);
    expect(bodyOf(response).valid).toBe(true);
  });

  it("a body that is not JSON is refused with invalid_json, whichever way it arrives", async () => {
    const body = '{"request_id": ';
    const declared = await exchange([head(body.length), body]);
    expect(statusOf(declared)).toBe(400);
    expect(bodyOf(declared).error).toBe("invalid_json");
    const chunked = await exchange([head("chunked"), `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`]);
    expect(statusOf(chunked)).toBe(400);
    expect(bodyOf(chunked).error).toBe("invalid_json");
  });
});

import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LOQATE_FIND_PATH, LOQATE_RETRIEVE_PATH } from "./loqate-client.ts";

/** The key the replay server accepts; any other is answered with Loqate's "Unknown key" error. */
export const REPLAY_KEY = "RP11-QW22-ZX33-LK44";

/** One recorded exchange: the service, the query parameters that select it, and the file of Loqate's answer. */
export interface Recording {
  service: "Find" | "Retrieve";
  /** Text is matched after trimming, folding spaces and ignoring case, as Loqate does; other parameters exactly. */
  params: Readonly<Record<string, string>>;
  /** Under src/recorded/. */
  file: string;
}

/**
 * Loqate's answers in the shapes of Find v1.10 and Retrieve v1.2 (json3). Find answers by Text and Countries, or by
 * Container; Retrieve by Id. What no recording selects is answered as Loqate answers it: Find with no items,
 * Retrieve with error 1001 "Id Invalid".
 */
export const RECORDINGS: readonly Recording[] = [
  {
    service: "Find",
    params: { Text: "11 Madison Ave", Countries: "US" },
    file: "find/us-11-madison-ave.json",
  },
  {
    service: "Find",
    params: { Text: "Madison Ave New York", Countries: "US" },
    file: "find/us-madison-ave-new-york.json",
  },
  {
    service: "Find",
    params: { Container: "US|US|B|V119112259", Countries: "US" },
    file: "find/us-in-building-11-madison-ave.json",
  },
  {
    service: "Find",
    params: { Container: "US|US|ST|Z10010|MADISON_AVE", Countries: "US" },
    file: "find/us-in-street-madison-ave-10010.json",
  },
  {
    service: "Find",
    params: { Container: "US|US|ST|Z10016|MADISON_AVE", Countries: "US" },
    file: "find/us-in-street-madison-ave-10016.json",
  },
  {
    service: "Find",
    params: { Container: "US|US|B|V161600200", Countries: "US" },
    file: "find/us-in-building-200-madison-ave.json",
  },
  {
    service: "Find",
    params: { Text: "29 Span Meadow", Countries: "GB" },
    file: "find/gb-29-span-meadow.json",
  },
  { service: "Find", params: { Text: "TF5 0NE", Countries: "GB" }, file: "find/gb-tf5-0ne.json" },
  {
    service: "Find",
    params: { Container: "GB|RM|ENG|0NE-TF5", Countries: "GB" },
    file: "find/gb-in-postcode-tf5-0ne.json",
  },
  ...(
    [
      ["US|US|A|V119112259|1B", "us-11-madison-ave-bsmt-1b"],
      ["US|US|A|V119112259|F2", "us-11-madison-ave-fl-2"],
      ["US|US|A|V119112259|F3", "us-11-madison-ave-fl-3"],
      ["US|US|A|V119100001", "us-1-madison-ave"],
      ["US|US|A|V161600200|5", "us-200-madison-ave-fl-5"],
      ["US|US|A|V161600200|6", "us-200-madison-ave-fl-6"],
      ["US|US|A|U542207731", "us-11-madison-ave-morristown"],
      ["GB|RM|A|24522142", "gb-29-span-meadow"],
      ["GB|RM|A|24522143", "gb-30-span-meadow"],
      ["GB|RM|B|24522150", "gb-flat-2-meadow-house"],
      ["CA|CP|B|3106452", "ca-290-bremner-blvd"],
    ] as const
  ).map(([Id, name]): Recording => ({ service: "Retrieve", params: { Id }, file: `retrieve/${name}.json` })),
];

/** A recorded answer body, as text: `recorded("errors/unknown-key.json")`. */
export function recorded(file: string): string {
  return readFileSync(new URL(`./recorded/${file}`, import.meta.url), "utf8");
}

/** What the replay server received: the service asked, every query parameter, and the headers. */
export interface ReplayRequest {
  service: "Find" | "Retrieve" | undefined;
  method: string;
  path: string;
  params: Record<string, string>;
  headers: IncomingHttpHeaders;
}

/** An answer a test makes the server give instead of the recorded one. */
export type ReplayReply =
  | { status?: number; headers?: Record<string, string>; body: string | Uint8Array }
  /** Accepts the request and never answers. */
  | { hang: true }
  /** Sends 16 KiB chunks without a Content-Length until the client goes away. */
  | { endless: true }
  /** Sends the start of a body without a Content-Length, then nothing more. */
  | { stall: string };

export interface ReplayServer {
  /** `http://127.0.0.1:<port>`: the base URL to give the adapter. */
  url: string;
  /** Every request received, in order. */
  requests: ReplayRequest[];
  /** Answers the requests that `reply` returns a reply for; the others get their recording. */
  override(reply: ((request: ReplayRequest) => ReplayReply | undefined) | undefined): void;
  close(): Promise<void>;
}

const normalText = (text: string) => text.trim().replace(/\s+/g, " ").toLowerCase();

/** The recording a request selects, if any. */
export function selectRecording(request: ReplayRequest): Recording | undefined {
  return RECORDINGS.find(
    (recording) =>
      recording.service === request.service &&
      Object.entries(recording.params).every(([name, value]) => {
        const sent = request.params[name];
        if (sent === undefined) return false;
        return name === "Text" ? normalText(sent) === normalText(value) : sent === value;
      }) &&
      (recording.params.Container !== undefined || request.params.Container === undefined),
  );
}

/**
 * A stand-in for api.addressy.com on 127.0.0.1 (port 0) that answers from the recordings. It checks the key as
 * Loqate does, applies Find's Limit to the recorded items, and records every request it got.
 */
export async function startReplayServer(): Promise<ReplayServer> {
  const requests: ReplayRequest[] = [];
  let override: ((request: ReplayRequest) => ReplayReply | undefined) | undefined;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const service =
      url.pathname === LOQATE_FIND_PATH
        ? "Find"
        : url.pathname === LOQATE_RETRIEVE_PATH
          ? "Retrieve"
          : undefined;
    const request: ReplayRequest = {
      service,
      method: req.method ?? "",
      path: url.pathname,
      params: Object.fromEntries(url.searchParams),
      headers: req.headers,
    };
    requests.push(request);
    const reply = override?.(request) ?? recordedReply(request);
    if ("hang" in reply) return;
    if ("endless" in reply) return sendEndless(res);
    if ("stall" in reply) {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.write(reply.stall);
      return;
    }
    res.writeHead(reply.status ?? 200, {
      "content-type": "application/json; charset=utf-8",
      ...reply.headers,
    });
    res.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    override(reply) {
      override = reply;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function recordedReply(request: ReplayRequest): ReplayReply {
  if (request.service === undefined || request.method !== "GET") {
    return { status: 404, headers: { "content-type": "text/html" }, body: "<h1>Not Found</h1>" };
  }
  if (request.params.Key !== REPLAY_KEY) return { body: recorded("errors/unknown-key.json") };
  const recording = selectRecording(request);
  if (recording === undefined) {
    return {
      body: request.service === "Find" ? '{"Items":[]}' : recorded("errors/retrieve-id-invalid.json"),
    };
  }
  const body = recorded(recording.file);
  const limit = Number(request.params.Limit);
  if (request.service !== "Find" || !Number.isInteger(limit) || limit < 1) return { body };
  const answer = JSON.parse(body) as { Items: unknown[] };
  return { body: JSON.stringify({ Items: answer.Items.slice(0, limit) }) };
}

function sendEndless(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
  const chunk = Buffer.alloc(16 * 1024, " ");
  res.write('{"Items":[');
  const more = () => {
    if (res.destroyed || res.writableEnded) return;
    if (res.write(chunk)) setImmediate(more);
    else res.once("drain", more);
  };
  res.on("close", () => res.destroy());
  more();
}

/** A base URL on 127.0.0.1 where nothing listens: a port taken and released again. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

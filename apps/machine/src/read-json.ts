import { MAX_PDF_BYTES } from "@mailpiece/orders";
import type { H3Event } from "h3";
import { assertBodySize, HTTPError } from "h3";
import type { BodyLease } from "./body-budget.ts";
import { MachineError } from "./errors.ts";

/** Largest JSON body of a flower letter, in bytes. */
export const FLOWER_BODY_BYTES = 256 * 1024;
/** Largest JSON body that opens an upload slot, in bytes. */
export const UPLOAD_SLOT_BODY_BYTES = 64 * 1024;

/** A JSON body: the parsed value, and the bytes as received (a paid retry must repeat them exactly). */
export interface JsonBody {
  value: unknown;
  raw: Uint8Array;
}

const utf8 = new TextDecoder();

/**
 * Reads a JSON request body. Throws MachineError: 415 unless the content type is JSON, 413 past `limitBytes` (h3
 * refuses a declared length past it before reading, and cuts off a body that passes it while streaming), 503 when
 * the shared body budget cannot hold it, 400 when it does not parse.
 */
export async function readJsonBody(event: H3Event, limitBytes: number, lease?: BodyLease): Promise<JsonBody> {
  const type = mediaType(event);
  if (type !== "application/json" && !(type.startsWith("application/") && type.endsWith("+json"))) {
    throw new MachineError(
      "unsupported_media_type",
      `Send the order as JSON with Content-Type: application/json${type ? `, not ${type}` : ""}.`,
    );
  }
  const malformed = (why: string) => new MachineError("invalid_json", `The body cannot be read: ${why}.`);
  const raw =
    (await readDeclaredFromNode(event, limitBytes, lease, malformed)) ??
    (await readOrRefuse(
      event,
      limitBytes,
      lease,
      async (request) => new Uint8Array(await request.arrayBuffer()),
      () => jsonTooLarge(limitBytes),
      malformed,
    ));
  try {
    return { value: JSON.parse(utf8.decode(raw)), raw };
  } catch (error) {
    throw new MachineError("invalid_json", `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * On Node, a body of declared length (within the limit) is read straight from the Node request: its chunks are
 * joined once, with no web stream or Request object built around them (which costs more than the rest of a small
 * request). Undefined when that path does not apply (another runtime, no declared length, a body already touched),
 * and the caller reads the web request instead.
 */
async function readDeclaredFromNode(
  event: H3Event,
  limitBytes: number,
  lease: BodyLease | undefined,
  malformed: (why: string) => MachineError,
): Promise<Uint8Array | undefined> {
  const node = event.runtime?.node?.req;
  const headers = event.req.headers;
  const declared = Number(headers.get("content-length") ?? Number.NaN);
  if (!node || event.req.bodyUsed || headers.has("transfer-encoding")) return undefined;
  if (!Number.isInteger(declared) || declared < 0 || declared > limitBytes) return undefined;
  if (lease && !lease.reserve(declared)) throw busy();
  if (node.readableEnded) return new Uint8Array(0);
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (error?: MachineError) => {
      node.off("data", onData);
      node.off("end", onEnd);
      node.off("error", onError);
      node.off("close", onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      // The HTTP parser delivers exactly the declared length; anything else is not this request's body.
      if (total > declared) done(malformed("it is longer than its Content-Length"));
      else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onError = (error: Error) => done(malformed(error.message));
    const onClose = () => {
      if (!node.readableEnded) done(malformed("the connection closed before the body arrived"));
    };
    node.on("data", onData);
    node.on("end", onEnd);
    node.on("error", onError);
    node.on("close", onClose);
  });
}

/** The file of an upload: its name and bytes. */
export interface UploadedFile {
  name: string;
  bytes: Uint8Array;
}

const FILE_FIELDS = ["file", "pdf", "pdfFile"] as const;

/** Room for the multipart framing (boundaries, part headers) around the file itself. */
const MULTIPART_FRAMING_BYTES = 64 * 1024;

const megabytes = (bytes: number) => Math.floor(bytes / (1024 * 1024));

/**
 * Reads one file from a multipart/form-data body (field `file`, or its aliases `pdf` and `pdfFile`) of at most
 * `maxFileBytes`, within the shared body budget. Throws MachineError: 413, 503, 400 for an unreadable form, 422 when
 * no field holds a file.
 */
export async function readUploadedFile(
  event: H3Event,
  maxFileBytes: number,
  lease?: BodyLease,
): Promise<UploadedFile> {
  const form = await readOrRefuse(
    event,
    maxFileBytes + MULTIPART_FRAMING_BYTES,
    lease,
    (request) => request.formData(),
    () =>
      new MachineError(
        "payload_too_large",
        `The file is larger than ${megabytes(maxFileBytes)} MB, the largest PDF that prints.`,
      ),
    (why) => new MachineError("invalid_multipart", `The body is not valid multipart/form-data: ${why}.`),
  );
  for (const field of FILE_FIELDS) {
    const value = form.get(field);
    if (value && typeof value !== "string") {
      return { name: value.name || "document.pdf", bytes: new Uint8Array(await value.arrayBuffer()) };
    }
  }
  throw new MachineError("validation_failed", "No file in the form.", {
    issues: [
      {
        path: "file",
        code: "required",
        message: "Send the PDF in the multipart field `file` (or `pdf`, `pdfFile`).",
      },
    ],
  });
}

/** The media type of the request, lower-cased, without parameters; "" when absent. */
export function mediaType(event: H3Event): string {
  return (event.req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Reads the body with `read` from a request whose body h3 limits to `limitBytes` (cutting off a body that passes it
 * while streaming) and whose bytes count against the shared body budget: a declared length is reserved before
 * anything is read, and the bytes read so far as they stream, so a request that does not fit is turned away (503)
 * without reading the rest. A body that cannot be read is `malformed` (400).
 */
async function readOrRefuse<T>(
  event: H3Event,
  limitBytes: number,
  lease: BodyLease | undefined,
  read: (request: Request) => Promise<T>,
  tooLarge: () => MachineError,
  malformed: (why: string) => MachineError,
): Promise<T> {
  const declared = Number(event.req.headers.get("content-length") ?? Number.NaN);
  // A declared length past the limit is refused before the body is touched: cancelling the body would close the
  // connection under the client, which is still sending it and may reuse the connection for its next request.
  if (declared > limitBytes) throw tooLarge();
  const readAs = async (request: Request): Promise<T> => {
    try {
      return await read(request);
    } catch (error) {
      if (MachineError.isInstance(error)) throw error;
      throw refusal(error, tooLarge, malformed) ?? malformed(String((error as Error).message ?? error));
    }
  };
  if (Number.isInteger(declared) && declared >= 0 && !event.req.headers.has("transfer-encoding")) {
    // A declared length within the limit: the HTTP parser delivers exactly that many bytes and no more, so the body
    // is reserved once and read as it is, without a limiting or counting stream around it.
    if (lease && !lease.reserve(declared)) throw busy();
    return readAs(event.req);
  }
  try {
    assertBodySize(event, limitBytes);
  } catch (error) {
    throw refusal(error, tooLarge, malformed) ?? error;
  }
  const source = event.req.body;
  let total = 0;
  const body =
    source && lease
      ? source.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              total += chunk.byteLength;
              if (lease.reserve(total)) controller.enqueue(chunk);
              else controller.error(busy());
            },
          }),
        )
      : source;
  const request = new Request(event.req.url, {
    method: event.req.method,
    headers: event.req.headers,
    body,
    duplex: "half",
  } as RequestInit);
  return readAs(request);
}

/** The MachineError for h3's refusal of a body: 413 past the limit, 400 for a length declared twice. */
function refusal(
  error: unknown,
  tooLarge: () => MachineError,
  malformed: (why: string) => MachineError,
): MachineError | undefined {
  if (!HTTPError.isError(error)) return undefined;
  if (error.status === 413) return tooLarge();
  if (error.status === 400) {
    return malformed("its length is declared twice (Content-Length and Transfer-Encoding)");
  }
  return undefined;
}

function jsonTooLarge(limitBytes: number): MachineError {
  return new MachineError(
    "payload_too_large",
    `The body is larger than ${limitBytes} bytes. A PDF in a data URL grows by a third in base64, so it fits only up to about ${Math.floor((limitBytes * 3) / 4 / 1_000_000)} MB here: upload the PDF (up to ${megabytes(MAX_PDF_BYTES)} MB) with POST /api/machine/uploads and send {"pdf": {"upload_token": "<token>"}} instead.`,
  );
}

/** 503: other requests hold the body budget (see BodyBudget); nothing was read further or stored. */
function busy(): MachineError {
  return new MachineError(
    "service_busy",
    "Other large requests are being read; nothing was stored or charged. Try again in 2 s.",
    { retryAfterSeconds: 2 },
  );
}

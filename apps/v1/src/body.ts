import type { H3Event } from "h3";
import { assertBodySize, HTTPError } from "h3";
import { V1Error } from "./errors.ts";

/** Largest JSON body the Projects API reads, in bytes (1 MiB). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** The media type of the request, lower-cased, without parameters; "" when absent. */
export function mediaType(event: H3Event): string {
  return (event.req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * Reads the JSON body of a request. Throws V1Error: 415 unless the content type is JSON (application/json or
 * application/*+json), 413 past `limitBytes` (a declared length past it is refused before anything is read; a body
 * without one is cut off as it passes the limit), 400 invalid_json for an empty body or one that does not parse.
 */
export async function readJsonBody(event: H3Event, limitBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const type = mediaType(event);
  if (type !== "application/json" && !(type.startsWith("application/") && type.endsWith("+json"))) {
    throw new V1Error(
      "unsupported_media_type",
      `Send the body as JSON with Content-Type: application/json${type ? `, not ${echo(type)}` : ""}.`,
    );
  }
  const tooLarge = (headers: Record<string, string> = {}) =>
    new V1Error(
      "payload_too_large",
      `The body is larger than ${limitBytes} bytes, the most this API reads.`,
      {
        headers,
      },
    );
  // A declared length past the limit is refused before the body is touched: the server then drains the unread body
  // and the client, still sending it, can reuse its connection.
  const declared = Number(event.req.headers.get("content-length") ?? Number.NaN);
  if (declared > limitBytes) throw tooLarge();
  let text: string;
  try {
    assertBodySize(event, limitBytes);
    text = await event.req.text();
  } catch (error) {
    // A body without a declared length was cut off at the limit: the rest of it is never read, so the connection
    // cannot carry another request.
    if (HTTPError.isError(error) && error.status === 413) throw tooLarge({ connection: "close" });
    if (HTTPError.isError(error) && error.status === 400) {
      throw new V1Error(
        "invalid_json",
        "The body cannot be read: its length is declared twice (Content-Length and Transfer-Encoding).",
      );
    }
    throw new V1Error("invalid_json", "The body cannot be read.", { cause: error });
  }
  if (text.trim() === "") throw new V1Error("invalid_json", "The body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message quotes the body: it is not repeated.
    throw new V1Error("invalid_json", "The body is not valid JSON.");
  }
}

/** A client's value repeated in a message: short, and without characters that could disguise it. */
export function echo(value: string): string {
  const clean = value.replace(/[\p{Cc}\p{Cf}]/gu, "");
  return clean.length <= 64 ? clean : `${clean.slice(0, 64)}…`;
}

/**
 * Reads a JSON body that may be left out: a request without a body (no Content-Type, Content-Length 0 or none)
 * reads as undefined; anything else is read as `readJsonBody` reads it.
 */
export async function readOptionalJsonBody(event: H3Event): Promise<unknown> {
  const length = event.req.headers.get("content-length");
  const chunked = event.req.headers.has("transfer-encoding");
  if (mediaType(event) === "" && (length === "0" || (length === null && !chunked))) return undefined;
  return readJsonBody(event);
}

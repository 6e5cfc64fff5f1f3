import { V1Error } from "@mailpiece/v1";
import type { H3Event } from "h3";
import { assertBodySize, HTTPError } from "h3";

/**
 * Reads a JSON request body. Throws V1Error: 415 unless the content type is JSON (application/json or
 * application/*+json); 413 past `limitBytes` (a declared length past it before anything is read, a body without one
 * as it passes the limit, and then the connection is not reused); 400 invalid_json for an empty body or one that does
 * not parse (the parser's message, which quotes the body, is not repeated).
 */
export async function readJson(event: H3Event, limitBytes: number): Promise<unknown> {
  const type = (event.req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !(type.startsWith("application/") && type.endsWith("+json"))) {
    throw new V1Error("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
  }
  const tooLarge = (headers: Record<string, string> = {}) =>
    new V1Error("payload_too_large", `The body is larger than ${limitBytes} bytes, the most read here.`, {
      headers,
    });
  if (Number(event.req.headers.get("content-length") ?? Number.NaN) > limitBytes) throw tooLarge();
  let text: string;
  try {
    assertBodySize(event, limitBytes);
    text = await event.req.text();
  } catch (error) {
    if (HTTPError.isError(error) && error.status === 413) throw tooLarge({ connection: "close" });
    throw new V1Error("invalid_json", "The body cannot be read.", { cause: error });
  }
  if (text.trim() === "") throw new V1Error("invalid_json", "The body is empty; send a JSON object.");
  try {
    return JSON.parse(text);
  } catch {
    throw new V1Error("invalid_json", "The body is not valid JSON.");
  }
}

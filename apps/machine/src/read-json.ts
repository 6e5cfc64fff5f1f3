import type { BodyLease } from "./body-budget.ts";
import { errorResponse } from "./errors.ts";

export type JsonBody = { ok: true; value: unknown; raw: Uint8Array } | { ok: false; response: Response };

/**
 * Reads a JSON request body: 415 unless the content type is JSON, 413 past `limitBytes` (checked on the declared
 * length and again while streaming, so a lying client is cut off), 400 when it does not parse.
 */
export async function readJsonBody(
  request: Request,
  limitBytes: number,
  lease?: BodyLease,
): Promise<JsonBody> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !(type.startsWith("application/") && type.endsWith("+json"))) {
    return {
      ok: false,
      response: errorResponse(
        415,
        "unsupported_media_type",
        `Send the order as JSON with Content-Type: application/json${type ? `, not ${type}` : ""}.`,
      ),
    };
  }
  const raw = await readLimited(request, limitBytes, lease);
  if (raw === "busy") return { ok: false, response: busy() };
  if (raw === "too_large") return { ok: false, response: tooLarge(limitBytes) };
  try {
    return {
      ok: true,
      value: JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("utf8")),
      raw,
    };
  } catch (error) {
    return {
      ok: false,
      response: errorResponse(400, "invalid_json", `The body is not valid JSON: ${(error as Error).message}`),
    };
  }
}

/**
 * The body's bytes, or why not: past `limitBytes` ("too_large"), or past the shared body budget ("busy"). Both are
 * decided on the declared length before anything is read, and again while streaming, so a lying client is cut off.
 */
async function readLimited(
  request: Request,
  limitBytes: number,
  lease?: BodyLease,
): Promise<Uint8Array | "too_large" | "busy"> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared)) {
    if (declared > limitBytes) return "too_large";
    if (lease && !lease.reserve(declared)) return "busy";
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      return "too_large";
    }
    if (lease && !lease.reserve(total)) {
      await reader.cancel().catch(() => {});
      return "busy";
    }
    chunks.push(value);
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

function tooLarge(limitBytes: number): Response {
  return errorResponse(
    413,
    "payload_too_large",
    `The body is larger than ${limitBytes} bytes. A PDF in a data URL grows by a third in base64, so it fits only up to about ${Math.floor((limitBytes * 3) / 4 / 1_000_000)} MB here: upload the PDF (up to 100 MB) with POST /api/machine/uploads and send {"pdf": {"upload_token": "<token>"}} instead.`,
  );
}

/** 503: other requests hold the body budget (see BodyBudget); nothing was read further or stored. */
function busy(): Response {
  return errorResponse(
    503,
    "service_busy",
    "Other large requests are being read; nothing was stored or charged. Try again in 2 s.",
    { retry_after_seconds: 2 },
  );
}

function tooLargeUpload(): Response {
  return errorResponse(
    413,
    "payload_too_large",
    "The file is larger than 100 MB, the largest PDF that prints.",
  );
}

export type MultipartFile = { ok: true; name: string; bytes: Uint8Array } | { ok: false; response: Response };

const FILE_FIELDS = ["file", "pdf", "pdfFile"] as const;

/** Reads one file from a multipart/form-data body (field `file`, or its aliases `pdf` and `pdfFile`), within a limit. */
export async function readMultipartFile(
  request: Request,
  limitBytes: number,
  lease?: BodyLease,
): Promise<MultipartFile> {
  const raw = await readLimited(request, limitBytes, lease);
  if (raw === "busy") return { ok: false, response: busy() };
  if (raw === "too_large") return { ok: false, response: tooLargeUpload() };
  let form: FormData;
  try {
    form = await new Request("http://upload.local/", {
      method: "POST",
      headers: { "content-type": request.headers.get("content-type") ?? "" },
      body: raw,
    }).formData();
  } catch {
    return {
      ok: false,
      response: errorResponse(400, "invalid_multipart", "The body is not valid multipart/form-data."),
    };
  }
  for (const field of FILE_FIELDS) {
    const value = form.get(field);
    if (value && typeof value !== "string") {
      return {
        ok: true,
        name: value.name || "document.pdf",
        bytes: new Uint8Array(await value.arrayBuffer()),
      };
    }
  }
  return {
    ok: false,
    response: errorResponse(422, "validation_failed", "No file in the form.", {
      issues: [
        {
          path: "file",
          code: "required",
          message: "Send the PDF in the multipart field `file` (or `pdf`, `pdfFile`).",
        },
      ],
    }),
  };
}

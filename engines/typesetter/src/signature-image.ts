import { PDFDocument } from "pdf-lib";
import { TypesetterError } from "./errors.ts";

/** A drawn signature, decoded: its bytes, format and size in pixels. */
export interface SignatureImage {
  format: "png" | "jpeg";
  bytes: Uint8Array;
  width: number;
  height: number;
}

const DATA_URL = /^data:image\/(png|jpeg|jpg)(?:;[^,;]*=[^,;]*)*;base64,([A-Za-z0-9+/=\s]*)$/i;

/**
 * Decodes a drawn signature from a base64 `data:image/png` or `data:image/jpeg` URL and checks that pdf-lib can
 * embed it. The bytes decide the format (a PNG sent as image/jpeg is read as PNG). Anything else is refused with
 * `image_unreadable` on the field "signature".
 */
export async function readSignatureImage(dataUrl: string): Promise<SignatureImage> {
  const match = DATA_URL.exec(dataUrl.trim());
  if (!match) {
    throw unreadable(
      "The drawn signature must be a base64 data URL of a PNG or JPEG image (data:image/png;base64,...).",
    );
  }
  // A copy with its own ArrayBuffer: pdf-lib reads JPEG headers through a DataView on `bytes.buffer`.
  const bytes = new Uint8Array(Buffer.from(match[2]!, "base64"));
  const format = isPng(bytes) ? "png" : isJpeg(bytes) ? "jpeg" : undefined;
  if (format === undefined) throw unreadable("The drawn signature data is neither a PNG nor a JPEG image.");
  try {
    const doc = await PDFDocument.create({ updateMetadata: false });
    const image = format === "png" ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
    if (!(image.width > 0 && image.height > 0)) throw new Error("empty image");
    return { format, bytes, width: image.width, height: image.height };
  } catch (cause) {
    throw new TypesetterError(
      "image_unreadable",
      `The drawn signature ${format.toUpperCase()} image cannot be read.`,
      {
        field: "signature",
        cause,
      },
    );
  }
}

function isPng(bytes: Uint8Array): boolean {
  const magic = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  return magic.every((byte, index) => bytes[index] === byte);
}

function isJpeg(bytes: Uint8Array): boolean {
  return bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

function unreadable(message: string): TypesetterError {
  return new TypesetterError("image_unreadable", message, { field: "signature" });
}

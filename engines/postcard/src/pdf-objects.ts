import {
  decodePDFRawStream,
  PDFArray,
  PDFBool,
  type PDFContext,
  PDFDict,
  PDFFlateStream,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFRawStream,
  PDFRef,
  PDFStream,
} from "pdf-lib";
import { PostcardError } from "./errors.ts";

/**
 * Small, forgiving readers over pdf-lib objects: each follows indirect references and answers undefined for a
 * missing entry or one of the wrong type, so a malformed file reads as absent data, never as an exception.
 */
export class PdfReader {
  constructor(private readonly context: PDFContext) {}

  resolve(value: PDFObject | undefined): PDFObject | undefined {
    let current = value;
    for (let hops = 0; current instanceof PDFRef; hops++) {
      if (hops > 16) return undefined;
      current = this.context.lookup(current);
    }
    return current;
  }

  /** A dictionary, or a stream's dictionary. */
  dict(value: PDFObject | undefined): PDFDict | undefined {
    const resolved = this.resolve(value);
    if (resolved instanceof PDFDict) return resolved;
    if (resolved instanceof PDFStream) return resolved.dict;
    return undefined;
  }

  get(dict: PDFDict | undefined, key: string): PDFObject | undefined {
    return dict === undefined ? undefined : this.resolve(dict.get(PDFName.of(key)));
  }

  number(dict: PDFDict | undefined, key: string): number | undefined {
    return numberOf(this.get(dict, key));
  }

  name(dict: PDFDict | undefined, key: string): string | undefined {
    return nameOf(this.get(dict, key));
  }

  bool(dict: PDFDict | undefined, key: string): boolean | undefined {
    const value = this.get(dict, key);
    return value instanceof PDFBool ? value.asBoolean() : undefined;
  }

  array(dict: PDFDict | undefined, key: string): PDFObject[] | undefined {
    const value = this.get(dict, key);
    if (!(value instanceof PDFArray)) return undefined;
    return value.asArray().map((item) => this.resolve(item) ?? item);
  }

  /** An array of numbers of exactly `length` items (any length when omitted), else undefined. */
  numbers(dict: PDFDict | undefined, key: string, length?: number): number[] | undefined {
    const items = this.array(dict, key);
    if (items === undefined || (length !== undefined && items.length !== length)) return undefined;
    const out: number[] = [];
    for (const item of items) {
      const n = numberOf(item);
      if (n === undefined) return undefined;
      out.push(n);
    }
    return out;
  }

  /** The page or page-tree node that holds the inheritable entry `key` (nearest first), or the page itself. */
  inherited(page: PDFDict, key: string): PDFDict {
    let node: PDFDict | undefined = page;
    for (let depth = 0; node !== undefined && depth < 64; depth++) {
      if (this.get(node, key) !== undefined) return node;
      node = this.dict(this.get(node, "Parent"));
    }
    return page;
  }

  /** The entry `key` of the sub-dictionary `category` of a resource dictionary (`/Font /F1`, `/XObject /Im0`). */
  resource(resources: PDFDict | undefined, category: string, key: string): PDFObject | undefined {
    return this.get(this.dict(this.get(resources, category)), key);
  }
}

export function numberOf(value: PDFObject | undefined): number | undefined {
  if (!(value instanceof PDFNumber)) return undefined;
  const n = value.asNumber();
  return Number.isFinite(n) ? n : undefined;
}

export function nameOf(value: PDFObject | undefined): string | undefined {
  return value instanceof PDFName ? value.decodeText() : undefined;
}

/** The decoded data of a stream. Throws PostcardError("content_undecodable") when it cannot be decoded. */
export function streamData(stream: PDFStream): Uint8Array {
  try {
    if (stream instanceof PDFRawStream) return decodePDFRawStream(stream).decode();
    if (stream instanceof PDFFlateStream) return stream.getUnencodedContents();
    return stream.getContents();
  } catch (cause) {
    throw new PostcardError("content_undecodable", "a stream cannot be decoded", { cause });
  }
}

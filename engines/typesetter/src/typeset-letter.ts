import { addressLines } from "./address-block.ts";
import type { Block, InlineStyle } from "./blocks.ts";
import { emboldened } from "./blocks.ts";
import { TypesetterError } from "./errors.ts";
import type { FaceRole, FontFace } from "./fonts.ts";
import { FAMILY_FACES, loadFace, SIGNATURE_FACE } from "./fonts.ts";
import {
  checkAddressBlock,
  checkOptionalString,
  invalid,
  oneLine,
  requirePrintable,
} from "./input-checks.ts";
import type { AddressPlacement, LayoutInput } from "./layout.ts";
import { layoutLetter } from "./layout.ts";
import { letterDate, todayUtc } from "./letter-date.ts";
import type { LetterFormat } from "./parse.ts";
import { LETTER_FORMATS, parseLetterBody, tooDeep } from "./parse.ts";
import { renderPdf } from "./render-pdf.ts";
import type { SignatureImage } from "./signature-image.ts";
import { readSignatureImage } from "./signature-image.ts";

/** An address as it prints, already formatted: name, street, city line, country. */
export interface AddressBlock {
  lines: string[];
}

export interface LetterInput {
  body: string;
  title?: string;
  /** How the body is written: plain text (lines kept as written), markdown, HTML or RTF. */
  format: LetterFormat;
  /** typed: set in Caveat, a handwriting face; drawn: a PNG or JPEG data URL, embedded. */
  signature?: { mode: "typed"; text: string } | { mode: "drawn"; dataUrl: string };
  render: RenderOptions;
  sender?: AddressBlock;
  recipient?: AddressBlock;
  /** e.g. "TEST MODE": set diagonally in light grey on every page. */
  watermark?: string;
  /**
   * The letter's date, a calendar date written `YYYY-MM-DD` (`new Date(ms).toISOString().slice(0, 10)` gives the UTC
   * date). It prints as "24 November 2026" on a line of its own above the title and the body, and in the continuation
   * header. Default: today's date in UTC; pass it for byte-identical output from one day to the next.
   */
  date?: string;
  /** The signer's name, printed in the body face right under a typed or drawn signature; unused without one. */
  signer_name?: string;
  /**
   * "letter" (default): the date line and, on a letter of two or more body pages, "Page N of M" at the foot of every
   * body page and from the second one a continuation header (recipient's name, date, page). "none": the body alone,
   * for callers that lay out their own page furniture (form packets, overlays); `date` is then not printed.
   */
  furniture?: "letter" | "none";
}

export interface RenderOptions {
  font: "times" | "helvetica";
  /** Body size in points, 9 to 14. */
  font_size: number;
  /** Left, right, top and bottom margin in inches, 0.5 to 1.5. */
  margin_in: number;
  paper: "letter";
  /**
   * "window" (default): the addresses print in the envelope windows of page 1, above the body. "separate_page": they
   * print alone on page 1 (counted in `page_count`) and the body starts at the top of page 2.
   */
  address_placement?: AddressPlacement;
}

/** The ranges the order request allows (spec: font_size 9 to 14, margin_in 0.5 to 1.5). */
export const FONT_SIZE_RANGE = { min: 9, max: 14 } as const;
export const MARGIN_RANGE_IN = { min: 0.5, max: 1.5 } as const;

/**
 * Typesets a letter as a print-ready PDF on US letter paper for a #10 double-window envelope, and counts its pages.
 * The body is plain text, markdown, HTML or RTF (`format`); every format goes to the same layout, paginated so that
 * no line and no table row is cut and no heading is left at the foot of a page. The letter is dated (`date`), a
 * letter of several pages is numbered and carries a continuation header (`furniture`), and the signer's name prints
 * under the signature (`signer_name`). The same input always gives byte-identical PDF bytes (give `date` for that:
 * without it the letter carries the day's date).
 *
 * Characters: text is set in Tinos (times) or Arimo (helvetica), which cover the Latin, Greek and Cyrillic
 * scripts. Right-to-left scripts (Hebrew, Arabic) are refused with `character_unsupported` until lines are reordered
 * for them. A typed signature is set in Caveat; when Caveat lacks one of its characters, the whole signature is set in
 * the body face instead. Characters the chosen face cannot print at all are refused with `character_unsupported`
 * on the field that holds them, never dropped silently.
 *
 * Bodies are bounded by `LETTER_LIMITS` (nesting, lines, list items, emphasis markers and link brackets of markdown,
 * table columns), so that every letter typesets in bounded time.
 *
 * Throws TypesetterError: `format_unsupported`, `invalid_letter_input` (also for an RTF body that is not RTF, and a
 * `date` that is not a calendar date), `letter_too_complex`, `address_too_long_for_window`, `character_unsupported`,
 * `image_unreadable`.
 */
export async function typesetLetter(input: LetterInput): Promise<{ pdf: Uint8Array; page_count: number }> {
  checkInput(input);
  const furnished = input.furniture !== "none";
  const date = input.date === undefined ? undefined : letterDate(input.date);
  const blocks = parseLetterBody(input.format, input.body);
  const family = FAMILY_FACES[input.render.font];
  const [regular, bold, italic, boldItalic] = await Promise.all([
    loadFace(family.regular),
    loadFace(family.bold),
    loadFace(family.italic),
    loadFace(family["bold-italic"]),
  ]);
  const bodyFaces: Record<InlineStyle, FontFace> = { regular, bold, italic, "bold-italic": boldItalic };

  const title = input.title === undefined ? undefined : oneLine(input.title);
  const watermark = input.watermark === undefined ? undefined : oneLine(input.watermark);
  const sender = input.sender === undefined ? undefined : addressLines(input.sender.lines);
  const recipient = input.recipient === undefined ? undefined : addressLines(input.recipient.lines);
  for (const [style, text] of bodyText(blocks)) requirePrintable(bodyFaces[style], text, "body");
  if (title) requirePrintable(bold, title, "title");
  if (watermark) requirePrintable(bold, watermark, "watermark");
  if (sender) requirePrintable(regular, sender.join(" "), "sender");
  if (recipient) requirePrintable(regular, recipient.join(" "), "recipient");
  const signerName =
    input.signer_name === undefined || input.signature === undefined ? undefined : oneLine(input.signer_name);
  if (signerName) requirePrintable(regular, signerName, "signer_name");
  const dateLine = furnished ? (date ?? letterDate(todayUtc())) : undefined;

  let signatureFace = regular;
  let signature: LayoutInput["signature"];
  let image: SignatureImage | undefined;
  if (input.signature?.mode === "typed") {
    const text = oneLine(input.signature.text);
    if (text !== "") {
      const caveat = await loadFace(SIGNATURE_FACE);
      signatureFace = caveat.missing(text).length === 0 ? caveat : regular;
      requirePrintable(signatureFace, text, "signature");
      signature = { kind: "typed", text };
    }
  } else if (input.signature?.mode === "drawn") {
    image = await readSignatureImage(input.signature.dataUrl);
    signature = { kind: "drawn", width: image.width, height: image.height };
  }

  const faces: Record<FaceRole, FontFace> = { ...bodyFaces, signature: signatureFace };
  let layout: ReturnType<typeof layoutLetter>;
  try {
    layout = layoutLetter(
      {
        blocks,
        ...(dateLine ? { date_line: dateLine } : {}),
        ...(title ? { title } : {}),
        ...(signature ? { signature } : {}),
        ...(signature && signerName ? { signer_name: signerName } : {}),
        ...(sender ? { sender } : {}),
        ...(recipient ? { recipient } : {}),
        ...(watermark ? { watermark } : {}),
        ...(dateLine
          ? { furniture: { date: dateLine, ...(recipient?.[0] ? { recipient: recipient[0] } : {}) } }
          : {}),
        font_size: input.render.font_size,
        margin_in: input.render.margin_in,
        address_placement: input.render.address_placement ?? "window",
      },
      faces,
    );
  } catch (error) {
    throw tooDeep(error);
  }
  const pdf = await renderPdf(layout, faces, { ...(title ? { title } : {}), ...(image ? { image } : {}) });
  return { pdf, page_count: layout.pages.length };
}

/** The text of the body by the style it prints in (headings and table header rows print in bold). */
function bodyText(blocks: readonly Block[]): Map<InlineStyle, string> {
  const texts = new Map<InlineStyle, string[]>();
  const add = (text: string, style: InlineStyle): void => {
    const list = texts.get(style) ?? [];
    list.push(text);
    texts.set(style, list);
  };
  const visit = (list: readonly Block[]): void => {
    for (const block of list) {
      if (block.kind === "line" || block.kind === "paragraph")
        for (const run of block.runs) add(run.text, run.style);
      else if (block.kind === "heading") for (const run of block.runs) add(run.text, emboldened(run.style));
      else if (block.kind === "list") for (const item of block.items) visit(item);
      else if (block.kind === "quote") visit(block.blocks);
      else if (block.kind === "table") {
        block.rows.forEach((row, index) => {
          for (const cell of row.cells) {
            for (const run of cell)
              add(run.text, index < block.headerRows ? emboldened(run.style) : run.style);
          }
        });
      }
    }
  };
  visit(blocks);
  return new Map([...texts].map(([style, list]) => [style, list.join(" ")]));
}

function checkInput(input: LetterInput): void {
  if (typeof input !== "object" || input === null) invalid("", "The letter input must be an object.");
  if (typeof input.format !== "string") {
    throw new TypesetterError(
      "format_unsupported",
      `The letter format must be one of ${LETTER_FORMATS.map((format) => `"${format}"`).join(", ")}.`,
      { field: "format" },
    );
  }
  if (typeof input.body !== "string") invalid("body", "The letter body must be a string.");
  checkOptionalString(input.title, "title", "The title must be a string.");
  checkOptionalString(input.watermark, "watermark", "The watermark must be a string.");
  checkOptionalString(input.signer_name, "signer_name", "The signer's name must be a string.");
  if (input.furniture !== undefined && input.furniture !== "letter" && input.furniture !== "none") {
    invalid("furniture", 'furniture must be "letter" or "none".');
  }
  const render = input.render as Partial<LetterInput["render"]> | undefined;
  if (typeof render !== "object" || render === null) invalid("render", "The render options are missing.");
  if (render.font !== "times" && render.font !== "helvetica")
    invalid("render", 'render.font must be "times" or "helvetica".');
  if (render.paper !== "letter") invalid("render", 'render.paper must be "letter".');
  if (!inRange(render.font_size, FONT_SIZE_RANGE)) {
    invalid("render", `render.font_size must be from ${FONT_SIZE_RANGE.min} to ${FONT_SIZE_RANGE.max}.`);
  }
  if (!inRange(render.margin_in, MARGIN_RANGE_IN)) {
    invalid("render", `render.margin_in must be from ${MARGIN_RANGE_IN.min} to ${MARGIN_RANGE_IN.max}.`);
  }
  if (
    render.address_placement !== undefined &&
    render.address_placement !== "window" &&
    render.address_placement !== "separate_page"
  ) {
    invalid("render", 'render.address_placement must be "window" or "separate_page".');
  }
  const signature = input.signature as { mode?: unknown; text?: unknown; dataUrl?: unknown } | undefined;
  if (signature !== undefined) {
    const valid =
      typeof signature === "object" &&
      signature !== null &&
      ((signature.mode === "typed" && typeof signature.text === "string") ||
        (signature.mode === "drawn" && typeof signature.dataUrl === "string"));
    if (!valid)
      invalid("signature", 'The signature must be { mode: "typed", text } or { mode: "drawn", dataUrl }.');
  }
  checkAddressBlock(input.sender, "sender");
  checkAddressBlock(input.recipient, "recipient");
}

function inRange(value: unknown, range: { min: number; max: number }): boolean {
  return typeof value === "number" && Number.isFinite(value) && value >= range.min && value <= range.max;
}

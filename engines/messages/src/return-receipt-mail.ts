import { formatTime } from "./format-time.ts";
import type { Fact } from "./layout.ts";
import { MESSAGE_LIMITS } from "./limits.ts";
import { itemLines, kindNoun, readMailedItem } from "./mailed-item.ts";
import { ID_RULE, type OrderMessageInput, openInput, testPrefix } from "./message-input.ts";
import { toSubject } from "./plain-text.ts";
import { type Fields, InputReader } from "./read-input.ts";
import { type RenderedMessage, renderLayout } from "./rendered-message.ts";

export interface ReturnReceiptMailInput extends OrderMessageInput {
  /** When the piece was delivered: ISO 8601 with a zone; shown in UTC. */
  delivered_at: string;
  /** The name on the signature, up to 200 characters; absent or null shows none. */
  signed_by?: string | null;
  /**
   * The filename the caller attaches the signed PDF under (the message names it): 1 to 255 characters, no spaces
   * at either end, no control characters, no `/` or `\`, as the EmailSender port requires.
   */
  attachment_filename: string;
}

const FIELDS = ["order_id", "item", "delivered_at", "signed_by", "attachment_filename"] as const;

/**
 * The mail that carries a signed electronic return receipt (err_delivery email): the order id, what was mailed,
 * when it was delivered, who signed, and the name of the attached PDF. The caller attaches the PDF itself. Throws
 * MessagesError `invalid_input` listing every problem of the input.
 */
export function returnReceiptMail(input: ReturnReceiptMailInput): RenderedMessage {
  const reader = new InputReader();
  const { fields, brand, test } = openInput(reader, input, FIELDS);
  const orderId = reader.text(fields, "order_id", "", ID_RULE);
  const item = readMailedItem(reader, fields.item);
  const deliveredAt = reader.time(fields, "delivered_at", "");
  const signedBy = reader.optionalText(fields, "signed_by", "", { max: MESSAGE_LIMITS.signed_by_chars });
  const filename = readFilename(reader, fields);
  reader.finish("return receipt mail");

  const noun = kindNoun(item!.kind);
  const facts: Fact[] = [
    { label: "Order", value: orderId! },
    { label: "Delivered", value: formatTime(deliveredAt!) },
  ];
  if (signedBy) facts.push({ label: "Signed by", value: signedBy });
  facts.push({ label: "Attachment", value: filename! });
  return renderLayout({
    subject: toSubject(`${testPrefix(test)}Signed return receipt for your ${noun} ${orderId}`),
    brand,
    notice: test ? "Test mode: this return receipt is simulated. Nothing was mailed." : null,
    heading: "Your signed return receipt",
    blocks: [
      {
        kind: "paragraph",
        text: `Your ${noun} was delivered. The signed electronic return receipt is attached to this email as a PDF.`,
      },
      { kind: "facts", rows: facts },
      { kind: "list", title: "What was mailed", items: itemLines(item!) },
      { kind: "paragraph", text: "Keep the receipt with your records: it is the proof of delivery." },
    ],
  });
}

/** The filename as given, when the port takes it as it is: one line, no control characters, no / or \. */
function readFilename(reader: InputReader, fields: Fields): string | undefined {
  const path = "attachment_filename";
  const filename = reader.text(fields, path, "", { max: MESSAGE_LIMITS.attachment_filename_chars });
  if (filename === undefined) return undefined;
  if (filename !== fields[path] || /[/\\]/.test(filename)) {
    return reader.add(
      path,
      "invalid_format",
      `${path} must have no control characters, no / or \\, and no spaces at either end or twice in a row.`,
    );
  }
  return filename;
}

/** The bounds of a message's input; a longer value is refused (`too_long`), never cut. */
export const MESSAGE_LIMITS = Object.freeze({
  /** An order or campaign id. */
  id_chars: 200,
  brand_name_chars: 100,
  /** Any URL: a brand's site, a status page, a tracking page. */
  url_chars: 2048,
  support_email_chars: 254,
  /** Each line of a mailed item's summary. */
  summary_line_chars: 500,
  summary_lines: 20,
  line_item_label_chars: 200,
  line_items: 100,
  campaign_name_chars: 200,
  /** A payment reference (a transaction hash, a payment id) or a payer (a wallet address, a name). */
  payment_reference_chars: 200,
  tracking_number_chars: 100,
  reason_chars: 1000,
  signed_by_chars: 200,
  /** The port's limit for an attachment's filename. */
  attachment_filename_chars: 255,
  /** The port's limit for a subject. */
  subject_chars: 998,
  /** The width the plain-text body wraps at. */
  text_width: 78,
});

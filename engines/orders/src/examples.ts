import type { OrderRequest } from "./order-request-schema.ts";

/** A minimal PDF ("%PDF-1.4" header and trailer), base64, for examples. */
const EXAMPLE_PDF_BASE64 = "JVBERi0xLjQKJSVFT0YK";

const sender = {
  sender_name: "Ada Lovelace",
  sender_address_type: "Manual",
  sender_address_manual: {
    line1: "350 Fifth Avenue",
    city: "New York",
    state: "NY",
    zip: "10118",
    countryCode: "US",
  },
} as const;

const recipient = {
  recipient_name: "Grace Hopper",
  recipient_address_type: "Manual",
  recipient_address_manual: {
    line1: "1600 Pennsylvania Ave NW",
    city: "Washington",
    state: "DC",
    zip: "20500",
    countryCode: "US",
  },
} as const;

/**
 * One valid order request of each kind, for documentation (OpenAPI examples) and tests. Each is a minimal
 * request: only the fields its kind needs.
 */
export const EXAMPLE_ORDER_REQUESTS = {
  pdf: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c01",
    buyer_email: "ada@example.com",
    ...sender,
    ...recipient,
    pdf: `data:application/pdf;base64,${EXAMPLE_PDF_BASE64}`,
  },
  pdfUpload: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c02",
    buyer_email: "ada@example.com",
    ...sender,
    recipient_name: "Grace Hopper",
    recipient_address_id: "US|US|DEF|1600-PENNSYLVANIA-AVE-NW",
    recipient_address_text: "1600 Pennsylvania Ave NW, Washington DC 20500",
    pdf: { upload_token: "upl_7f3c2a" },
  },
  letter: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c03",
    buyer_email: "ada@example.com",
    ...sender,
    ...recipient,
    letter: "Dear Grace,\n\nThank you for the kind note.\n\nBest wishes,\nAda",
  },
  letterObject: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c04",
    buyer_email: "ada@example.com",
    ...sender,
    ...recipient,
    letter: {
      title: "A note of thanks",
      body: "# Dear Grace\n\nThank you for the **kind** note.",
      format: "markdown",
      signature: "Ada Lovelace",
      render: { font_size: 12, font: "helvetica" },
    },
  },
  form: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c05",
    buyer_email: "ada@example.com",
    ...sender,
    ...recipient,
    form: {
      slug: "mortgage-servicing-error-packet",
      fields: { letter_date: "2026-01-15", sender_name: "Ada Lovelace", payment_enclosed: "No" },
      attachments: [{ id: "supporting_documents", file_name: "statement.pdf", base64: EXAMPLE_PDF_BASE64 }],
    },
  },
  bulk: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c06",
    buyer_email: "ada@example.com",
    ...sender,
    bulk: {
      campaign_name: "Spring newsletter",
      content_mode: "text",
      template_text: "Dear {{recipient_name}},\n\nSpring is here. See you at {{venue}}.",
      csv_content:
        "recipient_name,line1,city,state,zip,venue\nGrace Hopper,1600 Pennsylvania Ave NW,Washington,DC,20500,the park\n",
    },
  },
  postcard: {
    request_id: "0b0e6a51-6c5e-4d0e-9a55-6f1f5e2b7c07",
    buyer_email: "ada@example.com",
    ...sender,
    ...recipient,
    mailpiece_type: "postcard",
    postcard_size: "4x6",
    pdf: `data:application/pdf;base64,${EXAMPLE_PDF_BASE64}`,
  },
} as const satisfies Record<string, OrderRequest>;

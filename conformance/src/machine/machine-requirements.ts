import type { Requirement } from "../kit.ts";
import type { MachineTestName } from "./machine-suite.ts";

const SPEC_1 = "spec 1 (machine API)";
const SPEC_2 = "spec 2 (workflow forms)";

const spec1 = (section: string, sentence: string): Requirement => ({ spec: SPEC_1, section, sentence });
const spec2 = (section: string, sentence: string): Requirement => ({ spec: SPEC_2, section, sentence });
const http = (section: string, sentence: string): Requirement => ({
  spec: "RFC 9110 (HTTP semantics)",
  section,
  sentence,
});

/** The rule every surface keeps (ARCHITECTURE.md, "What must hold everywhere"). */
const BAD_INPUT: Requirement = {
  spec: "Mailpiece architecture",
  section: "What must hold everywhere",
  sentence:
    "Bad input gets a clear 4xx with a stable code and the path of the offending field; never a 500, never a partial write.",
};

const ORDER = "Order request (validate and create, x402 and MPP)";
const MANUAL = "Manual address object (`sender_address_manual`, `recipient_address_manual`)";

/** The requirement of spec 1 (or of the documents it builds on) that each test of the machine suite checks. */
export const MACHINE_REQUIREMENTS: Readonly<Record<MachineTestName, Requirement>> = {
  "health answers ok": {
    spec: "Mailpiece README (reference deployment)",
    section: "Endpoints",
    sentence: "GET | `/health` | liveness and store health",
  },
  "openapi.json is a valid OpenAPI 3.1.0 document listing every operation's responses": spec1(
    "Versioning",
    "The machine API description is OpenAPI 3.1.0, interface version 1.0.0.",
  ),
  "well-known x402 manifest lists the paid resources": spec1(
    "What the service does",
    "A lightweight manifest at /.well-known/x402 exists for crawlers that do not read the full description.",
  ),
  "validate quotes a plain-text letter with its typeset page count": spec1(
    "What the service does",
    "call the validate endpoint to verify the payload and get a quote, with no payment side effect",
  ),
  "validate answers alike on the x402 and MPP paths": spec1(
    "What the service does",
    "x402 uses paths under /api/machine/. MPP uses paths under /api/machine/mpp/. The request bodies are shared.",
  ),
  "validate gives the same quote for the same input": spec1(
    "What the service does",
    "call the validate endpoint to verify the payload and get a quote, with no payment side effect",
  ),
  "a long letter flows over more pages and never costs less": spec1(
    ORDER,
    "letter | string, or object | String: 1 to 20000 chars, rendered server-side",
  ),
  "a PDF data URL is counted from the PDF itself": spec1(
    ORDER,
    "pdf | string, or object | One of: (a) string, a data:application/pdf;base64 URL or an allowlisted HTTPS download URL",
  ),
  "certified mail adds its line item": spec1(ORDER, "certified | boolean | Default false."),
  "the resolved recipient and sender carry the exact names and lines": spec1(
    "Response facts",
    "Validation returns a quote and the resolved recipient",
  ),
  "postcards are normalised to standard colour double-sided with warnings": spec1(
    "Postcards",
    "Options are normalized server-side to standard mail, full color, double-sided, no certified or signature add-ons.",
  ),
  "a postcard PDF must have exactly two pages": spec1("Postcards", "The PDF has exactly 2 pages"),
  "422 lists every problem at once with path and code": BAD_INPUT,
  "unknown top-level properties are rejected": spec1(ORDER, "Unknown top-level properties are rejected."),
  "a single order carries exactly one document source": spec1(
    ORDER,
    "A single-recipient order carries exactly one document source: `pdf`, `form` or `letter`.",
  ),
  "bulk excludes recipient fields and document sources": spec1(
    ORDER,
    "A bulk order carries `bulk` instead of recipient name, recipient address fields and document source.",
  ),
  "each party uses exactly one address strategy": spec1(
    ORDER,
    "For each party exactly one address strategy is chosen: Address (`*_address_id` plus `*_address_text`) or Manual (`*_address_manual`). Sending both for one party is invalid.",
  ),
  "address ids carry an allowed country": spec1(
    ORDER,
    "*_address_id | string | Min 1; starts with two to four letters then a vertical bar; that leading segment is the country and must be an allowed country.",
  ),
  "an address id prints the address it names, not its text": spec1(
    ORDER,
    "*_address_id | string | Required in Address mode.",
  ),
  "an unknown address id is refused at its field with address_not_found": spec1(
    "Agent tool (MCP) interface",
    "only type Address ids are valid for drafts",
  ),
  "manual addresses need state for US and CA": spec1(
    MANUAL,
    "state | string | 1 to 60. Required for US and CA.",
  ),
  "manual addresses default to US; only a non-US one must carry countryCode": spec1(
    MANUAL,
    "countryCode | enum | … Default US. International manual addresses must carry it.",
  ),
  "return receipt options need certified_return_receipt": spec1(
    ORDER,
    "return_receipt_format | enum | electronic (default) or physical (mailed green card). Requires certified_return_receipt true.",
  ),
  "priority and express do not combine with certified": {
    spec: "spec 3 (Projects API)",
    section: "Letter quote request (POST /api/v1/letters/quotes)",
    sentence: "Priority and Express cannot combine with certified or registered proof mail.",
  },
  "postcards need postcard_size": spec1(
    ORDER,
    "postcard_size | enum | 4x6, 6x9, 11x6. Required when mailpiece_type is postcard.",
  ),
  "request_id must be a uuid and buyer_email an email": spec1(
    ORDER,
    "request_id | string, uuid | Client-generated idempotency key for one logical mailing.",
  ),
  "letter bounds are enforced": spec1("Limits", "Letter body | 20000 chars; title 200; signature text 2000"),
  "malformed JSON is 400": http(
    "15.5.1. 400 Bad Request",
    "The 400 (Bad Request) status code indicates that the server cannot or will not process the request due to something that is perceived to be a client error (e.g., malformed request syntax, invalid request message framing, or deceptive request routing).",
  ),
  "a wrong content type is 415": http(
    "15.5.16. 415 Unsupported Media Type",
    "The 415 (Unsupported Media Type) status code indicates that the origin server is refusing to service the request because the content is in a format not supported by this method on the target resource.",
  ),
  "a body over the limit is 413": http(
    "15.5.14. 413 Content Too Large",
    "The 413 (Content Too Large) status code indicates that the server is refusing to process a request because the request content is larger than the server is willing or able to process.",
  ),
  "unknown paths are 404 with a JSON error": BAD_INPUT,
  "unpaid x402 create answers 402 with the challenge in PAYMENT-REQUIRED": spec1(
    "Authentication",
    "x402: unpaid create returns 402 with header `PAYMENT-REQUIRED`",
  ),
  "unpaid MPP create answers 402 problem+json with Payment challenges": spec1(
    "Endpoints",
    "POST | /api/machine/mpp/orders | order request | 200; 202; 402 (content type application/problem+json, one or more WWW-Authenticate: Payment challenges); 409; 422",
  ),
  "status of an unknown order is 404": spec1(
    "Endpoints",
    "GET | /api/machine/orders/{id} and /api/machine/mpp/orders/{id} | path id (uuid: order_id or aliased request_id) | 200 status; 404",
  ),
  "CORS lets browsers send payment headers and read payment answers": spec1(
    "Authentication",
    "the paid retry carries header `PAYMENT-SIGNATURE`; success returns `PAYMENT-RESPONSE`",
  ),
  "a PDF uploaded as multipart/form-data is used by its upload_token": spec1(
    ORDER,
    "pdf | … (b) object `{upload_token}` (string, min 1, no other properties; preferred form)",
  ),
  "upload field aliases pdf and pdfFile are accepted": spec1(
    "Agent tool (MCP) interface",
    "upload the PDF as multipart/form-data in field `file` (aliases `pdf`, `pdfFile`)",
  ),
  "an upload token serves one order only": spec1(
    ORDER,
    "pdf | … (b) object `{upload_token}` (string, min 1, no other properties; preferred form)",
  ),
  "an unknown upload token is refused on its field": BAD_INPUT,
  "validate returns a signed preview_url that serves the PDF; a tampered link is 403": spec1(
    "Response facts",
    "Unpaid single-recipient create responses may include `preview_url`, a signed short-lived URL to the generated or uploaded PDF.",
  ),
  "letter PDFs must be US letter, every page": spec1(
    ORDER,
    "letter.render | object | `paper` enum (letter only)",
  ),
  "the form catalogue searches slug, name and aliases and pages with a cursor": spec1(
    "Endpoints",
    "GET | /api/machine/forms | query: q (string, optional slug/name search), limit (integer 1 to 200, default 50), cursor (string from previous response) | 200 form catalog; 400 invalid query",
  ),
  "a form schema is served by slug or alias; unknown forms are 404": spec1(
    "Endpoints",
    "GET | /api/machine/forms/{slug}/schema | path slug | 200 workflow schema; 404 unknown form",
  ),
  "validate with a form generates the packet and counts its pages": spec2(
    "What the service does",
    "Each workflow turns structured answers into a generated, signed letter PDF (plus optional attached copies), which is printed and mailed to one recipient chosen by the sender.",
  ),
  "form answers are checked with paths under form.fields": spec2(
    "Shared rules",
    "A required field must be answered when active. Empty strings and unchecked boxes are not answers.",
  ),
  "out-of-scope form answers are refused before any payment": spec2(
    "Shared rules",
    "The workflow's compliance policy (where it has one) is re-checked at stages preview, approval, checkout, payment, fulfillment and machine.",
  ),
  "certified-required forms refuse certified false": spec2(
    "Form 1: slug mortgage-servicing-error-packet (workflow version 1)",
    "Certified Mail: required (`certified` true).",
  ),
  "letters render every format: text, markdown, html and rtf": spec1(
    ORDER,
    "letter.format / format | enum | text, html, markdown, rtf. Default text.",
  ),
  "postcards must use the bleed canvas, not the trim size": spec1(
    "Postcards",
    "Page canvas must match the size's bleed template.",
  ),
  "postcards keep the address zone of page 2 free of ink": spec1(
    "Postcards",
    "page 2 is the mailing side and must not contain sender or recipient names, addresses, indicia or barcodes",
  ),
  "international postcards show their production route": spec1(
    "Postcards",
    "larger international postcards, or those with a non-U.S. return address, route to a second provider before submission.",
  ),
  "a bulk campaign validates with a report per row and refuses only when no row is valid": spec1(
    "Response facts",
    "for bulk it returns `bulk.recipient_count` and `bulk.content_mode`.",
  ),
  "flower letters are quoted after product, ZIP and date checks": spec1(
    "Flower-letter request",
    "The product, ZIP, delivery date and final quote are validated before the 402 challenge is issued.",
  ),
  "flower letters are refused before any 402 when a check fails": spec1(
    "Flower-letter request",
    "The product, ZIP, delivery date and final quote are validated before the 402 challenge is issued.",
  ),
  "unpaid flower letters answer 402 and their status by id": spec1(
    "Endpoints",
    "GET | /api/machine/flower-letters/{id} and /api/machine/mpp/flower-letters/{id} | path id (uuid) | 200 flower-letter order; 404",
  ),
  "another method on a known path is 405 with Allow": http(
    "15.5.6. 405 Method Not Allowed",
    "The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource's currently supported methods.",
  ),
  "a campaign above the ceiling of one order is refused, saying how many rows fit": spec1(
    "Bulk object",
    "csv_content | string; the recipient CSV.",
  ),
  "an x402 challenge names its order, so its payment cannot pay another": spec1(
    "What the service does",
    "A retry after 402 must reuse the same `request_id` and a byte-for-byte identical JSON body",
  ),
};

export { type AddressIdCheck, parseAddressId } from "./address-id.ts";
export {
  type AddressBlockLine,
  type AddressLineOptions,
  formatAddressBlock,
  formatAddressLines,
  isInternationalPiece,
  pieceAddressLines,
} from "./address-lines.ts";
export {
  ADDRESS_LOOKUP_CODES,
  type AddressLookupCode,
  type AddressReference,
  addressModeUnavailable,
  addressReferences,
  checkResolvedAddress,
  type ResolvedAddressCheck,
  withResolvedAddress,
  withResolvedAddresses,
} from "./address-reference.ts";
export {
  BULK_EXCLUDED_FIELDS,
  describeCampaignRows,
  type NormalizedBulk,
  templatePlaceholders,
  unknownPlaceholders,
} from "./bulk.ts";
export { BulkObject, CONTENT_MODES, type ContentMode } from "./bulk-schema.ts";
export {
  type CampaignColumnRole,
  type CampaignCsv,
  type CampaignCsvOptions,
  type CampaignCsvProblem,
  type CampaignRow,
  type CampaignRowError,
  campaignColumn,
  parseCampaignCsv,
  readCampaignCsv,
  readCampaignCsvStream,
} from "./campaign-csv.ts";
export {
  type CampaignTemplate,
  compileTemplate,
  escapeHtml,
  fillTemplate,
  type TemplatePart,
  templateValue,
} from "./campaign-template.ts";
export {
  ALLOWED_COUNTRIES,
  type CountryCode,
  countryName,
  isAllowedCountry,
  isCountryName,
  resolveCountry,
} from "./countries.ts";
export {
  DEFAULT_RENDER,
  type DocumentSource,
  type LetterRenderValue,
  type LetterSignatureValue,
  type PdfSourceValue,
} from "./document-source.ts";
export { OrdersError, type OrdersErrorCode } from "./errors.ts";
export { EXAMPLE_ORDER_REQUESTS } from "./examples.ts";
export { FormAttachment, FormPayload } from "./form-schema.ts";
export {
  formatPath,
  ISSUE_CODES,
  type Issue,
  type IssueCode,
  isIssueCode,
  joinPath,
  MAX_JSON_DEPTH,
  pathSegments,
  tooDeepPath,
  WARNING_CODES,
} from "./issues.ts";
export {
  LETTER_FORMATS,
  type LetterFormat,
  LetterFormatSchema,
  LetterObject,
  LetterRender,
  LetterSignature,
  LetterSource,
} from "./letter-schema.ts";
export {
  MAX_ATTACHMENT_BYTES,
  MAX_ATTACHMENTS,
  MAX_CAMPAIGN_ROWS,
  MAX_CSV_BYTES,
  MAX_LETTER_CHARS,
  MAX_LETTER_TITLE_CHARS,
  MAX_PDF_BYTES,
  MAX_SIGNATURE_IMAGE_BYTES,
  MAX_SIGNATURE_TEXT_CHARS,
  MAX_TEMPLATE_HTML_CHARS,
} from "./limits.ts";
export { DEFAULT_OPTIONS, MAIL_OPTION_FIELDS, type MailOptions } from "./mail-options.ts";
export {
  type AddressProblem,
  type CheckedManualAddress,
  checkManualAddress,
  type ManualAddressInput,
  type ManualAddressRules,
} from "./manual-address.ts";
export { ManualAddress } from "./manual-address-schema.ts";
export {
  ADDRESS_ID_PATTERN,
  ADDRESS_TYPES,
  DraftOrderRequest,
  ERR_DELIVERIES,
  MAIL_CLASSES,
  MAILPIECE_TYPES,
  OrderRequest,
  POSTCARD_SIZES,
  RETURN_RECEIPT_FORMATS,
} from "./order-request-schema.ts";
export { parseOrderRequest } from "./parse-order-request.ts";
export type { Party, PartyRole, ResolvedAddress } from "./party.ts";
export { PdfSource } from "./pdf-source-schema.ts";
export { describeCharacters, unprintableCharacters } from "./printable-text.ts";
export {
  MAX_PROJECTS_NAME_CHARS,
  PROJECTS_ADDRESS_ALIASES,
  type ProjectsAddress,
  type ProjectsAddressRules,
  parseProjectsAddress,
} from "./projects-address.ts";
export { PROJECTS_ISSUE_CODES, type ProjectsIssueCode, type ProjectsParse } from "./projects-issues.ts";
export {
  type CreateOrderBody,
  MAX_METADATA_KEY_CHARS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_CHARS,
  parseCreateOrderBody,
} from "./projects-order-body.ts";
export {
  LetterQuoteBody,
  MAX_PROJECTS_ID_CHARS,
  PostcardQuoteBody,
  PROJECTS_MAIL_CLASSES,
  type ProjectsMailClass,
} from "./projects-request-schema.ts";
export {
  type LetterQuoteRequest,
  type PostcardQuoteRequest,
  PROJECTS_DESTINATIONS,
  PROOF_MAIL_DESTINATIONS,
  type ProofMail,
  parseLetterQuoteRequest,
  parsePostcardQuoteRequest,
} from "./projects-requests.ts";
export { applyRegisteredMail, travelsRegistered } from "./registered-mail.ts";
export { isRequestId, UUID_PATTERN } from "./request-id.ts";
export { createSchemaCheck, type SchemaCheck } from "./schema-check.ts";
export {
  CA_PROVINCES,
  hasSubdivisionList,
  resolveSubdivision,
  type SubdivisionCountry,
  subdivisionName,
  US_STATES,
} from "./subdivisions.ts";
export { charCount } from "./text-length.ts";
export {
  type NormalizedOrder,
  type OrderRequestOptions,
  type OrderValidation,
  validateOrderRequest,
} from "./validate-order-request.ts";
export { ValidationErrorBody, ValidationIssue, validationErrorBody } from "./validation-issue-schema.ts";

import { describe, expect, it } from "vitest";
import type { DocumentSource, Issue, NormalizedOrder, OrderValidation, Party } from "./index.ts";
import {
  ADDRESS_LOOKUP_CODES,
  ALLOWED_COUNTRIES,
  addressReferences,
  BulkObject,
  CA_PROVINCES,
  checkResolvedAddress,
  createSchemaCheck,
  EXAMPLE_ORDER_REQUESTS,
  FormAttachment,
  FormPayload,
  formatAddressBlock,
  formatAddressLines,
  ISSUE_CODES,
  isCountryName,
  isInternationalPiece,
  isRequestId,
  LetterObject,
  LetterRender,
  LetterSignature,
  MAX_CAMPAIGN_ROWS,
  MAX_CSV_BYTES,
  ManualAddress,
  OrderRequest,
  OrdersError,
  PdfSource,
  parseCampaignCsv,
  parseOrderRequest,
  pieceAddressLines,
  readCampaignCsv,
  resolveSubdivision,
  travelsRegistered,
  US_STATES,
  UUID_PATTERN,
  unprintableCharacters,
  ValidationErrorBody,
  ValidationIssue,
  validateOrderRequest,
  validationErrorBody,
  withResolvedAddresses,
} from "./index.ts";

describe("package entry", () => {
  it("exports the public API", () => {
    const functions = {
      validateOrderRequest,
      parseOrderRequest,
      formatAddressLines,
      parseCampaignCsv,
      readCampaignCsv,
      createSchemaCheck,
      validationErrorBody,
      OrdersError,
      formatAddressBlock,
      pieceAddressLines,
      isInternationalPiece,
      isCountryName,
      isRequestId,
      resolveSubdivision,
      unprintableCharacters,
      travelsRegistered,
      addressReferences,
      checkResolvedAddress,
      withResolvedAddresses,
    };
    for (const fn of Object.values(functions)) expect(typeof fn).toBe("function");
    const schemas = {
      OrderRequest,
      ManualAddress,
      LetterObject,
      LetterSignature,
      LetterRender,
      PdfSource,
      FormPayload,
      FormAttachment,
      BulkObject,
      ValidationIssue,
      ValidationErrorBody,
    };
    for (const [name, schema] of Object.entries(schemas)) {
      expect((JSON.parse(JSON.stringify(schema)) as { title?: string }).title).toBe(name);
    }
    expect(ALLOWED_COUNTRIES).toContain("ES");
    expect(MAX_CAMPAIGN_ROWS).toBe(100_000);
    expect(MAX_CSV_BYTES).toBe(50 * 1024 * 1024);
    expect(ISSUE_CODES.length).toBeGreaterThan(40);
    expect(ADDRESS_LOOKUP_CODES).toContain("address_not_found");
    expect(US_STATES.IL).toBe("Illinois");
    expect(CA_PROVINCES.BC).toBe("British Columbia");
    expect(typeof UUID_PATTERN).toBe("string");
  });

  it("its types describe the validation result", () => {
    const result: OrderValidation = validateOrderRequest(EXAMPLE_ORDER_REQUESTS.letter);
    const order: NormalizedOrder | undefined = result.ok ? result.order : undefined;
    const sender: Party | undefined = order?.sender;
    const document: DocumentSource | undefined = order?.document;
    const warnings: Issue[] = result.ok ? result.warnings : [];
    expect([sender?.country, document?.kind, warnings]).toEqual(["US", "letter", []]);
  });
});

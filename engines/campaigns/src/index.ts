export { aboveCeilingIssue, ceilingFit } from "./ceiling.ts";
export { CampaignsError, type CampaignsErrorCode } from "./errors.ts";
export { type CampaignLetter, campaignLetter, letterLengthIssue, rowLetter } from "./letter.ts";
export {
  type CampaignDocumentPages,
  letterPages,
  lineBreaks,
  type PageBoundLetter,
  type PageCounter,
  pageBoundLetter,
  pdfPages,
} from "./pages.ts";
export { type CampaignPlanOptions, planCampaign, rowLimitIssue } from "./plan.ts";
export {
  findUnprintable,
  type PrintCheck,
  printableOnAnyMailpiece,
  printedColumns,
  unprintableRowIssues,
} from "./printable.ts";
export {
  campaignPricingPath,
  isRowPricingError,
  pieceQuoteInput,
  pieceRoute,
  pricedOptions,
  pricingErrorField,
} from "./route.ts";
export type {
  CampaignBulkInput,
  CampaignCeiling,
  CampaignDestinationSubtotal,
  CampaignOrderInput,
  CampaignPiece,
  CampaignPlan,
  CampaignPlanOutcome,
  CampaignRouteSubtotal,
  CampaignRowIssue,
  CampaignRowReport,
  PieceRoute,
  PricedOptions,
} from "./types.ts";

// The test-mode draft endpoints of spec 3 ({base_url}/v1/test): what the core composes and a surface maps.

export type { Simulation, TestEvent, TestEventType, TestOrderStatus, TrackingStatus } from "./lifecycle.ts";
export { SIMULATIONS, TEST_EVENT_TYPES } from "./lifecycle.ts";
export { WATERMARK } from "./preview-document.ts";
export type { TestLineItem, TestQuote } from "./quote.ts";
export type { TestMailClass } from "./requests.ts";
export { TEST_MAIL_CLASSES } from "./requests.ts";
export type { CreateTestDraftInput, TestDrafts, TestDraftsDeps } from "./test-drafts.ts";
export { createTestDrafts, TEST_DRAFT_RATE_LIMIT, TEST_DRAFT_RETENTION_MS } from "./test-drafts.ts";
export type { TestDraftView, TestOrderView, TestPieceView } from "./view.ts";
export { TEST_PREVIEW_PATH } from "./view.ts";
